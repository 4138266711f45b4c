"""The data points of imported custom metrics: read from the source, written here.

Statuspage's v1 API writes metric data but has no call that reads it; this service adds one
(`GET /pages/{page_id}/metrics/{metric_id}/data`, paged by an `after` cursor), so a source of
ours gives its points and a real Statuspage answers 404 or 405: its metric is imported
without them, and the run says so, metric by metric. (The charts of Statuspage's public page
are averaged buckets behind the page's own URL, not the points: not worth a guess at them.)

Points are written through the batch data POST's own functions, so they keep their
timestamps (cast to their 30-second interval) and only those of the last 28 days are kept;
a point already stored with its value is not written again, so a second run writes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

from chalicelib import schemas
from chalicelib.domain import metrics
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import Reader, SourceMissing

KIND = "metric_data"


def read(source: Reader, base: str, found_metrics: list[dict], progress: Progress) -> None:
    """Reads each metric's points into its `data` (None where the source has no read of
    them), and counts them."""
    total = 0
    for metric in found_metrics:
        path = f"{base}/metrics/{metric['id']}/data"
        try:
            items = source.after(path, "data", "timestamp", schemas.metrics.MAX_POINTS_PER_PAGE)
            metric["data"] = backfill_points(items)
        except SourceMissing:
            metric["data"] = None
            progress.say(
                f"metric {metric.get('name')!r} ({metric['id']}): data not readable from this "
                "source; metric definition imported"
            )
            continue
        total += len(metric["data"])
    progress.has_read(KIND, total)


def backfill_points(items) -> list[tuple[int, float]]:
    """The points of the backfill window, each at its interval (the last of an interval
    wins, as when they were written), oldest first."""
    kept: dict[int, float] = {}
    for item in items:
        timestamp, value = item.get("timestamp"), item.get("value")
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(timestamp, int) and number and metrics.in_backfill(timestamp):
            kept[metrics.interval_of(timestamp)] = value
    return sorted(kept.items())


def newest(source_metric: dict) -> datetime | None:
    """When the metric's newest imported point is for: its `most_recent_data_at` here."""
    points = source_metric.get("data")
    return datetime.fromtimestamp(points[-1][0], UTC) if points else None


def write(page_id: str, metric_id: str, points: list[tuple[int, float]], progress: Progress):
    """Writes the points the metric does not hold yet with their value, in batches of the
    size the batch data POST takes."""
    stored = {int(point.at): float(point.value) for point in metrics.points_of(page_id, metric_id)}
    missing = [(at, value) for at, value in points if stored.get(at) != float(value)]
    for start in range(0, len(missing), metrics.MAX_BATCH_POINTS):
        batch = [
            metrics.Point(at, value)
            for at, value in missing[start : start + metrics.MAX_BATCH_POINTS]
        ]
        metrics.write_batch(metrics.batch_message(page_id, {metric_id: batch}))
        progress.items(KIND, len(batch), len(batch))
    progress.items(KIND, len(points) - len(missing), 0)
