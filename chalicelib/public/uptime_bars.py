"""The 90-day uptime bars of a showcased component, from the status history in its snapshot.

A day's color is its worst outage: a major outage red, a partial outage orange, none green
(degraded performance and maintenance are no downtime); days before the component's start
have no data. Each day has a card, as Statuspage's hover card: its minutes of major and
partial outage and the incidents and maintenances that named the component while open that
day (the snapshot keeps them for the bars' window: `content.uptime_part`). The uptime
percentage weighs the durations (see `chalicelib.domain.uptime`: backfilled incidents are on
the history's statuses, and a day whose uptime the owner edited shows what they set).
"""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from chalicelib.domain import uptime

DAYS = 90
# Days shown on a phone: the most recent ones (the style sheet hides the others).
PHONE_DAYS = 30


@dataclass(frozen=True)
class Related:
    """An incident or maintenance that named the component while it was open that day."""

    id: str
    name: str
    impact: str  # none, minor, major, critical, maintenance


# Impacts of an incident that tell of downtime: a day card naming one does not say "No
# downtime recorded" when the owner kept it out of uptime.
DOWNTIME_IMPACTS = frozenset(uptime.DOWNTIME_OF_IMPACT)


@dataclass(frozen=True)
class Bar:
    day: date
    level: str  # up, minor, major, critical, nodata
    outages: list[str] = field(default_factory=list)  # `1 h 5 min major outage`, ...
    related: list[Related] = field(default_factory=list)
    edited: bool = False  # the owner set the day's uptime

    @property
    def summary(self) -> str:
        """What the day's card says of its downtime."""
        if self.level == "nodata":
            return "No data"
        if self.outages:
            return ", ".join(self.outages) + (" (set by the team)" if self.edited else "")
        if self.edited:
            return "No downtime (set by the team)"
        if any(related.impact in DOWNTIME_IMPACTS for related in self.related):
            return "No downtime counted in uptime"
        return "No downtime recorded"


@dataclass(frozen=True)
class UptimeBars:
    bars: list[Bar]
    percentage: float


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if not minutes:
        return "under 1 min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def _level(outage: uptime.Outage) -> str:
    if outage.major_seconds:
        return "critical"
    if outage.partial_seconds:
        return "major"
    return "up"


def _outages(outage: uptime.Outage) -> list[str]:
    parts = []
    if outage.major_seconds:
        parts.append(f"{_duration(outage.major_seconds)} major outage")
    if outage.partial_seconds:
        parts.append(f"{_duration(outage.partial_seconds)} partial outage")
    return parts


@dataclass(frozen=True)
class _Span:
    related: Related
    start: datetime
    end: datetime | None  # None: still open


def _spans(entry: dict) -> list[_Span]:
    return [
        _Span(
            Related(mark["id"], mark["name"], mark["impact"]),
            _parse(mark["from"]),
            _parse(mark["until"]) if mark.get("until") else None,
        )
        for mark in entry.get("incidents") or []
    ]


def _related(spans: list[_Span], start: datetime, end: datetime, now: datetime) -> list[Related]:
    return [
        span.related
        for span in spans
        if span.start < end and (span.end or now) >= start and span.start <= now
    ]


def bars_of(entry: dict, time_zone: str, now: datetime, days: int = DAYS) -> UptimeBars:
    start = _parse(entry["start"])
    segments = [(_parse(at), status) for at, status in entry["segments"]]
    spans = _spans(entry)
    edits = uptime.edited_days(entry.get("edits"))
    today = now.astimezone(ZoneInfo(time_zone)).date()
    bars = []
    for offset in range(days - 1, -1, -1):
        day = today - timedelta(days=offset)
        day_start, day_end = uptime.day_bounds(day, time_zone)
        if day_end <= start:
            bars.append(Bar(day, "nodata"))
            continue
        measured = uptime.day_outage(segments, day, time_zone, start, now, edits)
        related = _related(spans, day_start, day_end, now)
        bars.append(Bar(day, _level(measured), _outages(measured), related, day in edits))
    window_start = max(uptime.day_bounds(today - timedelta(days=days - 1), time_zone)[0], start)
    seconds = (now - window_start).total_seconds()
    total = uptime.edited_outage(segments, window_start, now, time_zone, edits)
    return UptimeBars(bars, uptime.percentage(total, seconds))
