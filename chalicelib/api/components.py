"""Components (SPEC 4.6), in both path styles."""

from chalice import Blueprint

from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import components
from chalicelib.http.routing import ApiRequest, Router
from chalicelib.schemas.components import ComponentCreate, ComponentOut, ComponentUpdate
from chalicelib.views.components import component_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "components")
COMPONENTS = "/v1/pages/{page_id}/components"
COMPONENT = COMPONENTS + "/{component_id}"


def _shown(page_id: str, component_id: str) -> ComponentOut:
    records = components.components_of(page_id)
    return component_out(records, components.find(records, component_id))


@router.route(COMPONENTS, ["GET"], summary="List components", response=ComponentOut, many=True)
def list_components(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    return [component_out(records, record) for record in records]


@router.route(
    COMPONENTS,
    ["POST"],
    summary="Create a component",
    body=ComponentCreate,
    response=ComponentOut,
    status=201,
)
def create_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = request.parse(ComponentCreate).component
    component = components.create_component(page.id, fields)
    return _shown(page.id, component.id)


@router.route(COMPONENT, ["GET"], summary="Get a component", response=ComponentOut)
def get_component(request: ApiRequest):
    page = request.page()
    return _shown(page.id, request.params["component_id"])


@router.route(
    COMPONENT,
    ["PATCH", "PUT"],
    summary="Update a component",
    body=ComponentUpdate,
    response=ComponentOut,
)
def update_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = request.parse(ComponentUpdate).component
    component = components.update_component(page.id, request.params["component_id"], fields)
    return _shown(page.id, component.id)


@router.route(COMPONENT, ["DELETE"], summary="Delete a component", status=204)
def delete_component(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    components.delete_component(page.id, request.params["component_id"])
