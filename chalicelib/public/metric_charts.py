"""The public page's metric charts: each displayed metric's points over a day, week or month,
averaged into buckets when the page is viewed (one Query a metric), drawn as server-side SVG.

Every bucket is a column with its own `<title>`, which browsers show on hover without any
script; the page's policy runs none, and allows no `style` attribute, so the chart is drawn
with SVG attributes and the page's style sheet only.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from chalicelib.domain import errors, metric_sources, metrics

WIDTH = 600
HEIGHT = 120
DEFAULT_PERIOD = "day"
PERIOD_LABELS = {"day": "Day", "week": "Week", "month": "Month"}
_TIME_FORMATS = {"day": "%H:%M", "week": "%b %d %H:%M", "month": "%b %d %H:%M"}


@dataclass(frozen=True)
class Column:
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True)
class Chart:
    metric: dict
    columns: list[Column]
    high: str  # the top of the y axis, formatted
    low: str
    average: str | None  # over the window; None: no data in it


def period_of(value: str | None) -> str:
    """The period a page view asked for (`?metric_period=`), the day when none or unknown."""
    return value if value in metrics.WINDOWS else DEFAULT_PERIOD


def formatted(metric: dict, value: float) -> str:
    places = int(metric.get("decimal_places") or 0)
    return f"{value:,.{places}f}{metric.get('suffix') or ''}"


def chart_of(metric: dict, buckets: list[metrics.Bucket], period: str, time_zone: str) -> Chart:
    values = [bucket.average for bucket in buckets if bucket.average is not None]
    low = metric.get("y_axis_min")
    high = metric.get("y_axis_max")
    low = min([0.0, *values]) if low is None else float(low)
    high = max([low, *values]) if high is None else float(high)
    if high <= low:
        high = low + 1
    zone = ZoneInfo(time_zone)
    width = WIDTH / max(len(buckets), 1)
    columns = []
    for index, bucket in enumerate(buckets):
        if bucket.average is None:
            continue
        shown = min(max(bucket.average, low), high)
        height = max((shown - low) / (high - low) * HEIGHT, 1)
        moment = datetime.fromtimestamp(bucket.start, UTC).astimezone(zone)
        title = f"{moment.strftime(_TIME_FORMATS[period])}: {formatted(metric, bucket.average)}"
        columns.append(
            Column(
                round(index * width, 2),
                round(HEIGHT - height, 2),
                round(width, 2),
                round(height, 2),
                title,
            )
        )
    average = formatted(metric, sum(values) / len(values)) if values else None
    return Chart(metric, columns, formatted(metric, high), formatted(metric, low), average)


def _buckets(page_id: str, metric: dict, window: metrics.Window, now: datetime):
    source = metric_sources.source_of(page_id, metric["id"], metric.get("metrics_provider_id"))
    try:
        return source.points(window, now)
    except errors.Unavailable:
        return []  # a provider-linked metric: charted as having no data


def charts(data: dict, period: str, now: datetime) -> list[Chart]:
    """The charts of the page's displayed metrics over `period` (a Query each custom one)."""
    window = metrics.WINDOWS[period]
    page = data["page"]
    return [
        chart_of(metric, _buckets(page["id"], metric, window, now), period, page["time_zone"])
        for metric in data.get("metrics") or []
    ]
