"""Maintenances move themselves: reminders 60 minutes ahead, in progress at the start,
completed at the end (SPEC 3.2, 6).

Only incidents on the sparse due index are read, so a tick costs the same however many
incidents the system holds. Every step is a conditional write: a tick that dies half-way,
or two ticks that overlap, can be run again and nothing happens twice.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from chalicelib import clock
from chalicelib.domain import component_holds, components, incidents
from chalicelib.domain import incident_states as states
from chalicelib.jobs import due_steps

if TYPE_CHECKING:
    from chalicelib.store.incidents import IncidentRecord

logger = logging.getLogger(__name__)


class Step(NamedTuple):
    """An automatic move: the status and its update's body; the incident's flag that puts
    its components in `component_status`, and the one that notifies subscribers (both on
    unless set false)."""

    status: str
    body: str
    components_flag: str
    component_status: str
    notify_flag: str


START = Step(
    "in_progress",
    "Scheduled maintenance is currently in progress. We will provide updates as necessary.",
    "auto_transition_to_maintenance_state",
    "under_maintenance",
    "auto_transition_deliver_notifications_at_start",
)
END = Step(
    "completed",
    "The scheduled maintenance has been completed.",
    "auto_transition_to_operational_state",
    "operational",
    "auto_transition_deliver_notifications_at_end",
)


def due_maintenances(moment: datetime) -> list[IncidentRecord]:
    return incidents.due_records(incidents.DUE_STEP, moment)


def _move(record: IncidentRecord, step: Step) -> None:
    """Move the maintenance and, unless its flag says not to, its components; a component
    deleted since the maintenance named it is left out (the step still happens), as is, at
    the end, one another open incident holds; a group's status follows its members."""
    moved: dict[str, str] = {}
    if getattr(record, step.components_flag) is not False:
        present = {
            component.id
            for component in components.components_of(record.page_id)
            if not component.group
        }
        named = [c for c in record.component_ids or [] if c in present]
        if step is END:
            # Back to operational only where no open incident still holds the component.
            named = component_holds.held_elsewhere(record.page_id, besides=record.id).restorable(
                named
            )
        moved = {component_id: step.component_status for component_id in named}
    fields = incidents.IncidentInput(
        status=step.status,
        body=step.body,
        components=moved,
        deliver_notifications=getattr(record, step.notify_flag) is not False,
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
        incidents.remind_of_maintenance(record)
    if (
        record.scheduled_auto_in_progress
        and record.status == "scheduled"
        and moment >= record.scheduled_for
    ):
        _move(record, START)
        record = incidents.get_incident(record.page_id, record.id).record
    if (
        record.scheduled_auto_completed
        and record.status in ("scheduled", "in_progress", "verifying")
        and moment >= record.scheduled_until
    ):
        _move(record, END)


def run(moment: datetime | None = None) -> int:
    """One tick: returns how many maintenances had a step due."""
    moment = moment or clock.now()
    due = due_maintenances(moment)
    due_steps.take(due, lambda record: advance(record, moment), "maintenance step")
    return len(due)
