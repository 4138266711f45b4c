"""Component groups (SPEC 4.7): current style `/component-groups`, archived style under both
spellings `component-groups` and `components-groups`."""

from chalice import Blueprint

from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import components
from chalicelib.http.routing import ApiRequest, Reply, Router, Style
from chalicelib.schemas.components import (
    ComponentGroupCreate,
    ComponentGroupOut,
    ComponentGroupUpdate,
)
from chalicelib.views.components import group_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "component groups")
SPELLINGS = ("component-groups", "components-groups")


def _groups_path(spelling: str) -> str:
    return f"/v1/pages/{{page_id}}/{spelling}"


def _shown(page_id: str, group_id: str) -> ComponentGroupOut:
    records = components.components_of(page_id)
    return group_out(records, components.find(records, group_id, group=True))


def list_component_groups(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    return [group_out(records, record) for record in records if record.group]


def create_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = request.parse(ComponentGroupCreate).component_group
    group = components.create_group(page.id, fields)
    return _shown(page.id, group.id)


def get_component_group(request: ApiRequest):
    page = request.page()
    return _shown(page.id, request.params["id"])


def update_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = request.parse(ComponentGroupUpdate).component_group
    group = components.update_group(page.id, request.params["id"], fields)
    return _shown(page.id, group.id)


def delete_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    group, members = components.delete_group(page.id, request.params["id"])
    if request.archived:
        return Reply(None, 204)
    return group_out([], group, members)


for spelling in SPELLINGS:
    groups, group = _groups_path(spelling), _groups_path(spelling) + "/{id}"
    # The current style knows one spelling; the archived one answers to both.
    style = Style.BOTH if spelling == "component-groups" else Style.ARCHIVED
    router.route(
        groups,
        ["GET"],
        summary="List component groups",
        response=ComponentGroupOut,
        many=True,
        style=style,
    )(list_component_groups)
    router.route(
        groups,
        ["POST"],
        summary="Create a component group",
        body=ComponentGroupCreate,
        response=ComponentGroupOut,
        status=201,
        style=style,
    )(create_component_group)
    router.route(
        group, ["GET"], summary="Get a component group", response=ComponentGroupOut, style=style
    )(get_component_group)
    router.route(
        group,
        ["PATCH", "PUT"],
        summary="Update a component group",
        body=ComponentGroupUpdate,
        response=ComponentGroupOut,
        style=style,
    )(update_component_group)
    router.route(
        group,
        ["DELETE"],
        summary="Delete a component group (archived style: 204)",
        response=ComponentGroupOut,
        style=style,
    )(delete_component_group)
