"""Incidents and their updates: creation, appended updates, edits, deletion (SPEC 3.2, 4.8).

Every write of an incident is one unit of work with its new update, the component statuses it
applies and the outbox event that announces it: all land, or none does. An append writes only
the incident attributes it changes, whatever their version (`versioned=False`), and a new
update item of its own, so appends from many clients at once never conflict; only a condition
that states an intent (the maintenance step's "still in this status") can.

Reads never walk a page's history: a list page reads the keys before it and then only its own
incidents; the open ones and the ones that began in a period come from sparse indexes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from chalicelib import clock, ids
from chalicelib.domain import component_effects, errors, unit_of_work
from chalicelib.domain import incident_states as states
from chalicelib.domain.inputs import UNSET, Unset, filled, given
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.incidents import (
    INCIDENT_PREFIX,
    IncidentRecord,
    IncidentTemplate,
    incident_key,
    update_key,
)

INCIDENT_UPDATE_EVENT = "incident_update"
INCIDENT_REMINDER_EVENT = "incident_reminder"
MAINTENANCE_REMINDER_EVENT = "maintenance_reminder"
# The partitions of the due index: maintenances with a step ahead, open incidents with a
# reminder ahead.
DUE_STEP, DUE_REMINDER = "due", "remind"
AUTO_TRANSITION_FLAGS = (
    "auto_transition_to_maintenance_state",
    "auto_transition_to_operational_state",
    "auto_transition_deliver_notifications_at_start",
    "auto_transition_deliver_notifications_at_end",
)
# The newest update, in brief, on the incident item: what lists of past incidents show.
BRIEF_BODY_CHARS = 300
# Items a list reads per request: an incident and a few updates each.
READ_PAGE_SIZE = 10
# DynamoDB takes at most 100 writes in a transaction; an incident write needs a few of its own.
MAX_COMPONENTS_PER_WRITE = 40
# The update a maintenance moved without a word of its own posts (its notification states the
# new window).
MOVED_BODY = "This maintenance has been rescheduled."


@dataclass(frozen=True)
class IncidentInput:
    """A new incident (with a name, unless its template gives one), or what an update
    changes. None leaves a field as it is (a new incident: its default). UNSET, when not
    given: the fields a template supplies (one given, even as null, is the caller's), and
    those null clears (`impact_override`, `reminder_intervals`, a maintenance's window)."""

    name: str | None | Unset = UNSET
    status: str | None | Unset = UNSET
    body: str | None | Unset = UNSET
    wants_social_update: bool | None | Unset = UNSET
    impact_override: str | None | Unset = UNSET
    component_ids: list[str] | None | Unset = UNSET
    components: dict[str, str] | None = None  # component id -> the status to apply
    deliver_notifications: bool | None | Unset = UNSET
    metadata: dict[str, dict] | None = None
    scheduled_for: datetime | None | Unset = UNSET
    scheduled_until: datetime | None | Unset = UNSET
    scheduled_remind_prior: bool | None = None
    scheduled_auto_in_progress: bool | None = None
    scheduled_auto_completed: bool | None = None
    auto_transition_to_maintenance_state: bool | None = None
    auto_transition_to_operational_state: bool | None = None
    auto_transition_deliver_notifications_at_start: bool | None = None
    auto_transition_deliver_notifications_at_end: bool | None = None
    reminder_intervals: str | list[int] | None | Unset = UNSET
    backfilled: bool | None = None
    backfill_date: datetime | None = None
    template_id: str | None = None


@dataclass
class Incident:
    """An incident item and its updates, newest first."""

    record: IncidentRecord
    updates: list[IncidentRecord] = field(default_factory=list)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _group(records: list[IncidentRecord]) -> list[Incident]:
    """Records of one page partition, read newest first, into incidents with their updates."""
    incidents: dict[str, Incident] = {}
    for record in records:
        incident = incidents.setdefault(record.incident_id, Incident(None))  # type: ignore[arg-type]
        if record.kind == "incident":
            incident.record = record
        else:
            incident.updates.append(record)
    return [incident for incident in incidents.values() if incident.record is not None]


def _read_newest_first(page_id: str, condition, wanted: int, keep=None) -> list[Incident]:
    """Up to `wanted` incidents (each with its updates) from the page partition, newest first,
    reading no further than needed. Read backwards, an incident's updates come (newest first)
    just before the incident itself."""
    found: list[Incident] = []
    updates: list[IncidentRecord] = []
    records = IncidentRecord.query(
        page_id,
        condition,
        scan_index_forward=False,
        page_size=min(100, max(READ_PAGE_SIZE, 3 * wanted)),
    )
    for record in records:
        if record.kind != "incident":
            updates.append(record)
            continue
        incident = Incident(record, [u for u in updates if u.incident_id == record.id])
        updates = []
        if keep is None or keep(incident):
            found.append(incident)
            if len(found) >= wanted:
                break
    return found


def list_page(page_id: str, limit: int, number: int, text: str | None = None) -> list[Incident]:
    """Page `number` (1-based) of the page's incidents, `limit` a page, newest first. Pages
    after the first count off the incidents before them on a keys-only index. With `text`,
    only the incidents whose name or updates contain it (a search reads until it has found
    enough)."""
    skip = (number - 1) * limit
    if text:
        needle = text.lower()
        return _kept_page(page_id, limit, number, lambda incident: _mentions(incident, needle))
    condition = IncidentRecord.key.startswith(INCIDENT_PREFIX)
    if skip:
        keys = list(
            IncidentRecord.by_page.query(
                page_id, scan_index_forward=False, limit=skip + 1, page_size=min(skip + 1, 1000)
            )
        )
        if len(keys) <= skip:
            return []
        condition = IncidentRecord.key.between(INCIDENT_PREFIX, keys[skip].key + "#~")
    return _read_newest_first(page_id, condition, limit)


def _kept_page(
    page_id: str, limit: int, number: int, keep: Callable[[Incident], bool]
) -> list[Incident]:
    """Page `number` of the incidents `keep` keeps, newest first: read until it has enough."""
    skip = (number - 1) * limit
    found = _read_newest_first(
        page_id, IncidentRecord.key.startswith(INCIDENT_PREFIX), skip + limit, keep=keep
    )
    return found[skip:]


def list_of_kind(
    page_id: str,
    scheduled: bool,
    limit: int,
    number: int,
    text: str | None = None,
    *,
    closed_only: bool = False,
) -> list[Incident]:
    """Page `number` of the page's incidents (`scheduled`: its maintenances), newest first,
    with `text` only those whose name or updates contain it (`closed_only`: only those
    resolved or completed). The other kind is read past, so a page costs its own rows and
    those of the other kind between them."""
    needle = text.lower() if text else None

    def keep(incident: Incident) -> bool:
        if bool(incident.record.scheduled) != scheduled:
            return False
        if closed_only and incident.record.status not in states.CLOSED:
            return False
        return needle is None or _mentions(incident, needle)

    return _kept_page(page_id, limit, number, keep)


@dataclass(frozen=True)
class MaintenancesByStart:
    """A page's maintenances as a page owner looks for them: those in progress and those to
    come, soonest start first, then a screen of the completed ones, latest start first."""

    in_progress: list[IncidentRecord]
    upcoming: list[IncidentRecord]
    past: list[IncidentRecord]


def maintenances_by_start(page_id: str, limit: int, number: int) -> MaintenancesByStart:
    """Screen `number` of the page's completed maintenances (`limit` of them, read newest
    first and ordered by start within the screen), with, on the first, every open one: the
    open ones are few, read from the sparse index of open incidents whatever the history."""
    past = [found.record for found in list_of_kind(page_id, True, limit, number, closed_only=True)]
    past.sort(key=lambda record: _utc(record.scheduled_for or record.created_at), reverse=True)
    open_ones = (
        [record for record in open_records(page_id) if record.scheduled] if number == 1 else []
    )
    open_ones.sort(key=lambda record: _utc(record.scheduled_for or record.created_at))
    return MaintenancesByStart(
        in_progress=[record for record in open_ones if is_active_maintenance(record)],
        upcoming=[record for record in open_ones if is_upcoming(record)],
        past=past,
    )


def _mentions(incident: Incident, needle: str) -> bool:
    return needle in (incident.record.name or "").lower() or any(
        needle in (update.body or "").lower() for update in incident.updates
    )


def open_records(page_id: str) -> list[IncidentRecord]:
    """The page's open incidents and maintenances (not resolved, not completed), newest
    first: one Query of a sparse index, however long the page's history."""
    return list(IncidentRecord.open_index.query(page_id, scan_index_forward=False))


def as_left_by(incident: Incident, update: IncidentRecord) -> Incident:
    """The incident as `update` left it: the updates up to it, its status, and the stamps
    (monitoring, resolved) it had by then. A notification fanned out after later updates
    (queues deliver late, and out of order) tells of its own update, not of the later ones."""
    record = copy.deepcopy(incident.record)
    record.status = update.status
    record.updated_at = update.created_at
    for stamp in set(states.STAMPS.values()):
        moment = getattr(record, stamp)
        if moment is not None and _utc(moment) > _utc(update.created_at):
            setattr(record, stamp, None)
    return Incident(record, [earlier for earlier in incident.updates if earlier.id <= update.id])


def with_updates(records: list[IncidentRecord]) -> list[Incident]:
    """Each incident with its updates (a Query each)."""
    return [_whole(record.page_id, record.id, record) for record in records]


def started_between(
    page_id: str,
    start: datetime,
    end: datetime,
    limit: int | None = None,
    after: IncidentRecord | None = None,
) -> list[IncidentRecord]:
    """Incidents that began in [start, end) (a maintenance: when its window opens), newest
    first (the newest `limit` of them; with `after`, those that come after it in that order:
    a page of a list that does not shift as incidents are added), without their updates
    (each carries its newest in brief)."""
    resume = _start_key(after) if after is not None else None
    return _newest_first(IncidentRecord.by_start, page_id, start, end, limit, resume)


def _newest_first(
    index,
    page_id: str,
    start: datetime,
    end: datetime,
    limit: int | None,
    resume: dict | None = None,
) -> list[IncidentRecord]:
    """What `index` (keyed by page and `started_at`) holds of [start, end), newest first."""
    return list(
        index.query(
            page_id,
            IncidentRecord.started_at.between(start, end),
            scan_index_forward=False,
            limit=limit,
            last_evaluated_key=resume,
        )
    )


def _start_key(record: IncidentRecord) -> dict:
    """Where a Query of `incidents-by-start` resumes after `record`."""
    return {
        "page_id": {"S": record.page_id},
        "key": {"S": record.key},
        "incident_page": {"S": record.page_id},
        "started_at": {"S": IncidentRecord.started_at.serialize(record.started_at)},
    }


def counted_in_uptime(
    page_id: str, start: datetime, end: datetime, limit: int
) -> list[IncidentRecord]:
    """The backfilled incidents that count toward uptime and began in [start, end), newest
    first (the newest `limit`): a sparse index of those alone, whatever else the period
    holds."""
    return _newest_first(IncidentRecord.counted_backfills, page_id, start, end, limit)


def _whole(
    page_id: str, incident_id: str, known: IncidentRecord | None = None, *, consistent=False
) -> Incident:
    records = IncidentRecord.query(
        page_id,
        IncidentRecord.key.startswith(incident_key(incident_id)),
        scan_index_forward=False,
        consistent_read=consistent,
    )
    found = [incident for incident in _group(list(records)) if incident.record.id == incident_id]
    if not found:
        if known is not None:
            return Incident(known, [])
        raise errors.NotFound()
    return found[0]


def get_record(page_id: str, incident_id: str, *, consistent: bool = False) -> IncidentRecord:
    """The incident item alone (one GetItem), without its updates."""
    try:
        return IncidentRecord.get(page_id, incident_key(incident_id), consistent_read=consistent)
    except IncidentRecord.DoesNotExist:
        raise errors.NotFound() from None


def get_incident(page_id: str, incident_id: str, *, consistent: bool = False) -> Incident:
    """The incident with all its updates, newest first (one Query)."""
    return _whole(page_id, incident_id, consistent=consistent)


def is_unresolved(record: IncidentRecord) -> bool:
    return not record.scheduled and record.status not in states.CLOSED


def is_upcoming(record: IncidentRecord) -> bool:
    return record.scheduled and record.status == "scheduled"


def is_active_maintenance(record: IncidentRecord) -> bool:
    return record.scheduled and record.status in ("in_progress", "verifying")


def is_maintenance(record: IncidentRecord) -> bool:
    return bool(record.scheduled)


def search(found: list[Incident], text: str) -> list[Incident]:
    """The incidents whose name or updates contain `text` (any case)."""
    needle = text.lower()
    return [incident for incident in found if _mentions(incident, needle)]


def is_open(record: IncidentRecord) -> bool:
    return record.status not in states.CLOSED


def _template_defaults(page_id: str, fields: IncidentInput) -> IncidentInput:
    """Fields a template supplies where the caller leaves them out."""
    if not fields.template_id:
        return fields
    try:
        template = IncidentTemplate.get(page_id, fields.template_id)
    except IncidentTemplate.DoesNotExist:
        raise errors.invalid("template_id", "is not a template of this page") from None
    defaults = {
        "name": template.title,
        "body": template.body,
        "status": template.update_status,
        "component_ids": list(template.component_ids or []),
        "deliver_notifications": template.should_send_notifications,
        "wants_social_update": template.should_tweet,
    }
    supplied = {
        key: value
        for key, value in defaults.items()
        if value is not None and getattr(fields, key) is UNSET
    }
    return replace(fields, **supplied)


def is_scheduled(fields: IncidentInput) -> bool:
    fields = filled(fields)
    return (
        fields.status in states.SCHEDULED
        or fields.scheduled_for is not None
        or fields.scheduled_until is not None
    )


def _check_window(scheduled_for: datetime | None, scheduled_until: datetime | None) -> None:
    problems: dict[str, list[str]] = {}
    if scheduled_for is None:
        problems["scheduled_for"] = ["is required for a scheduled incident"]
    if scheduled_until is None:
        problems["scheduled_until"] = ["is required for a scheduled incident"]
    if not problems and scheduled_for >= scheduled_until:
        problems["scheduled_until"] = ["must be after scheduled_for"]
    if problems:
        raise errors.Invalid(problems)


def _check_status(status: str, scheduled: bool) -> None:
    allowed = states.statuses_of(scheduled)
    if status not in allowed:
        raise errors.invalid("status", f"must be one of {', '.join(allowed)}")


def _stamp(record: IncidentRecord, status: str, moment: datetime) -> None:
    stamp = states.STAMPS.get(status)
    if stamp and getattr(record, stamp) is None:
        setattr(record, stamp, moment)


def reminder_intervals(value: str | list[int] | None) -> str | None:
    """`reminder_intervals` as Statuspage writes it ("[1, 5, 7]", "4" for every 4 hours, "[]"
    for none; null for the default), checked."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = None
    if isinstance(value, int) and not isinstance(value, bool):
        if value in states.REMINDER_HOURS_RANGE:
            return str(value)
    elif isinstance(value, list) and all(
        isinstance(hours, int) and not isinstance(hours, bool) for hours in value
    ):
        increasing = all(earlier < later for earlier, later in zip(value, value[1:], strict=False))
        if increasing and all(hours in states.REMINDER_HOURS_RANGE for hours in value):
            return json.dumps(value, separators=(", ", ":"))
    raise errors.invalid(
        "reminder_intervals",
        "must be strictly increasing hours from 1 to 24 such as [3, 6, 12], "
        "or one such number of hours as a string",
    )


def reminder_hours(record: IncidentRecord) -> tuple[int, ...]:
    """The hours after its last write at which the team hears of an open incident."""
    if record.reminder_intervals is None:
        return states.DEFAULT_REMINDER_HOURS
    value = json.loads(record.reminder_intervals)
    if isinstance(value, int):
        return tuple(range(value, states.REMINDER_HOURS_RANGE.stop, value))
    return tuple(value)


def _next_reminder(record: IncidentRecord) -> datetime | None:
    if record.status in states.CLOSED:
        return None
    hours = reminder_hours(record)
    sent = int(record.reminders_sent or 0)
    return record.updated_at + timedelta(hours=hours[sent]) if sent < len(hours) else None


def due_step(record: IncidentRecord) -> datetime | None:
    """When the scheduler next has something to do for this incident, if ever: a
    maintenance's step, an open incident's reminder."""
    if not record.scheduled:
        return _next_reminder(record)
    if record.status in states.CLOSED:
        return None
    steps = []
    if record.scheduled_remind_prior and record.scheduled_reminded_at is None:
        if record.status == "scheduled" and record.scheduled_for:
            steps.append(record.scheduled_for - states.REMINDER_LEAD)
    if record.scheduled_auto_in_progress and record.status == "scheduled":
        steps.append(record.scheduled_for)
    if record.scheduled_auto_completed and record.status in (
        "scheduled",
        "in_progress",
        "verifying",
    ):
        steps.append(record.scheduled_until)
    steps = [step for step in steps if step is not None]
    return min(steps) if steps else None


def refresh_due(record: IncidentRecord) -> None:
    step = due_step(record)
    record.due = (DUE_STEP if record.scheduled else DUE_REMINDER) if step else None
    record.due_at = step


def due_actions(record: IncidentRecord) -> list:
    """The update actions that write the record's place on the due index."""
    return [
        IncidentRecord.due.set(record.due) if record.due else IncidentRecord.due.remove(),
        IncidentRecord.due_at.set(record.due_at)
        if record.due_at
        else IncidentRecord.due_at.remove(),
    ]


def due_records(partition: str, moment: datetime) -> list[IncidentRecord]:
    """The incidents of one due partition whose next step is at or before `moment`."""
    return list(IncidentRecord.due_index.query(partition, IncidentRecord.due_at <= moment))


def remind_team(record: IncidentRecord) -> None:
    """Count one more reminder of an open incident that had no write for a while, and stage
    the team's reminder, together. Conditioned on the incident being as read (no write since,
    no reminder counted since): a second tick, or an update in between, sends nothing."""
    sent = int(record.reminders_sent or 0)
    hours = reminder_hours(record)[sent]
    unchanged = IncidentRecord.updated_at == record.updated_at
    if sent:
        unchanged &= IncidentRecord.reminders_sent == sent
    else:
        unchanged &= IncidentRecord.reminders_sent.does_not_exist()

    def change(work: Work) -> None:
        work.quiet()  # the public page does not show reminders
        record.reminders_sent = sent + 1
        refresh_due(record)
        with work.together():
            work.update(
                record,
                [IncidentRecord.reminders_sent.set(sent + 1), *due_actions(record)],
                unchanged,
                versioned=False,
                intent=True,
            )
            work.event(INCIDENT_REMINDER_EVENT, {"incident_id": record.id, "hours": hours})

    unit_of_work.run(record.page_id, change)


def remind_of_maintenance(record: IncidentRecord) -> None:
    """Mark a maintenance's reminder sent and stage it, together; a second tick finds it
    marked (a conflict of intent: nothing is sent twice)."""

    def change(work: Work) -> None:
        work.quiet()  # the public page does not show reminders
        record.scheduled_reminded_at = work.moment
        refresh_due(record)
        with work.together():
            work.update(
                record,
                [
                    IncidentRecord.scheduled_reminded_at.set(record.scheduled_reminded_at),
                    *due_actions(record),
                ],
                IncidentRecord.scheduled_reminded_at.does_not_exist(),
                versioned=False,
                intent=True,
            )
            work.event(MAINTENANCE_REMINDER_EVENT, {"incident_id": record.id})

    unit_of_work.run(record.page_id, change)


def _new_update(
    record: IncidentRecord,
    body: str,
    moment: datetime,
    *,
    wants_social_update: bool,
    deliver: bool,
    affected: list[dict] | None,
    backfilled: bool = False,
) -> IncidentRecord:
    update_id = ids.id_at(moment) if backfilled else ids.new_id()
    return IncidentRecord(
        record.page_id,
        update_key(record.id, update_id),
        kind="update",
        incident_id=record.id,
        id=update_id,
        status=record.status,
        created_at=moment,
        updated_at=moment,
        display_at=moment,
        body=body,
        wants_social_update=wants_social_update,
        deliver_notifications=deliver,
        affected_components=affected,
    )


def brief(update: IncidentRecord) -> dict:
    """An update as a list of past incidents shows it (stored on its incident)."""
    return {
        "id": update.id,
        "incident_id": update.incident_id,
        "status": update.status,
        "body": (update.body or "")[:BRIEF_BODY_CHARS],
        "created_at": clock.iso(update.created_at),
        "updated_at": clock.iso(update.updated_at),
        "display_at": clock.iso(update.display_at or update.created_at),
        "affected_components": None,
        "deliver_notifications": bool(update.deliver_notifications),
    }


def index_keys(record: IncidentRecord) -> None:
    """The sparse index keys: every incident is listed, open ones are also open, and each
    is placed by when it began."""
    refresh_due(record)
    record.incident_page = record.page_id
    record.open_page = record.page_id if is_open(record) else None
    record.started_at = (record.scheduled_for if record.scheduled else None) or record.created_at


def _changes(record: IncidentRecord, before: dict) -> list:
    """Update actions for exactly the attributes that differ from `before`."""
    actions = []
    keys = {IncidentRecord._hash_keyname, IncidentRecord._range_keyname, "version"}
    for name, attribute in IncidentRecord.get_attributes().items():
        if name in keys:
            continue
        value = getattr(record, name)
        if value == before.get(name):
            continue
        actions.append(attribute.remove() if value is None else attribute.set(value))
    return actions


def _stage(
    work: Work,
    record: IncidentRecord,
    update: IncidentRecord | None,
    effects: component_effects.Effects,
    *,
    deliver: bool,
) -> None:
    """The update, the component statuses and the event, with the incident's own write."""
    with work.together():
        if update is not None:
            work.save(update)
        effects.stage(work)
        if update is not None and deliver:
            work.event(
                INCIDENT_UPDATE_EVENT,
                {
                    "incident_id": record.id,
                    "incident_update_id": update.id,
                    "component_ids": record.component_ids or [],
                },
            )


def _apply_components(
    record: IncidentRecord, fields: IncidentInput, moment: datetime
) -> component_effects.Effects:
    """The component statuses the body sets, and the incident's affected components
    (`fields` filled: None for what is not given)."""
    requested = dict(fields.components or {})
    # A component both listed and given a status (as Statuspage's own examples do) is one.
    named = list(dict.fromkeys([*(fields.component_ids or []), *requested]))
    if len(named) > MAX_COMPONENTS_PER_WRITE:
        raise errors.invalid("component_ids", f"at most {MAX_COMPONENTS_PER_WRITE} at once")
    if not named and not record.component_ids:
        effects = component_effects.Effects([], {}, moment)  # no component to read
    else:
        effects = component_effects.plan(record.page_id, named, requested, moment)
        if fields.component_ids is not None or fields.components is not None:
            known = list(record.component_ids or [])
            record.component_ids = known + [
                component_id for component_id in named if component_id not in known
            ]
        record.components = effects.snapshot(record.component_ids or [])
    record.impact = states.impact(
        [component["status"] for component in record.components or []], record.impact_override
    )
    return effects


def create_incident(
    page_id: str,
    fields: IncidentInput,
    *,
    resolved_at: datetime | None = None,
    resolution: str = "",
    in_uptime: bool = True,
) -> Incident:
    """A new incident and its first update. A backfilled one (`backfilled`, begun at
    `backfill_date`) notifies no one and counts toward uptime by its impact unless not
    `in_uptime` (it sets no component's status); given `resolved_at`, it is resolved then,
    by a second update saying `resolution`."""
    fields = filled(_template_defaults(page_id, fields))
    if not fields.name:
        raise errors.invalid("name", "can't be blank")
    scheduled = is_scheduled(fields)
    status = fields.status or states.DEFAULT_STATUS[scheduled]
    _check_status(status, scheduled)
    scheduled_for, scheduled_until = _utc(fields.scheduled_for), _utc(fields.scheduled_until)
    if scheduled:
        _check_window(scheduled_for, scheduled_until)
    deliver = fields.deliver_notifications is not False and not fields.backfilled
    began = _utc(fields.backfill_date) if fields.backfilled and fields.backfill_date else None
    # A backfilled incident and its updates sort among the others by when they happened.
    incident_id = ids.id_at(began) if began else ids.new_id()

    def change(work: Work) -> Incident:
        moment = work.moment
        created = began or moment
        record = IncidentRecord(
            page_id,
            incident_key(incident_id),
            kind="incident",
            incident_id=incident_id,
            id=incident_id,
            name=fields.name,
            status=status,
            scheduled=scheduled,
            impact_override=fields.impact_override,
            metadata=fields.metadata or {},
            component_ids=[],
            components=[],
            scheduled_for=scheduled_for,
            scheduled_until=scheduled_until,
            scheduled_remind_prior=bool(fields.scheduled_remind_prior),
            scheduled_auto_in_progress=bool(fields.scheduled_auto_in_progress),
            scheduled_auto_completed=bool(fields.scheduled_auto_completed),
            **{flag: getattr(fields, flag) for flag in AUTO_TRANSITION_FLAGS},
            reminder_intervals=reminder_intervals(fields.reminder_intervals),
            uptime_page=page_id if began and not scheduled and in_uptime else None,
            created_at=created,
            updated_at=moment,
        )
        _stamp(record, status, created)
        effects = _apply_components(record, fields, moment)
        update = _new_update(
            record,
            fields.body or "",
            created,
            wants_social_update=bool(fields.wants_social_update),
            deliver=deliver,
            affected=effects.affected() or None,
            backfilled=began is not None,
        )
        updates = [update]
        if resolved_at is not None:
            updates.insert(0, _resolve_backfilled(record, fields, _utc(resolved_at), resolution))
        record.last_update = brief(updates[0])
        index_keys(record)
        with work.together():
            work.save(record, condition=IncidentRecord.key.does_not_exist(), intent=True)
            _stage(work, record, update, effects, deliver=deliver)
            for later in updates[:-1]:
                work.save(later)
        return Incident(record, updates)

    return unit_of_work.run(page_id, change)


def _resolve_backfilled(
    record: IncidentRecord, fields: IncidentInput, resolved_at: datetime, body: str
) -> IncidentRecord:
    """The update that resolved a past incident at `resolved_at`, after it began and not
    after now; the incident is left resolved as of then."""
    if not fields.backfilled or record.scheduled:
        raise errors.invalid("backfilled", "a resolution time is for a backfilled incident")
    if record.status in states.CLOSED:
        raise errors.invalid("status", "a backfilled incident begins open and is resolved later")
    if not record.created_at < resolved_at <= record.updated_at:
        raise errors.invalid("resolved_at", "must be after it began, and not in the future")
    record.status = "resolved"
    _stamp(record, "resolved", resolved_at)
    return _new_update(
        record,
        body,
        resolved_at,
        wants_social_update=False,
        deliver=False,
        affected=None,
        backfilled=True,
    )


def _edit_fields(
    record: IncidentRecord, fields: IncidentInput, changed: set[str], moment: datetime
) -> None:
    """The plain fields a caller sets (and a new status with its stamp): `changed` names the
    fields given, `fields` has None for the others."""
    if "name" in changed and fields.name:
        record.name = fields.name
    if "impact_override" in changed:
        record.impact_override = fields.impact_override
    if "metadata" in changed and fields.metadata is not None:
        record.metadata = fields.metadata
    for flag in (
        "scheduled_remind_prior",
        "scheduled_auto_in_progress",
        "scheduled_auto_completed",
        *AUTO_TRANSITION_FLAGS,
    ):
        if flag in changed and getattr(fields, flag) is not None:
            setattr(record, flag, getattr(fields, flag))
    if "reminder_intervals" in changed:
        record.reminder_intervals = reminder_intervals(fields.reminder_intervals)
    if changed & {"scheduled_for", "scheduled_until"}:
        if not record.scheduled:
            raise errors.invalid("scheduled_for", "applies to scheduled incidents only")
        scheduled_for = (
            _utc(fields.scheduled_for) if "scheduled_for" in changed else record.scheduled_for
        )
        scheduled_until = (
            _utc(fields.scheduled_until) if "scheduled_until" in changed else record.scheduled_until
        )
        _check_window(scheduled_for, scheduled_until)
        if scheduled_for != record.scheduled_for:
            record.scheduled_reminded_at = None
        record.scheduled_for, record.scheduled_until = scheduled_for, scheduled_until
    if fields.status is not None:
        _check_status(fields.status, record.scheduled)
        record.status = fields.status
        _stamp(record, fields.status, moment)


def update_incident(
    page_id: str,
    incident_id: str,
    fields: IncidentInput,
    *,
    expected_status: str | None = None,
) -> Incident:
    """Plain field edits change the incident; a `status` or `body` appends an update too, as
    does moving an open maintenance's window (its subscribers hear of the new window, unless
    `deliver_notifications` is false).

    With `expected_status`, nothing happens unless the incident still has that status (a
    conflict of intent otherwise).
    """
    changed = set(given(fields))
    fields = filled(fields)

    def change(work: Work) -> Incident:
        incident = get_incident(page_id, incident_id, consistent=True)
        record = incident.record
        if expected_status is not None and record.status != expected_status:
            raise errors.Conflict()
        before = copy.deepcopy(record.attribute_values)
        _edit_fields(record, fields, changed, work.moment)
        effects = _apply_components(record, fields, work.moment)
        record.updated_at = work.moment
        record.reminders_sent = None  # reminders count from the last write
        deliver = fields.deliver_notifications is not False
        update = None
        moved = _moved(record, before)
        if fields.status is not None or fields.body is not None or moved:
            update = _new_update(
                record,
                fields.body or (MOVED_BODY if moved else ""),
                work.moment,
                wants_social_update=bool(fields.wants_social_update),
                deliver=deliver,
                affected=effects.affected() or None,
            )
            record.last_update = brief(update)
            incident.updates.insert(0, update)
        index_keys(record)
        condition = IncidentRecord.key.exists()
        if expected_status is not None:
            condition &= IncidentRecord.status == expected_status
        if record.component_ids != before.get("component_ids"):
            # The list grows by union: two appends naming components at once must not keep
            # only the later one's; the one that finds the list changed runs again on it.
            condition &= _as_read(before.get("component_ids"))
        with work.together():
            work.update(
                record,
                _changes(record, before),
                condition,
                versioned=False,
                intent=expected_status is not None,
            )
            _stage(work, record, update, effects, deliver=deliver)
        return incident

    return unit_of_work.run(page_id, change)


def _moved(record: IncidentRecord, before: dict) -> bool:
    """Whether an open maintenance's window differs from the one it had."""
    if not record.scheduled or record.status in states.CLOSED:
        return False
    window = (record.scheduled_for, record.scheduled_until)
    return window != (before.get("scheduled_for"), before.get("scheduled_until"))


def _as_read(component_ids: list[str] | None):
    if component_ids is None:
        return IncidentRecord.component_ids.does_not_exist()
    return IncidentRecord.component_ids == component_ids


def delete_incident(page_id: str, incident_id: str) -> Incident:
    def change(work: Work) -> Incident:
        incident = get_incident(page_id, incident_id, consistent=True)
        # The incident goes first, conditionally: once it is gone nothing shows its updates,
        # and they may be more than one transaction holds.
        work.delete(incident.record, IncidentRecord.key.exists(), intent=True)
        for update in incident.updates:
            work.delete(update)
        return incident

    return unit_of_work.run(page_id, change)


def edit_update(page_id: str, incident_id: str, update_id: str, changes: dict) -> Incident:
    """Edit the text, display time or social flag of one update; no notification is sent."""

    def change(work: Work) -> Incident:
        incident = get_incident(page_id, incident_id, consistent=True)
        matching = [update for update in incident.updates if update.id == update_id]
        if not matching:
            raise errors.NotFound()
        update = matching[0]
        for name, value in changes.items():
            setattr(update, name, _utc(value) if isinstance(value, datetime) else value)
        update.updated_at = work.moment
        with work.together():
            work.save(update)
            if update is incident.updates[0]:
                record = incident.record
                record.last_update = brief(update)
                work.update(
                    record, [IncidentRecord.last_update.set(record.last_update)], versioned=False
                )
        return incident

    return unit_of_work.run(page_id, change)
