"""Maintenances move themselves: reminders 60 minutes ahead, in progress at the start,
completed at the end (SPEC 3.2, 6).

Only incidents on the sparse due index are read, so a tick costs the same however many
incidents the system holds. Every step is a conditional write: a tick that dies half-way,
or two ticks that overlap, can be run again and nothing happens twice.
"""

import logging
from datetime import datetime

from chalicelib import clock
from chalicelib.domain import components, errors, incidents, unit_of_work
from chalicelib.domain import incident_states as states
from chalicelib.domain.unit_of_work import Work
from chalicelib.schemas.incidents import IncidentFields
from chalicelib.store.incidents import IncidentRecord

logger = logging.getLogger(__name__)
REMINDER_EVENT = "maintenance_reminder"
IN_PROGRESS_BODY = (
    "Scheduled maintenance is currently in progress. We will provide updates as necessary."
)
COMPLETED_BODY = "The scheduled maintenance has been completed."


def due_maintenances(moment: datetime) -> list[IncidentRecord]:
    return list(IncidentRecord.due_index.query("due", IncidentRecord.due_at <= moment))


def _remind(record: IncidentRecord) -> None:
    """Mark the reminder sent and stage it, together; a second tick finds it marked (a
    conflict of intent: nothing is sent twice)."""

    def change(work: Work) -> None:
        work.quiet()  # the public page does not show reminders
        record.scheduled_reminded_at = work.moment
        incidents.refresh_due(record)
        with work.together():
            work.update(
                record,
                [
                    IncidentRecord.scheduled_reminded_at.set(record.scheduled_reminded_at),
                    IncidentRecord.due.set(record.due)
                    if record.due
                    else IncidentRecord.due.remove(),
                    IncidentRecord.due_at.set(record.due_at)
                    if record.due_at
                    else IncidentRecord.due_at.remove(),
                ],
                IncidentRecord.scheduled_reminded_at.does_not_exist(),
                versioned=False,
                intent=True,
            )
            work.event(REMINDER_EVENT, {"incident_id": record.id})

    unit_of_work.run(record.page_id, change)


def _move(record: IncidentRecord, status: str, body: str, component_status: str) -> None:
    """Move the maintenance and its components; a component deleted since the maintenance
    named it is left out (the step still happens), and a group's status follows its members."""
    present = {
        component.id
        for component in components.components_of(record.page_id)
        if not component.group
    }
    fields = IncidentFields(
        status=status,
        body=body,
        components={
            component_id: component_status
            for component_id in record.component_ids or []
            if component_id in present
        },
    )
    incidents.update_incident(record.page_id, record.id, fields, expected_status=record.status)


def advance(record: IncidentRecord, moment: datetime) -> None:
    """Take every step of one maintenance that is due at `moment`."""
    if (
        record.scheduled_remind_prior
        and record.scheduled_reminded_at is None
        and record.status == "scheduled"
        and moment >= record.scheduled_for - states.REMINDER_LEAD
    ):
        _remind(record)
    if (
        record.scheduled_auto_in_progress
        and record.status == "scheduled"
        and moment >= record.scheduled_for
    ):
        _move(record, "in_progress", IN_PROGRESS_BODY, "under_maintenance")
        record = incidents.get_incident(record.page_id, record.id).record
    if (
        record.scheduled_auto_completed
        and record.status in ("scheduled", "in_progress", "verifying")
        and moment >= record.scheduled_until
    ):
        _move(record, "completed", COMPLETED_BODY, "operational")


def run(moment: datetime | None = None) -> int:
    """One tick: returns how many maintenances had a step due."""
    moment = moment or clock.now()
    due = due_maintenances(moment)
    for record in due:
        try:
            advance(record, moment)
        except (errors.Conflict, errors.NotFound):
            # Changed (or deleted) by someone else, or another tick, since it was read: the
            # next tick sees the new state.
            logger.info("maintenance %s changed under this tick; left for the next", record.id)
        except Exception:
            # Anything else is a fault: say which maintenance, and go on with the others.
            logger.exception("maintenance step of incident %s failed", record.id)
    return len(due)
