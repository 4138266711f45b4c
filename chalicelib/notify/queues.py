"""The SQS queues the app uses, by short name; their URLs are looked up once per process."""

import json
from functools import lru_cache

import boto3

from chalicelib import config

NOTIFICATIONS = "notifications"
DELIVERIES = "deliveries"


@lru_cache(maxsize=1)
def _client():
    return boto3.client("sqs", region_name=config.region())


@lru_cache(maxsize=8)
def _url(short_name: str) -> str:
    return _client().get_queue_url(QueueName=config.queue_name(short_name))["QueueUrl"]


def send(short_name: str, message: dict) -> None:
    _client().send_message(QueueUrl=_url(short_name), MessageBody=json.dumps(message))


def send_batch(short_name: str, messages: list[dict]) -> None:
    """Up to 10 messages a call, as SQS allows."""
    for start in range(0, len(messages), 10):
        chunk = messages[start : start + 10]
        entries = [
            {"Id": str(number), "MessageBody": json.dumps(message)}
            for number, message in enumerate(chunk)
        ]
        answer = _client().send_message_batch(QueueUrl=_url(short_name), Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(f"SQS refused {len(answer['Failed'])} messages")
