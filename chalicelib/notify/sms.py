"""Text messages through SNS."""

from functools import lru_cache

import boto3

from chalicelib import config

MAX_LENGTH = 1600


@lru_cache(maxsize=1)
def _client():
    return boto3.client("sns", region_name=config.region())


def send_sms(phone_number: str, text: str) -> None:
    """`phone_number` in E.164 form (`+15551234567`)."""
    _client().publish(PhoneNumber=phone_number, Message=text[:MAX_LENGTH])
