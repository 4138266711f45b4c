"""Integrations (issue 34, item 1): a page's alert webhooks, managed by `page_configuration`;
and the audit of what automation did on the page (item 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, config, schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import automation_audit, integrations
from chalicelib.http.routing import ApiRequest, Router, Style

if TYPE_CHECKING:
    from chalicelib.store.integrations import AutomationEvent, Integration

blueprint = Blueprint(__name__)
router = Router(blueprint, "integrations")
INTEGRATIONS = "/v1/pages/{page_id}/integrations"
INTEGRATION = INTEGRATIONS + "/{integration_id}"
ROTATION = INTEGRATION + "/rotate_token"
AUTOMATION_EVENTS = "/v1/pages/{page_id}/automation_events"


def receiver_url(token: str) -> str:
    return config.public_base_url() + integrations.RECEIVER_PATH.format(token=token)


def integration_out(integration: Integration, token: str | None = None) -> schemas.IntegrationOut:
    """`url` only with the token just made: only its hash is kept."""
    return schemas.IntegrationOut(
        id=integration.id,
        page_id=integration.page_id,
        kind=integration.kind,
        name=integration.name or "",
        url=receiver_url(token) if token else None,
        rules=integration.rules or [],
        severities=integration.severities or {},
        hold_minutes=int(integration.hold_minutes),
        min_firing_seconds=int(integration.min_firing_seconds),
        rate_limit_per_minute=int(integration.rate_limit_per_minute),
        incident_template_id=integration.incident_template_id,
        resolve_incident=bool(integration.resolve_incident),
        open_incident_id=integration.open_incident_id,
        created_at=clock.iso(integration.created_at),
        updated_at=clock.iso(integration.updated_at),
    )


def _settings(fields) -> dict:
    """The settings a body gives, as the rules take them (plain values)."""
    return fields.model_dump(exclude_unset=True)


@router.route(
    INTEGRATIONS,
    ["GET"],
    summary="List the page's integrations",
    response="IntegrationOut",
    many=True,
)
def list_integrations(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return [integration_out(one) for one in integrations.integrations_of(page.id)]


@router.route(
    INTEGRATIONS,
    ["POST"],
    summary="Create an integration; the answer's `url` is where monitoring posts its alerts",
    body="IntegrationCreate",
    response="IntegrationOut",
    status=201,
)
def create_integration(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    made = integrations.create_integration(page.id, **_settings(request.parse().integration))
    return integration_out(made.integration, made.token)


@router.route(INTEGRATION, ["GET"], summary="Get an integration", response="IntegrationOut")
def get_integration(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return integration_out(integrations.get_integration(page.id, request.params["integration_id"]))


@router.route(
    INTEGRATION,
    ["PATCH", "PUT"],
    summary="Update an integration",
    body="IntegrationUpdate",
    response="IntegrationOut",
)
def update_integration(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    changes = _settings(request.parse().integration)
    integration_id = request.params["integration_id"]
    return integration_out(integrations.update_integration(page.id, integration_id, **changes))


@router.route(
    INTEGRATION,
    ["DELETE"],
    summary="Delete an integration (its components keep their statuses)",
    response="IntegrationOut",
)
def delete_integration(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    integration_id = request.params["integration_id"]
    return integration_out(integrations.delete_integration(page.id, integration_id))


@router.route(
    ROTATION,
    ["POST"],
    summary="Give an integration a new token: the answer's `url`; the old one stops working",
    response="IntegrationOut",
    style=Style.CURRENT,
)
def rotate_integration_token(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    made = integrations.rotate_token(page.id, request.params["integration_id"])
    return integration_out(made.integration, made.token)


def event_out(event: AutomationEvent) -> schemas.AutomationEventOut:
    return schemas.AutomationEventOut(
        id=event.id,
        source_kind=event.source_kind,
        source_id=event.source_id,
        detail=event.detail or "",
        component_id=event.component_id,
        old_status=event.old_status,
        new_status=event.new_status,
        changed=bool(event.changed),
        reason=event.reason,
        created_at=clock.iso(event.created_at),
    )


@router.route(
    AUTOMATION_EVENTS,
    ["GET"],
    summary="The newest 100 things automation (integrations and checks) did on the page, or "
    "declined to do, and why",
    response="AutomationEventOut",
    many=True,
)
def list_automation_events(request: ApiRequest):
    page = request.page()
    return [event_out(event) for event in automation_audit.recent(page.id)]
