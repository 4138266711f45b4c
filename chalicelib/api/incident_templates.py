"""Incident templates: saved incidents to start from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.api.incidents import INCIDENT_MANAGER
from chalicelib.domain import components, incident_templates
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import paginate
from chalicelib.http.routing import ApiRequest, Router
from chalicelib.views.components import component_out

if TYPE_CHECKING:
    from chalicelib.store.components import Component
    from chalicelib.store.incidents import IncidentTemplate

blueprint = Blueprint(__name__)
router = Router(blueprint, "incident templates")
TEMPLATES = "/v1/pages/{page_id}/incident_templates"


def template_out(
    template: IncidentTemplate, records: list[Component]
) -> schemas.IncidentTemplateOut:
    """The template with its components as objects (`records`: the page's components)."""
    by_id = {record.id: record for record in records}
    named = [by_id[id_] for id_ in template.component_ids or [] if id_ in by_id]
    return schemas.IncidentTemplateOut(
        id=template.id,
        page_id=template.page_id,
        name=template.name,
        title=template.title,
        body=template.body or "",
        group_id=template.group_id,
        update_status=template.update_status,
        should_tweet=template.should_tweet,
        should_send_notifications=template.should_send_notifications,
        components=[component_out(records, record) for record in named],
        created_at=clock.iso(template.created_at),
        updated_at=clock.iso(template.updated_at),
    )


@router.route(
    TEMPLATES,
    ["GET"],
    summary="List incident templates",
    response="IncidentTemplateOut",
    many=True,
    query="Pagination",
)
def list_incident_templates(request: ApiRequest):
    page = request.page()
    templates = incident_templates.templates_of(page.id)
    records = components.components_of(page.id)
    return [template_out(template, records) for template in paginate(templates, request.query)]


@router.route(
    TEMPLATES,
    ["POST"],
    summary="Create an incident template",
    body="IncidentTemplateCreate",
    response="IncidentTemplateOut",
    status=201,
)
def create_incident_template(request: ApiRequest):
    page = request.page(INCIDENT_MANAGER)
    fields = plain(request.parse().template, incident_templates.TemplateInput)
    template = incident_templates.create_template(page.id, fields)
    return template_out(template, components.components_of(page.id))
