"""The public page's metric charts: each displayed metric's points over a day, week or month,
averaged into buckets when the page is viewed (one Query a metric), drawn as server-side SVG.

A chart is a line over a shaded area, a time axis below it (ticks on the hours or days of the
page's time zone) and its scale beside it, with a table of every value under it (in a
`<details>`, for readers of the numbers and those without a pointer or script). The page's
script reads that table to show the value under the pointer or, by the arrow keys, under the
keyboard's focus; the page's policy allows no `style` attribute, so the chart is drawn with SVG
attributes and the page's style sheet only.

The window ends with the newest point's bucket, so the page's files stay as published while
no data arrives; the page's script slides each chart on to the reader's clock (the points, the
line, the axis, the average), from the table's times and values.

Geometry: the SVG has no `viewBox`, so its units are the CSS pixels of the page: horizontal
places are percentages of its width (ticks, points), and the line and area are drawn in a
nested SVG stretched across it (`WIDTH` units wide), whose stroke does not scale.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from chalicelib.domain import errors, metric_sources, metrics

WIDTH = 1000  # the stretched plot's units across
PLOT_HEIGHT = 120  # pixels
PAD = 8  # pixels kept free above the highest value and below the lowest
BASELINE = PLOT_HEIGHT - PAD  # the area's bottom, in pixels from the plot's top
AXIS_HEIGHT = 22  # pixels below the plot for the time axis
DEFAULT_PERIOD = "day"
PERIOD_LABELS = {"day": "Day", "week": "Week", "month": "Month"}
PERIOD_NAMES = {"day": "the past day", "week": "the past week", "month": "the past month"}
# Every point is dotted when there are few; more are only the line.
DOTTED_AT_MOST = 48
# Where the time axis is ticked, in the page's time zone: the hours of each day (day), and
# which days at midnight (week: each; month: every fifth, counted from 1970-01-01).
_TICK_HOURS = {"day": (0, 4, 8, 12, 16, 20), "week": (0,), "month": (0,)}
_TICK_EVERY_DAYS = {"day": 1, "week": 1, "month": 5}
_EPOCH = date(1970, 1, 1)
# A tick this close to an edge (percent) is labeled from that edge, not centered on it.
_EDGE = 6.0


@dataclass(frozen=True)
class Size:
    plot_height: int = PLOT_HEIGHT
    axis_height: int = AXIS_HEIGHT
    width: int = WIDTH

    @property
    def height(self) -> int:
        return self.plot_height + self.axis_height


SIZE = Size()


@dataclass(frozen=True)
class Point:
    x: float  # percent of the width: the middle of the bucket
    y: float  # pixels from the plot's top
    at: str  # ISO 8601, UTC
    time: str  # when, in the page's time zone: `Mar 3, 14:05`
    value: str  # formatted, with the metric's suffix
    average: float = 0.0  # the bucket's, as a number

    @property
    def units_x(self) -> float:
        """Across the stretched plot, in its own units."""
        return round(self.x * WIDTH / 100, 2)


@dataclass(frozen=True)
class Tick:
    x: float  # percent of the width
    label: str
    anchor: str  # start, middle, end: how the label hangs on the tick
    at: int = 0  # Unix seconds

    @property
    def later(self) -> bool:
        """Past the chart's end: shown by the page's script once its window slides there."""
        return self.x > 100


@dataclass(frozen=True)
class Chart:
    metric: dict
    points: list[Point]
    high: str  # the top of the y axis, formatted
    low: str
    average: str | None  # over the window; None: no data in it
    period: str = DEFAULT_PERIOD
    line: str = ""  # the path of the line, in the stretched plot's units
    area: str = ""  # the path of the shaded area under it
    dots: list[Point] | None = None  # the points drawn as dots
    ticks: list[Tick] | None = None
    end: int = 0  # the window's end (Unix seconds): the end of its newest point's bucket

    @property
    def window(self) -> metrics.Window:
        return metrics.WINDOWS[self.period]

    @property
    def baseline(self) -> int:
        return BASELINE

    @property
    def label(self) -> str:
        """What the chart shows, in a sentence (its accessible name)."""
        name = self.metric.get("name") or ""
        if self.average is None:
            return f"{name}: no data over {PERIOD_NAMES[self.period]}"
        return (
            f"{name} over {PERIOD_NAMES[self.period]}: {len(self.points)} values, "
            f"average {self.average}"
        )


def period_of(value: str | None) -> str:
    """The period a page view asked for (`?metric_period=`), the day when none or unknown."""
    return value if value in metrics.WINDOWS else DEFAULT_PERIOD


def formatted(metric: dict, value: float) -> str:
    places = int(metric.get("decimal_places") or 0)
    return f"{value:,.{places}f}{metric.get('suffix') or ''}"


def moment_label(moment: datetime) -> str:
    """A point's time as the chart and its table write it: `Mar 3, 14:05`."""
    return f"{moment:%b} {moment.day}, {moment:%H:%M}"


def _percent(moment: float, start: float, end: float) -> float:
    return round((moment - start) / (end - start) * 100, 3)


def ticks_of(
    start: float, end: float, period: str, time_zone: str, until: float | None = None
) -> list[Tick]:
    """The time axis over [start, end) (Unix seconds), on the page's own hours and days;
    with `until`, its ticks on to then too (past 100 %)."""
    zone = ZoneInfo(time_zone)
    until = end if until is None else until
    first = datetime.fromtimestamp(start, UTC).astimezone(zone).date()
    last = datetime.fromtimestamp(until, UTC).astimezone(zone).date()
    ticks = []
    day = first
    while day <= last:
        if (day - _EPOCH).days % _TICK_EVERY_DAYS[period] == 0:
            for hour in _TICK_HOURS[period]:
                moment = datetime.combine(day, time(hour), zone)
                seconds = moment.timestamp()
                if start <= seconds <= until:
                    ticks.append(_tick(moment, _percent(seconds, start, end), period))
        day += timedelta(days=1)
    return ticks


def _tick(moment: datetime, x: float, period: str) -> Tick:
    label = f"{moment:%H:%M}" if period == "day" else f"{moment:%b} {moment.day}"
    anchor = "start" if x < _EDGE else "end" if x > 100 - _EDGE else "middle"
    return Tick(x, label, anchor, int(moment.timestamp()))


def _paths(points: list[Point], baseline: float) -> tuple[str, str]:
    """The line through the points (over the buckets without any, as the points a metric
    is sent are not always as close as its buckets) and the area under it."""
    if len(points) < 2:
        return "", ""
    steps = " ".join(f"L{point.units_x},{point.y}" for point in points[1:])
    start, end = points[0], points[-1]
    line = f"M{start.units_x},{start.y} {steps}"
    area = f"M{start.units_x},{baseline} L{start.units_x},{start.y} {steps} "
    area += f"L{end.units_x},{baseline} Z"
    return line, area


def chart_of(metric: dict, buckets: list[metrics.Bucket], period: str, time_zone: str) -> Chart:
    values = [bucket.average for bucket in buckets if bucket.average is not None]
    low = metric.get("y_axis_min")
    high = metric.get("y_axis_max")
    low = min([0.0, *values]) if low is None else float(low)
    high = max([low, *values]) if high is None else float(high)
    if high <= low:
        high = low + 1
    average = formatted(metric, sum(values) / len(values)) if values else None
    if not buckets:
        return Chart(metric, [], formatted(metric, high), formatted(metric, low), None, period)
    zone = ZoneInfo(time_zone)
    width = metrics.WINDOWS[period].bucket_seconds
    start, end = buckets[0].start, buckets[-1].start + width
    span = PLOT_HEIGHT - 2 * PAD
    points = []
    for bucket in buckets:
        if bucket.average is None:
            continue
        shown = min(max(bucket.average, low), high)
        moment = datetime.fromtimestamp(bucket.start, UTC)
        point = Point(
            _percent(bucket.start + width / 2, start, end),
            round(PAD + (1 - (shown - low) / (high - low)) * span, 2),
            moment.isoformat().replace("+00:00", "Z"),
            moment_label(moment.astimezone(zone)),
            formatted(metric, bucket.average),
            bucket.average,
        )
        points.append(point)
    line, area = _paths(points, BASELINE)
    dots = points if len(points) <= DOTTED_AT_MOST else []
    return Chart(
        metric,
        points,
        formatted(metric, high),
        formatted(metric, low),
        average,
        period,
        line,
        area,
        dots,
        # A window's more of ticks: the page's script slides the window on to the reader's now.
        ticks_of(start, end, period, time_zone, until=end + metrics.WINDOWS[period].seconds),
        end,
    )


def _buckets(page_id: str, metric: dict, window: metrics.Window, now: datetime):
    """The window up to the newest point's bucket, not up to the clock: the chart changes when
    data arrives, not as time passes (the page's script slides it on to the reader's now).
    None at all in the window up to now: no buckets (a chart of no data, without a time axis).
    A Query, and a second one only when the newest point is older than the current bucket."""
    source = metric_sources.source_of(page_id, metric["id"], metric.get("metrics_provider_id"))
    try:
        buckets = source.points(window, now)
        newest = next((bucket for bucket in reversed(buckets) if bucket.points), None)
        if newest is None:
            return []
        if newest is not buckets[-1]:
            last = newest.start + window.bucket_seconds - 1
            buckets = source.points(window, datetime.fromtimestamp(last, UTC))
        return buckets
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
