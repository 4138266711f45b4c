"""Uptime of components, from their status history: the `uptime` endpoints and the public
page's 90-day bars.

The rule (Statuspage's): a second in `major_outage` is a second down; a second in
`partial_outage` counts as 0.3 of one (a partial outage hurts some users, not all);
`degraded_performance` and `under_maintenance` are up. Uptime over a range is
100 x (1 - weighted down seconds / seconds in the range), the range never reaching before the
component's start (its `start_date`, else its creation) nor after now. A group is as down, at
each moment, as the worst of its showcased members.

Two things change a component's history as its statuses tell it, as on Statuspage:
- a backfilled incident (which sets no status) counts, unless its owner said otherwise, by its
  impact (critical: a major outage, major: a partial one) from when it began until resolved,
  on the components it named, or on all of them when it named none;
- a past day's uptime edited by the owner (minutes of major and of partial outage) replaces
  what was computed for that day.
"""

import calendar
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from chalicelib import clock
from chalicelib.domain import components, errors, incidents
from chalicelib.domain.incident_states import IMPACT_OF_COMPONENT_STATUS
from chalicelib.domain.pages import profile_of
from chalicelib.store.components import Component, changes_since, day_of
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.models import Page

MAJOR_OUTAGE = "major_outage"
PARTIAL_OUTAGE = "partial_outage"
PARTIAL_OUTAGE_WEIGHT = 0.3
SEVERITY = {
    "operational": 0,
    "under_maintenance": 0,
    "degraded_performance": 1,
    PARTIAL_OUTAGE: 2,
    MAJOR_OUTAGE: 3,
}
MAX_RANGE_MONTHS = 6
# How long before a range an incident may have begun and still be related to it.
RELATED_LOOKBACK = timedelta(days=92)
EARLIEST = date(1970, 1, 1)
END_ADJUSTED = "End date was adjusted to today. See range_end field in response for end date used."
START_ADJUSTED = (
    "Start date was adjusted to the component's start date. "
    "See range_start field in response for start date used."
)
_PARTIAL_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
# The downtime a backfilled incident's impact counts as: the status that gives an incident
# that impact (minor and none are no downtime).
DOWNTIME_OF_IMPACT = {
    impact: status
    for status, impact in IMPACT_OF_COMPONENT_STATUS.items()
    if status in (MAJOR_OUTAGE, PARTIAL_OUTAGE)
}
# How long before a range a backfilled outage may have begun and still count in it, and how
# many of a range's (the newest) count at most: the read stays bounded.
PAST_OUTAGE_LOOKBACK = timedelta(days=7)
PAST_OUTAGES = 500
MINUTES_IN_A_DAY = 24 * 60

# A status from `at` until the next segment's `at` (or now).
Segment = tuple[datetime, str]


@dataclass(frozen=True)
class Outage:
    major_seconds: float = 0.0
    partial_seconds: float = 0.0

    @property
    def weighted_seconds(self) -> float:
        return self.major_seconds + PARTIAL_OUTAGE_WEIGHT * self.partial_seconds


def percentage(outage: Outage, seconds: float) -> float:
    if seconds <= 0:
        return 100.0
    return round(max(0.0, 100.0 * (1 - outage.weighted_seconds / seconds)), 2)


def start_of(component: Component, time_zone: str) -> datetime:
    """When the component's history begins: its `start_date` (midnight, page time), else its
    creation."""
    if component.start_date:
        day = date.fromisoformat(component.start_date)
        return datetime.combine(day, time(), ZoneInfo(time_zone)).astimezone(UTC)
    return component.created_at.astimezone(UTC)


def history(component: Component, since: datetime) -> list[Segment]:
    """The component's statuses from `since` until now: one Query of its status days (an
    item per day that had a change), none when this process read them since its last change."""
    since = since.astimezone(UTC)
    changes = [change for change in changes_since(component, day_of(since)) if change[0] >= since]
    first = changes[0][1] if changes else component.status
    return [(since, first)] + [(at, new) for at, _, new in changes]


def outage(segments: list[Segment], start: datetime, end: datetime) -> Outage:
    """Seconds of major and partial outage between `start` and `end`."""
    major = partial = 0.0
    for index, (at, status) in enumerate(segments):
        until = segments[index + 1][0] if index + 1 < len(segments) else end
        overlap = (min(until, end) - max(at, start)).total_seconds()
        if overlap <= 0:
            continue
        if status == MAJOR_OUTAGE:
            major += overlap
        elif status == PARTIAL_OUTAGE:
            partial += overlap
    return Outage(major, partial)


def worst(timelines: list[list[Segment]]) -> list[Segment]:
    """One timeline that is, at each moment, the worst of the given ones."""
    moments = sorted({at for timeline in timelines for at, _ in timeline})
    merged: list[Segment] = []
    for moment in moments:
        statuses = [_status_at(timeline, moment) for timeline in timelines]
        status = max((s for s in statuses if s), key=lambda s: SEVERITY.get(s, 0), default=None)
        if status and (not merged or merged[-1][1] != status):
            merged.append((moment, status))
    return merged


def _status_at(timeline: list[Segment], moment: datetime) -> str | None:
    current = None
    for at, status in timeline:
        if at > moment:
            break
        current = status
    return current


@dataclass(frozen=True)
class PastOutage:
    """A backfilled incident as uptime counts it: `status` from `start` until `end` (None:
    still open) on `component_ids` (empty: on every component)."""

    component_ids: frozenset[str]
    status: str
    start: datetime
    end: datetime | None

    def affects(self, component_id: str) -> bool:
        return not self.component_ids or component_id in self.component_ids


def past_outage(record: IncidentRecord) -> PastOutage | None:
    """What a backfilled incident counts as, or None when its impact is no downtime."""
    status = DOWNTIME_OF_IMPACT.get(record.impact or "none")
    if status is None or not record.counts_in_uptime:
        return None
    start = record.created_at.astimezone(UTC)
    end = _resolved_moment(record)
    return PastOutage(
        frozenset(record.component_ids or []), status, start, max(start, end) if end else None
    )


def _resolved_moment(record: IncidentRecord) -> datetime | None:
    """When a past incident was resolved: its resolving update's time as shown (the owner
    may correct it, as an API client resolving it afterwards must), else when it was."""
    last = record.last_update or {}
    if record.resolved_at and last.get("status") == "resolved" and last.get("display_at"):
        return datetime.fromisoformat(last["display_at"].replace("Z", "+00:00")).astimezone(UTC)
    return record.resolved_at.astimezone(UTC) if record.resolved_at else None


def past_outages(page_id: str, start: datetime, end: datetime) -> list[PastOutage]:
    """The backfilled outages that may fall in [start, end) (one bounded query)."""
    records = incidents.counted_in_uptime(page_id, start - PAST_OUTAGE_LOOKBACK, end, PAST_OUTAGES)
    found = (past_outage(record) for record in records)
    return [outage for outage in found if outage is not None]


def with_past_outages(
    segments: list[Segment], component_id: str, outages: list[PastOutage]
) -> list[Segment]:
    """The component's timeline with the backfilled outages on it: at each moment the worse
    of its status and theirs."""
    spans = [
        [(outage.start, outage.status)] + ([(outage.end, "operational")] if outage.end else [])
        for outage in outages
        if outage.affects(component_id)
    ]
    return worst([segments, *spans]) if spans else segments


def edited_days(stored: dict | None) -> dict[date, Outage]:
    """The days whose uptime the owner set (as a component's `uptime_edits` keeps them),
    each as the outage it replaces the day's with."""
    return {
        date.fromisoformat(day): Outage(major * 60.0, partial * 60.0)
        for day, (major, partial) in (stored or {}).items()
    }


def day_outage(
    segments: list[Segment],
    day: date,
    time_zone: str,
    start: datetime,
    end: datetime,
    edits: dict[date, Outage],
) -> Outage:
    """The outage of one day of a timeline, between `start` and `end` at most: as the owner
    set it, else as the statuses tell."""
    if day in edits:
        return edits[day]
    day_start, day_end = day_bounds(day, time_zone)
    return outage(segments, max(day_start, start), min(day_end, end))


def edited_outage(
    segments: list[Segment],
    start: datetime,
    end: datetime,
    time_zone: str,
    edits: dict[date, Outage],
) -> Outage:
    """The outage between `start` and `end`, each edited day in it as the owner set it."""
    total = outage(segments, start, end)
    major, partial = total.major_seconds, total.partial_seconds
    for day, edit in edits.items():
        day_start, day_end = day_bounds(day, time_zone)
        if day_end <= start or day_start >= end:
            continue
        computed = outage(segments, max(day_start, start), min(day_end, end))
        major += edit.major_seconds - computed.major_seconds
        partial += edit.partial_seconds - computed.partial_seconds
    return Outage(max(0.0, major), max(0.0, partial))


def edit_day(
    page: Page, component_id: str, day: date, major_minutes: int | None, partial_minutes: int | None
) -> Component:
    """Set a past day's minutes of major and of partial outage of a component (both None:
    the day goes back to what its statuses tell). The day is in the page's time zone, from
    the component's first day to today."""

    def change(edit: components.Edit) -> Component:
        component = edit.find(component_id, group=False)
        time_zone = time_zone_of(page)
        first = local_date(start_of(component, time_zone), time_zone)
        if not first <= day <= today_in(time_zone):
            raise errors.invalid(
                "day", f"must be from the component's first day ({first.isoformat()}) to today"
            )
        edits = dict(component.uptime_edits or {})
        if major_minutes is None and partial_minutes is None:
            edits.pop(day.isoformat(), None)
        else:
            minutes = [major_minutes or 0, partial_minutes or 0]
            if min(minutes) < 0:
                raise errors.invalid("major_outage", "and of partial outage can't be negative")
            if sum(minutes) > MINUTES_IN_A_DAY:
                raise errors.invalid(
                    "major_outage",
                    f"and of partial outage must add up to at most {MINUTES_IN_A_DAY} (a day)",
                )
            edits[day.isoformat()] = minutes
        component.uptime_edits = edits or None
        edit.touch(component)
        return component

    return components.edit_components(page.id, change)


def day_bounds(day: date, time_zone: str) -> tuple[datetime, datetime]:
    zone = ZoneInfo(time_zone)
    start = datetime.combine(day, time(), zone)
    end = datetime.combine(day + timedelta(days=1), time(), zone)
    return start.astimezone(UTC), end.astimezone(UTC)


def local_date(moment: datetime, time_zone: str) -> date:
    return moment.astimezone(ZoneInfo(time_zone)).date()


def today_in(time_zone: str) -> date:
    return local_date(clock.now(), time_zone)


# The uptime endpoints.


@dataclass
class Range:
    start: date
    end: date
    warnings: list[str] = field(default_factory=list)


def _partial_date(text: str, field_name: str, *, last: bool) -> date:
    match = _PARTIAL_DATE.match(text.strip())
    try:
        if not match:
            raise ValueError
        year, month, day = (int(part) if part else None for part in match.groups())
        if month is None:
            month, day = (12, 31) if last else (1, 1)
        elif day is None:
            day = calendar.monthrange(year, month)[1] if last else 1
        parsed = date(year, month, day)
    except ValueError:
        raise errors.invalid(field_name, "must be a date: YYYY, YYYY-MM or YYYY-MM-DD") from None
    if parsed < EARLIEST:
        raise errors.invalid(field_name, "must be on or after 1970-01-01")
    return parsed


def _months_later(day: date, months: int) -> date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def resolve_range(start: str | None, end: str | None, first_day: date, today: date) -> Range:
    """The dates an uptime query covers: by default from the component's first day or 90
    days before the end, whichever is later, to today; never past today nor before the
    first day."""
    warnings = []
    range_end = _partial_date(end, "end", last=True) if end else today
    if range_end > today:
        range_end = today
        warnings.append(END_ADJUSTED)
    if start:
        range_start = _partial_date(start, "start", last=False)
        if range_start < first_day:
            range_start = first_day
            warnings.append(START_ADJUSTED)
    else:
        range_start = max(first_day, range_end - timedelta(days=90))
    if start and range_start > range_end:
        raise errors.invalid("start", "must be on or before the end of the range")
    if range_end > _months_later(range_start, MAX_RANGE_MONTHS):
        raise errors.invalid("start", "the range may span at most six calendar months")
    return Range(range_start, max(range_start, range_end), warnings)


def _related(page_id: str, component_ids: set[str], start: datetime, end: datetime) -> dict:
    """Incidents that named each component and were open at some moment of the range: the
    open ones and those that began in the range or up to `RELATED_LOOKBACK` before it (two
    bounded queries, not the page's history)."""
    related: dict[str, list[dict]] = {component_id: [] for component_id in component_ids}
    found = {record.id: record for record in incidents.open_records(page_id)}
    for record in incidents.started_between(page_id, start - RELATED_LOOKBACK, end):
        found.setdefault(record.id, record)
    for record in sorted(found.values(), key=lambda record: record.id, reverse=True):
        opened = (record.scheduled_for if record.scheduled else None) or record.created_at
        closed = record.resolved_at or clock.now()
        if opened > end or closed < start:
            continue
        for component_id in set(record.component_ids or []) & component_ids:
            related[component_id].append({"id": record.id})
    return related


def _measure(
    page: Page, members: list[Component], start: str | None, end: str | None
) -> tuple[Range, Outage, datetime, datetime]:
    time_zone = time_zone_of(page)
    starts = {member.id: start_of(member, time_zone) for member in members}
    first_moment = min(starts.values())
    first_day = local_date(first_moment, time_zone)
    dates = resolve_range(start, end, first_day, today_in(time_zone))
    range_start = max(day_bounds(dates.start, time_zone)[0], first_moment)
    range_end = min(day_bounds(dates.end, time_zone)[1], clock.now())
    past = past_outages(page.id, range_start, range_end)
    timelines = []
    for member in members:
        since = max(range_start, starts[member.id])
        timelines.append(with_past_outages(history(member, since), member.id, past))
    edits = _worst_edits(
        timelines, [edited_days(member.uptime_edits) for member in members], time_zone
    )
    measured = edited_outage(worst(timelines), range_start, range_end, time_zone, edits)
    return dates, measured, range_start, range_end


def _worst_edits(
    timelines: list[list[Segment]], member_edits: list[dict[date, Outage]], time_zone: str
) -> dict[date, Outage]:
    """Each day a member's uptime was edited on, as the worst member's day (edited or not):
    for one component, its own edits."""
    days = {day for edits in member_edits for day in edits}
    now = clock.now()
    return {
        day: max(
            (
                day_outage(timeline, day, time_zone, datetime.min.replace(tzinfo=UTC), now, edits)
                for timeline, edits in zip(timelines, member_edits, strict=True)
            ),
            key=lambda found: found.weighted_seconds,
        )
        for day in days
    }


def time_zone_of(page: Page) -> str:
    return profile_of(page).get("time_zone") or "Etc/UTC"


def _uptime_fields(component: Component, dates: Range, measured: Outage, seconds: float) -> dict:
    return {
        "id": component.id,
        "name": component.name,
        "range_start": dates.start.isoformat(),
        "range_end": dates.end.isoformat(),
        "uptime_percentage": percentage(measured, seconds),
        "major_outage": int(measured.major_seconds),
        "partial_outage": int(measured.partial_seconds),
        "warnings": dates.warnings,
    }


def component_uptime(
    page: Page, component_id: str, start: str | None, end: str | None, *, related: bool = True
) -> dict:
    records = components.components_of(page.id)
    component = components.find(records, component_id, group=False)
    if not component.showcase:
        raise errors.invalid("showcase", "uptime showcase is not enabled for this component")
    dates, measured, range_start, range_end = _measure(page, [component], start, end)
    seconds = max(0.0, (range_end - range_start).total_seconds())
    body = _uptime_fields(component, dates, measured, seconds)
    if related:
        found = _related(page.id, {component.id}, range_start, range_end)
        body["related_events"] = found[component.id]
    return body


def group_uptime(
    page: Page, group_id: str, start: str | None, end: str | None, *, related: bool = True
) -> dict:
    records = components.components_of(page.id)
    group = components.find(records, group_id, group=True)
    members = [m for m in components.members_of(records, group.id) if m.showcase]
    if not members:
        raise errors.invalid(
            "showcase", "uptime showcase is not enabled for any component of this group"
        )
    dates, measured, range_start, range_end = _measure(page, members, start, end)
    seconds = max(0.0, (range_end - range_start).total_seconds())
    body = _uptime_fields(group, dates, measured, seconds)
    if related:
        found = _related(page.id, {member.id for member in members}, range_start, range_end)
        body["related_events"] = [
            {"component_id": member.id, "incidents": found[member.id]} for member in members
        ]
    return body
