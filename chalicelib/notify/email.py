"""Email through SES."""

from functools import lru_cache

import boto3

from chalicelib import config


@lru_cache(maxsize=1)
def _client():
    return boto3.client("ses", region_name=config.region())


def send_email(to: str, subject: str, text: str, sender: str | None = None) -> None:
    _client().send_email(
        Source=sender or config.notifications_sender(),
        Destination={"ToAddresses": [to]},
        Message={"Subject": {"Data": subject[:900]}, "Body": {"Text": {"Data": text}}},
    )
