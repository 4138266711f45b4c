"""The management console at `/manage`: organization users run their pages from a browser,
through the same domain functions and role checks as the API."""
