"""How many notifications a delivery sent and failed, per channel, as CloudWatch metrics.

One embedded-metric-format line per channel (`observability.metrics`): `NotificationsSent`
and `NotificationsFailed` in namespace `Statuspage`, dimensions Stage and Channel. The alarms
on the failed share read them (`infra/alarms.py`). `NotificationsHeld` counts the recipients a
limit of SES or SNS sent back to the queue, and `SendLimitReached` each time SES's 24-hour
quota or SNS's SMS spend limit holds a channel (its alarm: `infra/alarms.py`).
"""

from collections import Counter
from collections.abc import Iterable

from aws_lambda_powertools.metrics import MetricUnit

from chalicelib.domain import chat_platforms
from chalicelib.observability import metrics
from chalicelib.observability.metrics import NAMESPACE  # noqa: F401 (the alarms read it here)

SENT, FAILED = "NotificationsSent", "NotificationsFailed"
HELD, LIMIT_REACHED = "NotificationsHeld", "SendLimitReached"
# The channels a quota or spend limit can hold.
LIMITED_CHANNELS = ("email", "sms")
# Every chat platform is one channel: they fail alike (a webhook POST to a platform).
CHANNELS = ("email", "sms", "webhook", "chat")


def channel_of(kind: str) -> str:
    return "chat" if chat_platforms.is_chat(kind) else kind


def record(outcomes: Iterable[tuple[str, bool | None]]) -> None:
    """`outcomes`: (recipient kind, reached) of each send a delivery made; None: held."""
    counts: dict[bool | None, Counter[str]] = {True: Counter(), False: Counter(), None: Counter()}
    for kind, reached in outcomes:
        counts[reached][channel_of(kind)] += 1
    for channel in sorted(set().union(*counts.values())):
        values = {
            SENT: (MetricUnit.Count, counts[True][channel]),
            FAILED: (MetricUnit.Count, counts[False][channel]),
        }
        if counts[None][channel]:
            values[HELD] = (MetricUnit.Count, counts[None][channel])
        metrics.emit(values, dimensions={"Channel": channel})


def limit_reached(channel: str, limit: str) -> None:
    """SES's 24-hour quota or SNS's spend limit (`limit`) refused a send: the channel is
    held."""
    metrics.emit(
        {LIMIT_REACHED: (MetricUnit.Count, 1)},
        dimensions={"Channel": channel},
        properties={"limit": limit},
    )
