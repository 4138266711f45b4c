"""The 90-day uptime bars of a showcased component, from the status history in its snapshot.

A day's color is its worst outage, as its hover text names it: a major outage red, a partial
outage orange, none green (degraded performance and maintenance are no downtime); days before
the component's start have no data. The uptime percentage weighs the durations (see
`chalicelib.domain.uptime`).
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from chalicelib.domain import uptime
from chalicelib.public.days import label as day_label

DAYS = 90


@dataclass(frozen=True)
class Bar:
    day: date
    level: str  # up, minor, major, critical, nodata
    title: str


@dataclass(frozen=True)
class UptimeBars:
    bars: list[Bar]
    percentage: float


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def _level(outage: uptime.Outage) -> str:
    if outage.major_seconds:
        return "critical"
    if outage.partial_seconds:
        return "major"
    return "up"


def _title(day: date, outage: uptime.Outage) -> str:
    parts = []
    if outage.major_seconds:
        parts.append(f"{_duration(outage.major_seconds)} major outage")
    if outage.partial_seconds:
        parts.append(f"{_duration(outage.partial_seconds)} partial outage")
    return f"{day_label(day)}: {', '.join(parts) if parts else 'no downtime recorded'}"


def bars_of(entry: dict, time_zone: str, now: datetime, days: int = DAYS) -> UptimeBars:
    start = _parse(entry["start"])
    segments = [(_parse(at), status) for at, status in entry["segments"]]
    today = now.astimezone(ZoneInfo(time_zone)).date()
    bars = []
    for offset in range(days - 1, -1, -1):
        day = today - timedelta(days=offset)
        day_start, day_end = uptime.day_bounds(day, time_zone)
        if day_end <= start:
            bars.append(Bar(day, "nodata", f"{day_label(day)}: no data"))
            continue
        measured = uptime.outage(segments, max(day_start, start), min(day_end, now))
        bars.append(Bar(day, _level(measured), _title(day, measured)))
    window_start = max(uptime.day_bounds(today - timedelta(days=days - 1), time_zone)[0], start)
    seconds = (now - window_start).total_seconds()
    total = uptime.outage(segments, window_start, now)
    return UptimeBars(bars, uptime.percentage(total, seconds))
