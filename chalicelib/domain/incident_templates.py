"""Incident templates: a saved name, body, status and components to start an incident from."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from chalicelib import clock, ids
from chalicelib.domain import components, errors, unit_of_work
from chalicelib.domain import incident_states as states
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.incidents import IncidentTemplate


@dataclass(frozen=True)
class TemplateInput:
    """Every field of a template: a new one and an edited one are given whole."""

    name: str
    title: str
    body: str
    group_id: str | None
    update_status: str | None
    should_tweet: bool
    should_send_notifications: bool
    component_ids: list[str]


def templates_of(page_id: str) -> list[IncidentTemplate]:
    return list(IncidentTemplate.query(page_id))


def get_template(page_id: str, template_id: str) -> IncidentTemplate:
    try:
        return IncidentTemplate.get(page_id, template_id)
    except IncidentTemplate.DoesNotExist:
        raise errors.NotFound() from None


def _check(page_id: str, values: dict) -> None:
    """A 422 naming the field unless the status is an incident's and every component and
    the group named are the page's own."""
    status = values.get("update_status")
    if status and status not in states.REALTIME + states.SCHEDULED:
        raise errors.invalid("update_status", "is not an incident status")
    records = components.components_of(page_id)
    components.check_named(records, values.get("component_ids") or [], "component_ids")
    if values.get("group_id") is not None:
        components.check_named(records, [values["group_id"]], "group_id", group=True)


def create_template(page_id: str, fields: TemplateInput) -> IncidentTemplate:
    values = asdict(fields)
    _check(page_id, values)
    moment = clock.now()
    template = IncidentTemplate(
        page_id, ids.new_id(), created_at=moment, updated_at=moment, **values
    )

    def change(work: Work) -> IncidentTemplate:
        work.quiet()  # the public page shows no template
        work.save(template)
        return template

    return unit_of_work.run(page_id, change)


def update_template(page_id: str, template_id: str, fields: TemplateInput) -> IncidentTemplate:
    """Replace every field of the template with those given."""
    values = asdict(fields)
    _check(page_id, values)

    def change(work: Work) -> IncidentTemplate:
        work.quiet()
        template = get_template(page_id, template_id)
        for name, value in values.items():
            setattr(template, name, value)
        template.updated_at = work.moment
        work.save(template)
        return template

    return unit_of_work.run(page_id, change)


def delete_template(page_id: str, template_id: str) -> IncidentTemplate:
    def change(work: Work) -> IncidentTemplate:
        work.quiet()
        template = get_template(page_id, template_id)
        work.delete(template)
        return template

    return unit_of_work.run(page_id, change)
