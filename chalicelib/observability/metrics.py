"""Custom CloudWatch metrics, written as log lines in CloudWatch's embedded metric format.

Each call prints one JSON line (made by Powertools' `EphemeralMetrics`, which validates it
against the format's schema) to standard error: on Lambda, CloudWatch Logs turns it into
metrics in namespace `Statuspage`, with no API call and no permission. Under `make run` the
line goes to the stack's log beside the others.
Every metric has the dimension `Stage`; a line's other keys (`properties`) are searchable in
Logs Insights, but no dimension.

- `NotificationsSent`, `NotificationsFailed` (Count; dimensions Stage, Channel): what one
  delivery sent and failed (`chalicelib/notify/delivery_metrics.py`; the failed-share alarms
  of `infra/alarms.py` read them);
- `FanOutRecipients` (Count): the recipients one fan-out enqueued;
- `PublishDelay` (Seconds): from a write the public sees to its files published (the line
  also says what the publish cost: `seconds`, `rendered` files, `store_reads`, `store_writes`).
"""

import json
import sys
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from chalicelib import config

NAMESPACE = "Statuspage"
FAN_OUT_RECIPIENTS = "FanOutRecipients"
PUBLISH_DELAY = "PublishDelay"


def emit(
    values: dict[str, tuple[MetricUnit, float]],
    dimensions: dict[str, str] | None = None,
    properties: dict[str, Any] | None = None,
) -> None:
    """One line: `values` maps each metric's name to its unit and value."""
    # A fresh set each time: a set is not shared between the threads of the local stack.
    metrics = EphemeralMetrics(namespace=NAMESPACE)
    metrics.add_dimension("Stage", config.stage())
    for name, value in (dimensions or {}).items():
        metrics.add_dimension(name, value)
    for key, value in (properties or {}).items():
        metrics.add_metadata(key, value)
    for name, (unit, value) in values.items():
        metrics.add_metric(name, unit, value)
    document = metrics.serialize_metric_set()
    # Powertools lists each metric's values; one value is written as the number itself, as
    # the format allows, so a reader of the line finds the count where it looks.
    document.update({name: value for name, (_, value) in values.items()})
    # Standard error: Lambda sends it to CloudWatch Logs as it sends standard output, and the
    # local stack's standard output is its ready line, read by whoever started it.
    # One write, newline included: standard error writes through, so `print` wrote the line
    # and its end apart, and another process of the local stack could write between them.
    sys.stderr.write(json.dumps(document, separators=(",", ":")) + "\n")
    sys.stderr.flush()


def fan_out_size(recipients: int, event_kind: str) -> None:
    emit({FAN_OUT_RECIPIENTS: (MetricUnit.Count, recipients)}, properties={"event": event_kind})


def publish_delay(written_at: datetime | None, page_id: str, **cost: float) -> None:
    """`written_at`: when the newest write the published files show was committed; `cost`:
    what the publish took (its seconds, the files it rendered, its requests to the store)."""
    if written_at is None:
        return
    delay = max(0.0, (datetime.now(UTC) - written_at).total_seconds())
    emit(
        {PUBLISH_DELAY: (MetricUnit.Seconds, round(delay, 3))},
        properties={"page_id": page_id, **cost},
    )
