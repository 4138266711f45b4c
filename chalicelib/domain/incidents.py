"""Incidents and their updates: creation, appended updates, edits, deletion (SPEC 3.2, 4.8).

Every write of an incident goes through one transaction with its new update, the component
statuses it applies and the outbox event that announces it: all land, or none does.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition

from chalicelib import clock, ids
from chalicelib.domain import component_effects
from chalicelib.domain import incident_states as states
from chalicelib.domain.public_page import refresh_public_page
from chalicelib.http import errors
from chalicelib.notify import outbox
from chalicelib.schemas.incidents import IncidentFields
from chalicelib.store.base import transaction
from chalicelib.store.incidents import (
    INCIDENT_PREFIX,
    IncidentRecord,
    IncidentTemplate,
    incident_key,
    update_key,
)

INCIDENT_UPDATE_EVENT = "incident_update"
# DynamoDB takes at most 100 writes in a transaction; an incident write needs a few of its own.
MAX_COMPONENTS_PER_WRITE = 40


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


def list_incidents(page_id: str, *, consistent: bool = False) -> list[Incident]:
    records = IncidentRecord.query(
        page_id,
        IncidentRecord.key.startswith(INCIDENT_PREFIX),
        scan_index_forward=False,
        consistent_read=consistent,
    )
    return _group(list(records))


def get_incident(page_id: str, incident_id: str) -> Incident:
    records = IncidentRecord.query(
        page_id,
        IncidentRecord.key.startswith(incident_key(incident_id)),
        scan_index_forward=False,
    )
    found = [incident for incident in _group(list(records)) if incident.record.id == incident_id]
    if not found:
        raise errors.not_found()
    return found[0]


def is_unresolved(record: IncidentRecord) -> bool:
    return not record.scheduled and record.status not in states.CLOSED


def is_upcoming(record: IncidentRecord) -> bool:
    return record.scheduled and record.status == "scheduled"


def is_active_maintenance(record: IncidentRecord) -> bool:
    return record.scheduled and record.status in ("in_progress", "verifying")


def search(incidents: list[Incident], text: str | None) -> list[Incident]:
    if not text:
        return incidents
    needle = text.lower()
    return [
        incident
        for incident in incidents
        if needle in (incident.record.name or "").lower()
        or any(needle in (update.body or "").lower() for update in incident.updates)
    ]


def _template_defaults(page_id: str, fields: IncidentFields) -> IncidentFields:
    """Fields a template supplies where the body leaves them out."""
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
    given = fields.model_dump(exclude_unset=True)
    merged = {key: value for key, value in defaults.items() if value is not None}
    merged.update(given)
    return IncidentFields.model_validate(merged)


def is_scheduled(fields: IncidentFields) -> bool:
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
        raise errors.unprocessable(problems)


def _check_status(status: str, scheduled: bool) -> None:
    allowed = states.statuses_of(scheduled)
    if status not in allowed:
        raise errors.invalid("status", f"must be one of {', '.join(allowed)}")


def _stamp(record: IncidentRecord, status: str, moment: datetime) -> None:
    stamp = states.STAMPS.get(status)
    if stamp and getattr(record, stamp) is None:
        setattr(record, stamp, moment)


def due_step(record: IncidentRecord) -> datetime | None:
    """When the scheduler next has something to do for this maintenance, if ever."""
    if not record.scheduled or record.status in states.CLOSED:
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
    record.due = "due" if step else None
    record.due_at = step


def _new_update(
    record: IncidentRecord,
    body: str,
    moment: datetime,
    *,
    wants_social_update: bool,
    deliver: bool,
    affected: list[dict] | None,
) -> IncidentRecord:
    update_id = ids.new_id()
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


def _commit(
    record: IncidentRecord,
    update: IncidentRecord | None,
    effects: "component_effects.Effects",
    *,
    deliver: bool,
    condition: Condition | None = None,
) -> None:
    events = []
    try:
        with transaction() as writes:
            writes.save(record, condition=condition)
            if update is not None:
                writes.save(update)
            events.extend(effects.stage(writes))
            if update is not None and deliver:
                events.append(
                    outbox.stage_event(
                        writes,
                        record.page_id,
                        INCIDENT_UPDATE_EVENT,
                        {
                            "incident_id": record.id,
                            "incident_update_id": update.id,
                            "component_ids": record.component_ids or [],
                        },
                    )
                )
    except TransactWriteError:
        raise errors.conflict() from None
    outbox.publish(events)
    refresh_public_page(record.page_id)


def _apply_components(
    record: IncidentRecord, fields: IncidentFields, moment: datetime
) -> "component_effects.Effects":
    """The component statuses the body sets, and the incident's affected components."""
    requested = dict(fields.components or {})
    named = list(fields.component_ids or []) + list(requested)
    if len(named) > MAX_COMPONENTS_PER_WRITE:
        raise errors.invalid("component_ids", f"at most {MAX_COMPONENTS_PER_WRITE} at once")
    effects = component_effects.plan(record.page_id, named, requested, moment)
    if fields.component_ids is not None or fields.components is not None:
        known = list(record.component_ids or [])
        record.component_ids = known + [
            component_id for component_id in named if component_id not in known
        ]
    record.components = effects.snapshot(record.component_ids or [])
    record.impact = states.impact(
        [component["status"] for component in record.components], record.impact_override
    )
    return effects


def create_incident(page_id: str, fields: IncidentFields) -> Incident:
    fields = _template_defaults(page_id, fields)
    if not fields.name:
        raise errors.invalid("name", "can't be blank")
    scheduled = is_scheduled(fields)
    status = fields.status or states.DEFAULT_STATUS[scheduled]
    _check_status(status, scheduled)
    scheduled_for, scheduled_until = _utc(fields.scheduled_for), _utc(fields.scheduled_until)
    if scheduled:
        _check_window(scheduled_for, scheduled_until)
    moment = clock.now()
    created = _utc(fields.backfill_date) if fields.backfilled and fields.backfill_date else moment
    incident_id = ids.new_id()
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
        scheduled_for=scheduled_for,
        scheduled_until=scheduled_until,
        scheduled_remind_prior=bool(fields.scheduled_remind_prior),
        scheduled_auto_in_progress=bool(fields.scheduled_auto_in_progress),
        scheduled_auto_completed=bool(fields.scheduled_auto_completed),
        created_at=created,
        updated_at=moment,
    )
    _stamp(record, status, created)
    effects = _apply_components(record, fields, moment)
    deliver = fields.deliver_notifications is not False and not fields.backfilled
    update = _new_update(
        record,
        fields.body or "",
        created,
        wants_social_update=bool(fields.wants_social_update),
        deliver=deliver,
        affected=effects.affected() or None,
    )
    refresh_due(record)
    _commit(record, update, effects, deliver=deliver, condition=IncidentRecord.key.does_not_exist())
    return Incident(record, [update])


def update_incident(
    page_id: str, incident_id: str, fields: IncidentFields, *, expected_status: str | None = None
) -> Incident:
    """Plain field edits change the incident; a `status` or `body` appends an update too.

    With `expected_status`, nothing happens unless the incident still has that status.
    """
    incident = get_incident(page_id, incident_id)
    record = incident.record
    if expected_status is not None and record.status != expected_status:
        raise errors.conflict()
    moment = clock.now()
    given = fields.model_fields_set
    if "name" in given and fields.name:
        record.name = fields.name
    if "impact_override" in given:
        record.impact_override = fields.impact_override
    if "metadata" in given and fields.metadata is not None:
        record.metadata = fields.metadata
    for flag in (
        "scheduled_remind_prior",
        "scheduled_auto_in_progress",
        "scheduled_auto_completed",
    ):
        if flag in given and getattr(fields, flag) is not None:
            setattr(record, flag, getattr(fields, flag))
    if given & {"scheduled_for", "scheduled_until"}:
        if not record.scheduled:
            raise errors.invalid("scheduled_for", "applies to scheduled incidents only")
        scheduled_for = (
            _utc(fields.scheduled_for) if "scheduled_for" in given else record.scheduled_for
        )
        scheduled_until = (
            _utc(fields.scheduled_until) if "scheduled_until" in given else record.scheduled_until
        )
        _check_window(scheduled_for, scheduled_until)
        if scheduled_for != record.scheduled_for:
            record.scheduled_reminded_at = None
        record.scheduled_for, record.scheduled_until = scheduled_for, scheduled_until
    appends = fields.status is not None or fields.body is not None
    if fields.status is not None:
        _check_status(fields.status, record.scheduled)
        record.status = fields.status
        _stamp(record, fields.status, moment)
    effects = _apply_components(record, fields, moment)
    record.updated_at = moment
    refresh_due(record)
    deliver = fields.deliver_notifications is not False
    update = None
    if appends:
        update = _new_update(
            record,
            fields.body or "",
            moment,
            wants_social_update=bool(fields.wants_social_update),
            deliver=deliver,
            affected=effects.affected() or None,
        )
        incident.updates.insert(0, update)
    _commit(record, update, effects, deliver=deliver)
    return incident


def delete_incident(page_id: str, incident_id: str) -> Incident:
    incident = get_incident(page_id, incident_id)
    # The incident goes first, conditionally: once it is gone nothing shows its updates, and
    # they may be more than one transaction holds.
    incident.record.delete()
    with IncidentRecord.batch_write() as batch:
        for update in incident.updates:
            batch.delete(update)
    refresh_public_page(page_id)
    return incident


def edit_update(page_id: str, incident_id: str, update_id: str, changes: dict) -> Incident:
    """Edit the text, display time or social flag of one update; no notification is sent."""
    incident = get_incident(page_id, incident_id)
    matching = [update for update in incident.updates if update.id == update_id]
    if not matching:
        raise errors.not_found()
    update = matching[0]
    for name, value in changes.items():
        setattr(update, name, _utc(value) if isinstance(value, datetime) else value)
    update.updated_at = clock.now()
    update.save()
    refresh_public_page(page_id)
    return incident
