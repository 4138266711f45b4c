"""The local stack's log lines, the same in each of its processes."""

import logging

# Per-request and per-client lines.
_NOISY = ("werkzeug", "botocore", "pynamodb")


def configure() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    for noisy in _NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)
