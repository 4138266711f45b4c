"""What every route shares, written once: decoding, errors, auth, rate limits, pagination."""
