"""Integrations (issue 34, item 1): a page's alert webhooks, managed by `page_configuration`;
and the audit of what automation did on the page (item 8)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import automation_audit, integrations
from chalicelib.http import pagination
from chalicelib.http.routing import ApiRequest, Router, Style
from chalicelib.views.integrations import event_out, integration_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "integrations")
INTEGRATIONS = "/v1/pages/{page_id}/integrations"
INTEGRATION = INTEGRATIONS + "/{integration_id}"
ROTATION = INTEGRATION + "/rotate_token"
AUTOMATION_EVENTS = "/v1/pages/{page_id}/automation_events"


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


@router.route(
    AUTOMATION_EVENTS,
    ["GET"],
    summary="What automation (integrations and checks) did on the page, or declined to do, and "
    "why, newest first, a page at a time (`page`, `per_page` up to 100), kept 30 days",
    response="AutomationEventOut",
    many=True,
    query="Pagination",
)
def list_automation_events(request: ApiRequest):
    page = request.page()
    start, size = pagination.start_and_size(request.query)
    return [event_out(event) for event in automation_audit.recent(page.id, start, size)]
