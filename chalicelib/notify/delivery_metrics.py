"""How many notifications a delivery sent and failed, per channel, as CloudWatch metrics.

One JSON line per channel on standard output in CloudWatch's embedded metric format: Lambda
writes it to the function's log group and CloudWatch turns it into `NotificationsSent` and
`NotificationsFailed` (namespace `Statuspage`, dimensions Stage and Channel), with no API call
and no permission. The alarms on the failed share read them (`infra/alarms.py`). Under
`make run` the line goes where the stack's standard output goes.
"""

import json
import sys
import time
from collections import Counter
from collections.abc import Iterable

from chalicelib import config
from chalicelib.domain import chat_platforms

NAMESPACE = "Statuspage"
SENT, FAILED = "NotificationsSent", "NotificationsFailed"
# Every chat platform is one channel: they fail alike (a webhook POST to a platform).
CHANNELS = ("email", "sms", "webhook", "chat")


def channel_of(kind: str) -> str:
    return "chat" if chat_platforms.is_chat(kind) else kind


def line(channel: str, sent: int, failed: int, at_ms: int) -> str:
    """The embedded-metric-format document of one channel's counts."""
    return json.dumps(
        {
            "_aws": {
                "Timestamp": at_ms,
                "CloudWatchMetrics": [
                    {
                        "Namespace": NAMESPACE,
                        "Dimensions": [["Stage", "Channel"]],
                        "Metrics": [
                            {"Name": SENT, "Unit": "Count"},
                            {"Name": FAILED, "Unit": "Count"},
                        ],
                    }
                ],
            },
            "Stage": config.stage(),
            "Channel": channel,
            SENT: sent,
            FAILED: failed,
        },
        separators=(",", ":"),
    )


def record(outcomes: Iterable[tuple[str, bool]]) -> None:
    """`outcomes`: (recipient kind, reached) of each send a delivery made."""
    sent: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for kind, reached in outcomes:
        (sent if reached else failed)[channel_of(kind)] += 1
    at_ms = int(time.time() * 1000)
    for channel in sorted(set(sent) | set(failed)):
        print(line(channel, sent[channel], failed[channel], at_ms), file=sys.stdout, flush=True)
