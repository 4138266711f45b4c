"""Where a metric's points come from, behind one interface: `MetricSource.points(window)`.

A custom metric (under the page's `Self` provider) is its own source: its points are the ones
clients sent, read from our table with one Query. A metric of a linked provider (Datadog, New
Relic, Pingdom, Librato) would be fetched from that service; this service has no such fetch
(no test here can reach those services, and the providers' credentials are kept only as
hashes, which no fetch can use), so its source says so with `errors.Unavailable`. A fetch
added later is one more `MetricSource`, and its readers (the public page's charts) stay as
they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from chalicelib.domain import errors, metrics, metrics_providers


class MetricSource(Protocol):
    def points(self, window: metrics.Window, now: datetime | None = None) -> list[metrics.Bucket]:
        """The metric's points over `window` up to `now`, averaged into its buckets."""
        ...


@dataclass(frozen=True)
class CustomPoints:
    """A custom metric's points: the ones clients sent, from our table."""

    metric_id: str

    def points(self, window: metrics.Window, now: datetime | None = None) -> list[metrics.Bucket]:
        return metrics.buckets_of(self.metric_id, window, now)


@dataclass(frozen=True)
class ProviderPoints:
    """A provider-linked metric's points: not fetched by this service."""

    metric_id: str

    def points(self, window: metrics.Window, now: datetime | None = None) -> list[metrics.Bucket]:
        raise errors.Unavailable(
            "points of provider-linked metrics are not fetched by this service"
        )


def source_of(page_id: str, metric_id: str, metrics_provider_id: str | None) -> MetricSource:
    """The source of a metric's points, told by its provider (no read: the `Self` provider's
    id is the page's). A metric without a provider id is custom: only those had points before
    the provider was recorded with a charted metric."""
    custom = metrics_provider_id in (None, metrics_providers.self_provider_id(page_id))
    return CustomPoints(metric_id) if custom else ProviderPoints(metric_id)
