"""Components (SPEC 4.6), in both path styles."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import components
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import paginate
from chalicelib.http.routing import ApiRequest, Router
from chalicelib.views.components import component_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "components")
COMPONENTS = "/v1/pages/{page_id}/components"
COMPONENT = COMPONENTS + "/{component_id}"


def _shown(written: components.Written) -> schemas.ComponentOut:
    return component_out(written.records, written.record)


@router.route(
    COMPONENTS,
    ["GET"],
    summary="List components, groups included, in page order",
    response="ComponentListItemOut",
    many=True,
    query="Pagination",
)
def list_components(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    return [component_out(records, record) for record in paginate(records, request.query)]


@router.route(
    COMPONENTS,
    ["POST"],
    summary="Create a component",
    body="ComponentCreate",
    response="ComponentOut",
    status=201,
)
def create_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().component, components.ComponentInput)
    return _shown(components.create_component(page.id, fields))


@router.route(COMPONENT, ["GET"], summary="Get a component", response="ComponentOut")
def get_component(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    return component_out(records, components.find(records, request.params["component_id"]))


@router.route(
    COMPONENT,
    ["PATCH", "PUT"],
    summary="Update a component",
    body="ComponentUpdate",
    response="ComponentOut",
)
def update_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().component, components.ComponentInput)
    return _shown(components.update_component(page.id, request.params["component_id"], fields))


@router.route(
    COMPONENT,
    ["DELETE"],
    summary="Delete a component (a group: its members stay, orphaned)",
    status=204,
)
def delete_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    components.delete_component(page.id, request.params["component_id"])
