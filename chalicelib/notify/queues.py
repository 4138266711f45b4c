"""The SQS queues the app uses, by short name; their URLs are looked up once per process."""

import json
from functools import lru_cache

import boto3

from chalicelib import config

NOTIFICATIONS = "notifications"
DELIVERIES = "deliveries"
METRIC_DATA = "metric-data"
PUBLISH = "publish"
# Every queue that a function of the app reads (`app.py` declares one function each; a test
# holds the two equal), known without importing the app: the local stack creates them while
# it is still importing it.
ALL = (NOTIFICATIONS, DELIVERIES, METRIC_DATA, PUBLISH)
# SQS takes at most 10 messages and 256 KiB in one SendMessageBatch.
MESSAGES_PER_SEND = 10
BYTES_PER_SEND = 256 * 1024


@lru_cache(maxsize=1)
def _client():
    return boto3.client("sqs", region_name=config.region())


@lru_cache(maxsize=8)
def _url(short_name: str) -> str:
    return _client().get_queue_url(QueueName=config.queue_name(short_name))["QueueUrl"]


def send(short_name: str, message: dict, delay_seconds: int = 0) -> None:
    _client().send_message(
        QueueUrl=_url(short_name), MessageBody=json.dumps(message), DelaySeconds=delay_seconds
    )


def _sends(bodies: list[str]) -> list[list[str]]:
    """The bodies in groups SQS takes in one call (count and size)."""
    groups: list[list[str]] = [[]]
    size = 0
    for body in bodies:
        length = len(body.encode())
        if groups[-1] and (len(groups[-1]) == MESSAGES_PER_SEND or size + length > BYTES_PER_SEND):
            groups.append([])
            size = 0
        groups[-1].append(body)
        size += length
    return [group for group in groups if group]


def send_batch(short_name: str, messages: list[dict], delay_seconds: int = 0) -> None:
    """As few calls as SQS allows (10 messages, 256 KiB a call)."""
    delayed = {"DelaySeconds": delay_seconds} if delay_seconds else {}
    for group in _sends([json.dumps(message) for message in messages]):
        entries = [
            {"Id": str(number), "MessageBody": body, **delayed} for number, body in enumerate(group)
        ]
        answer = _client().send_message_batch(QueueUrl=_url(short_name), Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(f"SQS refused {len(answer['Failed'])} messages")
