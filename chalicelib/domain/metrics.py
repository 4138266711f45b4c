"""Metrics (SPEC 2.14) and the data points of custom metrics (SPEC 2.15, 8).

A custom metric is one under the page's `Self` provider: only it takes data through the API.
Each point is cast to the nearest 30-second interval and stored under (metric, interval), so
the last of several points in one interval is the one kept, by a plain put.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from chalicelib import clock, ids
from chalicelib.domain import errors, metrics_providers, unit_of_work
from chalicelib.domain.inputs import UNSET, Unset, given
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.metrics import Metric, MetricPoint

INTERVAL_SECONDS = 30
BACKFILL = timedelta(days=28)

# The public page charts the displayed ones and reads them all (one Query) when rebuilt.
MAX_METRICS_PER_PAGE = 100


def metrics_of(
    page_id: str, provider_id: str | None = None, *, consistent: bool = False
) -> list[Metric]:
    found = list(Metric.query(page_id, consistent_read=consistent))
    if provider_id is not None:
        found = [metric for metric in found if metric.metrics_provider_id == provider_id]
    return found


def get_metric(page_id: str, metric_id: str) -> Metric:
    try:
        return Metric.get(page_id, metric_id)
    except Metric.DoesNotExist:
        raise errors.NotFound() from None


def is_custom(page_id: str, metric: Metric) -> bool:
    return metric.metrics_provider_id == metrics_providers.self_provider_id(page_id)


def _check_axis(metric: Metric) -> None:
    low, high = metric.y_axis_min, metric.y_axis_max
    if low is not None and high is not None and not low < high:
        raise errors.invalid("y_axis_max", "must be greater than y_axis_min")


@dataclass(frozen=True)
class MetricInput:
    """A new metric (a name at least), or what an update changes: every field is UNSET when
    not given; null clears one that may be empty and leaves those that always have a value
    (`name`, `display`, `y_axis_hidden`, `suffix`)."""

    name: str | None | Unset = UNSET
    metric_identifier: str | None | Unset = UNSET
    transform: str | None | Unset = UNSET
    application_id: str | None | Unset = UNSET
    suffix: str | None | Unset = UNSET
    y_axis_min: float | None | Unset = UNSET
    y_axis_max: float | None | Unset = UNSET
    y_axis_hidden: bool | None | Unset = UNSET
    display: bool | None | Unset = UNSET
    decimal_places: int | None | Unset = UNSET
    tooltip_description: str | None | Unset = UNSET


@dataclass(frozen=True)
class Point:
    """A data point of a custom metric."""

    timestamp: int  # Unix seconds
    value: int | float


def _apply(metric: Metric, fields: MetricInput) -> None:
    for name, value in given(fields).items():
        if value is None and name in ("name", "display", "y_axis_hidden", "suffix"):
            continue  # these always have a value
        setattr(metric, name, value)
    _check_axis(metric)


def create_metric(page_id: str, provider_id: str, fields: MetricInput) -> Metric:
    provider = metrics_providers.get_provider(page_id, provider_id)
    moment = clock.now()
    metric = Metric(
        page_id,
        ids.new_id(),
        metrics_provider_id=provider.id,
        name=fields.name,
        created_at=moment,
        updated_at=moment,
    )
    _apply(metric, fields)
    if len(metrics_of(page_id)) >= MAX_METRICS_PER_PAGE:
        raise errors.invalid("metric", f"a page has at most {MAX_METRICS_PER_PAGE} metrics")

    def change(work: Work) -> Metric:
        work.save(metric)
        return metric

    return unit_of_work.run(page_id, change)


def update_metric(page_id: str, metric_id: str, fields: MetricInput) -> Metric:
    def change(work: Work) -> Metric:
        metric = get_metric(page_id, metric_id)
        _apply(metric, fields)
        metric.updated_at = work.moment
        work.save(metric)
        return metric

    return unit_of_work.run(page_id, change)


def delete_metric(page_id: str, metric_id: str) -> Metric:
    def change(work: Work) -> Metric:
        metric = get_metric(page_id, metric_id)
        work.delete(metric)
        for point in MetricPoint.query(metric.id):
            work.delete(point)
        return metric

    return unit_of_work.run(page_id, change)


def interval_of(timestamp: int) -> int:
    """The start of the 30-second interval nearest to `timestamp` (SPEC 8)."""
    return (timestamp + INTERVAL_SECONDS // 2) // INTERVAL_SECONDS * INTERVAL_SECONDS


def _backfill_window() -> tuple[float, float]:
    """The oldest and the newest time a point may be written for (SPEC 8: 28 days back)."""
    now = clock.now()
    return (now - BACKFILL).timestamp(), now.timestamp()


def in_backfill(timestamp: float) -> bool:
    oldest, newest = _backfill_window()
    return oldest <= timestamp <= newest


def _check_time(timestamp: int) -> None:
    oldest, newest = _backfill_window()
    if timestamp > newest:
        raise errors.invalid("timestamp", "must not be in the future")
    if timestamp < oldest:
        raise errors.invalid("timestamp", "must be at most 28 days in the past")


def add_point(page_id: str, metric_id: str, point: Point) -> MetricPoint:
    """Stores the point in its interval (replacing any earlier one there) and moves the
    metric's `most_recent_data_at` forward when the point is its newest."""
    metric = get_metric(page_id, metric_id)
    if not is_custom(page_id, metric):
        raise errors.NotAllowed()
    _check_time(point.timestamp)
    at = interval_of(point.timestamp)
    stored = MetricPoint(metric.id, at, value=point.value)
    moment = datetime.fromtimestamp(at, UTC)

    def change(work: Work) -> MetricPoint:
        work.chart()
        current = get_metric(page_id, metric_id)
        with work.together():
            work.save(stored)  # no condition: the last point of an interval wins
            newest = current.most_recent_data_at
            if newest is None or newest < moment:
                work.update(
                    current,
                    [Metric.most_recent_data_at.set(moment)],
                    Metric.most_recent_data_at.does_not_exist()
                    | (Metric.most_recent_data_at < moment),
                    versioned=False,
                )
        return stored

    return unit_of_work.run(page_id, change)


def reset_data(page_id: str, metric_id: str) -> Metric:
    """Deletes every point of a custom metric."""

    def change(work: Work) -> Metric:
        work.chart()
        metric = get_metric(page_id, metric_id)
        if not is_custom(page_id, metric):
            raise errors.NotAllowed()
        for point in MetricPoint.query(metric.id):
            work.delete(point)
        metric.most_recent_data_at = None
        metric.updated_at = work.moment
        work.save(metric)
        return metric

    return unit_of_work.run(page_id, change)


def points_of(
    page_id: str, metric_id: str, after: int | None = None, limit: int | None = None
) -> list[MetricPoint]:
    """The metric's stored points of the backfill window (the last 28 days: older ones take
    no new data either), oldest first, from the first after `after` (Unix seconds), at most
    `limit`: one Query on the range of `at`, so a page of points costs what it holds however
    many the metric has."""
    metric = get_metric(page_id, metric_id)
    now = clock.now()
    first = int((now - BACKFILL).timestamp())
    if after is not None:
        first = max(first, after + 1)
    # A point is stored at its interval's start, which may be up to half an interval ahead.
    last = int(now.timestamp()) + INTERVAL_SECONDS
    if first > last:
        return []  # a cursor past now: DynamoDB refuses a range that ends before it starts
    condition = MetricPoint.at.between(first, last)
    return list(MetricPoint.query(metric.id, condition, limit=limit, consistent_read=True))


# SPEC 8: at most 3,000 points in one batch.
MAX_BATCH_POINTS = 3000


def batch_message(page_id: str, data: dict[str, list[Point]]) -> dict:
    """Checks a batch whole (every metric the page's and custom, 3,000 points at most) and
    returns the message that carries it to `write_batch`; points outside the backfill window
    are dropped when written."""
    if sum(len(points) for points in data.values()) > MAX_BATCH_POINTS:
        raise errors.Forbidden()
    known = {metric.id: metric for metric in metrics_of(page_id)}
    for metric_id in data:
        if metric_id not in known:
            raise errors.Forbidden()
        if not is_custom(page_id, known[metric_id]):
            raise errors.NotAllowed()
    points = [
        [metric_id, point.timestamp, point.value]
        for metric_id, listed in data.items()
        for point in listed
    ]
    return {"page_id": page_id, "points": points}


def write_batch(message: dict) -> None:
    """Writes a queued batch with batch writes; of several points in one interval the last
    is kept (a batch write may not name one key twice, so they are merged first)."""
    page_id = message["page_id"]
    kept: dict[tuple[str, int], float] = {}
    for metric_id, timestamp, value in message["points"]:
        if in_backfill(timestamp):
            kept[(metric_id, interval_of(int(timestamp)))] = value
    with MetricPoint.batch_write() as writes:
        for (metric_id, at), value in kept.items():
            writes.save(MetricPoint(metric_id, at, value=value))
    newest: dict[str, int] = {}
    for metric_id, at in kept:
        newest[metric_id] = max(at, newest.get(metric_id, at))
    for metric_id, at in newest.items():
        _move_most_recent(page_id, metric_id, datetime.fromtimestamp(at, UTC))


def _move_most_recent(page_id: str, metric_id: str, moment: datetime) -> None:
    def change(work: Work) -> None:
        work.quiet()
        try:
            current = Metric.get(page_id, metric_id)
        except Metric.DoesNotExist:
            return  # deleted since the batch was queued
        newest = current.most_recent_data_at
        if newest is None or newest < moment:
            work.update(
                current,
                [Metric.most_recent_data_at.set(moment)],
                Metric.most_recent_data_at.does_not_exist() | (Metric.most_recent_data_at < moment),
                versioned=False,
            )

    unit_of_work.run(page_id, change)


@dataclass(frozen=True)
class Window:
    """A chart's span and the width of the buckets its points are averaged into."""

    name: str
    seconds: int
    bucket_seconds: int

    @property
    def buckets(self) -> int:
        return self.seconds // self.bucket_seconds


# day: 288 five-minute buckets; week: 168 hours; month: 120 six-hour buckets.
WINDOWS = {
    "day": Window("day", 24 * 3600, 5 * 60),
    "week": Window("week", 7 * 24 * 3600, 3600),
    "month": Window("month", 30 * 24 * 3600, 6 * 3600),
}


@dataclass(frozen=True)
class Bucket:
    start: int  # Unix seconds
    average: float | None  # None: no point in the bucket
    points: int


def buckets_of(metric_id: str, window: Window, now: datetime | None = None) -> list[Bucket]:
    """The metric's points over `window` up to `now`, averaged into the window's buckets
    (aligned on multiples of their width, oldest first, the last one holding `now`): one
    Query on the range of `at` (DynamoDB pages it past 1 MB of points)."""
    moment = int((now or clock.now()).timestamp())
    width = window.bucket_seconds
    first = moment // width * width - (window.buckets - 1) * width
    sums = [0.0] * window.buckets
    counts = [0] * window.buckets
    for point in MetricPoint.query(metric_id, MetricPoint.at.between(first, moment)):
        index = (int(point.at) - first) // width
        sums[index] += float(point.value)
        counts[index] += 1
    return [
        Bucket(first + index * width, sums[index] / counts[index] if counts[index] else None, n)
        for index, n in enumerate(counts)
    ]
