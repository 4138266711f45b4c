"""Incident templates: a saved name, body, status and components to start an incident from."""

from __future__ import annotations

from chalicelib import clock, ids, schemas
from chalicelib.domain import components, errors
from chalicelib.domain import incident_states as states
from chalicelib.store.incidents import IncidentTemplate


def templates_of(page_id: str) -> list[IncidentTemplate]:
    return list(IncidentTemplate.query(page_id))


def create_template(page_id: str, fields: schemas.IncidentTemplateFields) -> IncidentTemplate:
    if fields.update_status and fields.update_status not in states.REALTIME + states.SCHEDULED:
        raise errors.invalid("update_status", "is not an incident status")
    records = components.components_of(page_id)
    components.check_named(records, fields.component_ids, "component_ids")
    if fields.group_id is not None:
        components.check_named(records, [fields.group_id], "group_id", group=True)
    moment = clock.now()
    template = IncidentTemplate(
        page_id, ids.new_id(), created_at=moment, updated_at=moment, **fields.model_dump()
    )
    template.save()
    return template
