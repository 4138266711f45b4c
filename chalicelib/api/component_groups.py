"""Component groups (SPEC 4.7): current style `/component-groups`, archived style under both
spellings `component-groups` and `components-groups`."""

from chalice import Blueprint

from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import component_groups, components
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import paginate
from chalicelib.http.routing import ApiRequest, Reply, Router, Style
from chalicelib.views.components import group_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "component groups")
CURRENT_SPELLING = "component-groups"
ARCHIVED_SPELLING = "components-groups"


def list_component_groups(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    groups = [record for record in records if record.group]
    return [group_out(records, group) for group in paginate(groups, request.query)]


def create_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().component_group, component_groups.GroupInput)
    written = component_groups.create_group(page.id, fields)
    return group_out(written.records, written.record)


def get_component_group(request: ApiRequest):
    page = request.page()
    records = components.components_of(page.id)
    return group_out(records, components.find(records, request.params["id"], group=True))


def update_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().component_group, component_groups.GroupInput)
    written = component_groups.update_group(page.id, request.params["id"], fields)
    return group_out(written.records, written.record)


def delete_component_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    removal = component_groups.delete_group(page.id, request.params["id"])
    # CONTRACT: the archived style answers 204, the current one the deleted group.
    if request.archived:
        return Reply(None, 204)
    return group_out(removal.records, removal.record, removal.member_ids)


def _register(collection: str, style: Style) -> None:
    member = collection.removesuffix(".json") + "/{id}"
    router.route(
        collection,
        ["GET"],
        summary="List component groups",
        response="ComponentGroupOut",
        many=True,
        query="Pagination",
        style=style,
    )(list_component_groups)
    router.route(
        collection,
        ["POST"],
        summary="Create a component group",
        body="ComponentGroupCreate",
        response="ComponentGroupOut",
        status=201,
        style=style,
    )(create_component_group)
    router.route(
        member, ["GET"], summary="Get a component group", response="ComponentGroupOut", style=style
    )(get_component_group)
    router.route(
        member,
        ["PATCH", "PUT"],
        summary="Update a component group",
        body="ComponentGroupUpdate",
        response="ComponentGroupOut",
        style=style,
    )(update_component_group)
    router.route(
        member,
        ["DELETE"],
        summary="Delete a component group; its components stay (archived style: 204)",
        response="ComponentGroupOut",
        style=style,
    )(delete_component_group)


_register(f"/v1/pages/{{page_id}}/{CURRENT_SPELLING}", Style.BOTH)
# The archived style also knows the other spelling (SPEC 4.7).
_register(f"/v1/pages/{{page_id}}/{ARCHIVED_SPELLING}.json", Style.ARCHIVED)
