"""How many notifications a delivery sent and failed, per channel, as CloudWatch metrics.

One embedded-metric-format line per channel (`observability.metrics`): `NotificationsSent`
and `NotificationsFailed` in namespace `Statuspage`, dimensions Stage and Channel. The alarms
on the failed share read them (`infra/alarms.py`).
"""

from collections import Counter
from collections.abc import Iterable

from aws_lambda_powertools.metrics import MetricUnit

from chalicelib.domain import chat_platforms
from chalicelib.observability import metrics
from chalicelib.observability.metrics import NAMESPACE  # noqa: F401 (the alarms read it here)

SENT, FAILED = "NotificationsSent", "NotificationsFailed"
# Every chat platform is one channel: they fail alike (a webhook POST to a platform).
CHANNELS = ("email", "sms", "webhook", "chat")


def channel_of(kind: str) -> str:
    return "chat" if chat_platforms.is_chat(kind) else kind


def record(outcomes: Iterable[tuple[str, bool]]) -> None:
    """`outcomes`: (recipient kind, reached) of each send a delivery made."""
    sent: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for kind, reached in outcomes:
        (sent if reached else failed)[channel_of(kind)] += 1
    for channel in sorted(set(sent) | set(failed)):
        metrics.emit(
            {SENT: (MetricUnit.Count, sent[channel]), FAILED: (MetricUnit.Count, failed[channel])},
            dimensions={"Channel": channel},
        )
