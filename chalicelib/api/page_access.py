"""Page access users and groups, their components and metrics, and the component-side
operations (SPEC 4.4, 4.5), in both path styles. Every one needs `page_configuration`.

Components and metrics of a user or group: `POST` replaces (201; archived 200), `PATCH` and
`PUT` add, `DELETE` removes the ids listed or, with none listed, all (archived: all).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import access_subscriptions, page_access
from chalicelib.domain.page_access import COMPONENTS, METRICS, Grant
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import paginate, reach
from chalicelib.http.routing import ApiRequest, Reply, Router
from chalicelib.views.components import component_out
from chalicelib.views.metrics import metric_out

if TYPE_CHECKING:
    from chalicelib.store.page_access import PageAccessGroup, PageAccessUser

blueprint = Blueprint(__name__)
router = Router(blueprint, "page access")
USERS = "/v1/pages/{page_id}/page_access_users"
USER = USERS + "/{page_access_user_id}"
GROUPS = "/v1/pages/{page_id}/page_access_groups"
GROUP = GROUPS + "/{page_access_group_id}"
COMPONENT = "/v1/pages/{page_id}/components/{component_id}"
DELETED = "Page access user deleted"


def user_out(user: PageAccessUser) -> schemas.PageAccessUserOut:
    groups = page_access.members(user)
    return schemas.PageAccessUserOut(
        id=user.id,
        page_id=user.page_id,
        email=user.email,
        external_login=user.external_login,
        page_access_group_id=groups[0] if groups else None,
        page_access_group_ids=groups,
        created_at=clock.iso(user.created_at),
        updated_at=clock.iso(user.updated_at),
    )


def group_out(group: PageAccessGroup) -> schemas.PageAccessGroupOut:
    return schemas.PageAccessGroupOut(
        id=group.id,
        page_id=group.page_id,
        name=group.name,
        page_access_user_ids=page_access.members(group),
        external_identifier=group.external_identifier,
        metric_ids=sorted(page_access.granted(group, METRICS)),
        component_ids=sorted(page_access.granted(group, COMPONENTS)),
        created_at=clock.iso(group.created_at),
        updated_at=clock.iso(group.updated_at),
    )


# The archived style answers a create or a replace with 200 (see `_created`).
ARCHIVED_CREATED = (200,)


def _created(request: ApiRequest, body) -> Reply:
    """201, or 200 in the archived style (SPEC 4.4)."""
    return Reply(body, status=200 if request.archived else 201)


@dataclass(frozen=True)
class Kind:
    """Users or groups: what the routes of each need to know."""

    name: str
    path: str
    model: type
    fields: type  # what the rules take of a body
    parameter: str
    shown: Callable
    response: str


USERS_KIND = Kind(
    "user",
    USER,
    page_access.USER,
    page_access.UserInput,
    "page_access_user_id",
    user_out,
    "PageAccessUserOut",
)
GROUPS_KIND = Kind(
    "group",
    GROUP,
    page_access.GROUP,
    page_access.GroupInput,
    "page_access_group_id",
    group_out,
    "PageAccessGroupOut",
)


def _found(request: ApiRequest, kind: Kind):
    page = request.page(PAGE_CONFIGURATION)
    return page, page_access.get(kind.model, page.id, request.params[kind.parameter])


def _updated(request: ApiRequest, kind: Kind, body):
    page = request.page(PAGE_CONFIGURATION)
    holder_id = request.params[kind.parameter]
    fields = plain(body, kind.fields)
    return kind.shown(page_access.update(page.id, kind.model, holder_id, fields))


def _deleted(request: ApiRequest, kind: Kind):
    page = request.page(PAGE_CONFIGURATION)
    return page_access.delete(page.id, kind.model, request.params[kind.parameter])


# Users -------------------------------------------------------------------------------------


@router.route(
    USERS,
    ["GET"],
    summary="List page access users (paginated; `email` filters)",
    response="PageAccessUserOut",
    many=True,
    query="PageAccessUserQuery",
)
def list_page_access_users(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    email = request.query.get("email") or None
    found = page_access.users_of(page.id, reach(request.query), email)
    return [user_out(user) for user in paginate(found, request.query)]


@router.route(
    USERS,
    ["POST"],
    summary="Add a page access user",
    body="PageAccessUserCreate",
    response="PageAccessUserOut",
    status=201,
    answers=ARCHIVED_CREATED,
)
def create_page_access_user(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().page_access_user, page_access.UserInput)
    user = access_subscriptions.create_user(page.id, fields)
    return _created(request, user_out(user))


@router.route(USER, ["GET"], summary="Get a page access user", response="PageAccessUserOut")
def get_page_access_user(request: ApiRequest):
    return user_out(_found(request, USERS_KIND)[1])


@router.route(
    USER,
    ["PATCH", "PUT"],
    summary="Update a page access user",
    body="PageAccessUserUpdate",
    response="PageAccessUserOut",
)
def update_page_access_user(request: ApiRequest):
    return _updated(request, USERS_KIND, request.parse().page_access_user)


@router.route(
    USER,
    ["DELETE"],
    summary="Delete a page access user (archived style: answers with the deleted user)",
    response="PageAccessUserDeleted",
)
def delete_page_access_user(request: ApiRequest):
    deleted = _deleted(request, USERS_KIND)
    return user_out(deleted) if request.archived else schemas.PageAccessUserDeleted(message=DELETED)


# Groups ------------------------------------------------------------------------------------


@router.route(
    GROUPS,
    ["GET"],
    summary="List page access groups (paginated)",
    response="PageAccessGroupOut",
    many=True,
    query="Pagination",
)
def list_page_access_groups(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    found = page_access.groups_of(page.id, reach(request.query))
    return [group_out(group) for group in paginate(found, request.query)]


@router.route(
    GROUPS,
    ["POST"],
    summary="Create a page access group",
    body="PageAccessGroupCreate",
    response="PageAccessGroupOut",
    status=201,
    answers=ARCHIVED_CREATED,
)
def create_page_access_group(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().page_access_group, page_access.GroupInput)
    return _created(request, group_out(page_access.create(page.id, page_access.GROUP, fields)))


@router.route(GROUP, ["GET"], summary="Get a page access group", response="PageAccessGroupOut")
def get_page_access_group(request: ApiRequest):
    return group_out(_found(request, GROUPS_KIND)[1])


@router.route(
    GROUP,
    ["PATCH", "PUT"],
    summary="Update a page access group",
    body="PageAccessGroupUpdate",
    response="PageAccessGroupOut",
)
def update_page_access_group(request: ApiRequest):
    return _updated(request, GROUPS_KIND, request.parse().page_access_group)


@router.route(
    GROUP, ["DELETE"], summary="Remove a page access group", response="PageAccessGroupOut"
)
def delete_page_access_group(request: ApiRequest):
    return group_out(_deleted(request, GROUPS_KIND))


# Components and metrics of a user or group -------------------------------------------------


def _grant(request: ApiRequest, kind: Kind, field: str, grant: Grant, ids_given):
    page = request.page(PAGE_CONFIGURATION)
    holder_id = request.params[kind.parameter]
    changed = page_access.change_grants(page.id, holder_id, kind.model, field, grant, ids_given)
    return kind.shown(changed)


@router.route(
    USER + "/components",
    ["GET"],
    summary="Get components for page access user (paginated)",
    response="ComponentOut",
    many=True,
    query="Pagination",
)
def list_page_access_user_components(request: ApiRequest):
    return _components_of(request, USERS_KIND)


@router.route(
    GROUP + "/components",
    ["GET"],
    summary="List components for a page access group (paginated)",
    response="ComponentOut",
    many=True,
    query="Pagination",
)
def list_page_access_group_components(request: ApiRequest):
    return _components_of(request, GROUPS_KIND)


def _components_of(request: ApiRequest, kind: Kind):
    page, found = _found(request, kind)
    records, mine = page_access.granted_components(page.id, found)
    return [component_out(records, record) for record in paginate(mine, request.query)]


@router.route(
    USER + "/metrics",
    ["GET"],
    summary="Get metrics for page access user (paginated)",
    response="MetricOut",
    many=True,
    query="Pagination",
)
def list_page_access_user_metrics(request: ApiRequest):
    page, user = _found(request, USERS_KIND)
    mine = page_access.granted_metrics(page.id, user)
    return [metric_out(metric) for metric in paginate(mine, request.query)]


def _named(name: str, handler):
    """A handler made per holder gets its own name: routes are registered by name."""
    handler.__name__ = handler.__qualname__ = name
    return handler


def _register_grants(kind: Kind, field: str, given: str, to_remove: str) -> None:
    """POST replaces, PATCH/PUT add, DELETE removes (listed, or all) a holder's `field`."""
    holder, response = kind.name, kind.response
    path = kind.path + ("/components" if field == COMPONENTS else "/metrics")
    what = "components" if field == COMPONENTS else "metrics"
    one = "component_id" if field == COMPONENTS else "metric_id"

    def replace(request: ApiRequest):
        ids_given = getattr(request.parse(), field)
        return _created(request, _grant(request, kind, field, Grant.REPLACE, ids_given))

    def add(request: ApiRequest):
        return _grant(request, kind, field, Grant.ADD, getattr(request.parse(), field))

    def remove(request: ApiRequest):
        ids_given = None if request.archived else getattr(request.parse(), field)
        return _grant(request, kind, field, Grant.REMOVE, ids_given)

    def remove_one(request: ApiRequest):
        page_access.require_on_page(request.page().id, field, request.params[one])
        return _grant(request, kind, field, Grant.REMOVE, [request.params[one]])

    name = f"page_access_{holder}_{what}"
    router.route(
        path,
        ["POST"],
        summary=f"Replace the {what} of a page access {holder}",
        body=given,
        response=response,
        status=201,
        answers=ARCHIVED_CREATED,
    )(_named(f"replace_{name}", replace))
    router.route(
        path,
        ["PATCH", "PUT"],
        summary=f"Add {what} to a page access {holder}",
        body=given,
        response=response,
    )(_named(f"add_{name}", add))
    router.route(
        path,
        ["DELETE"],
        summary=f"Remove {what} of a page access {holder}: those listed, or all "
        "(archived style: all)",
        body=to_remove,
        response=response,
    )(_named(f"remove_{name}", remove))
    router.route(
        f"{path}/{{{one}}}",
        ["DELETE"],
        summary=f"Remove one of the {what} of a page access {holder}",
        response=response,
    )(_named(f"remove_one_{name}", remove_one))


_register_grants(USERS_KIND, COMPONENTS, "ComponentIdsGiven", "ComponentIdsToRemove")
_register_grants(USERS_KIND, METRICS, "MetricIdsGiven", "MetricIdsToRemove")
_register_grants(GROUPS_KIND, COMPONENTS, "ComponentIdsGiven", "ComponentIdsToRemove")


# The component's side ----------------------------------------------------------------------


def _register_component_side(kind: Kind, given: str, field: str) -> None:
    holder, model = kind.name, kind.model
    path = f"{COMPONENT}/page_access_{holder}s"

    def admit(request: ApiRequest):
        page = request.page(PAGE_CONFIGURATION)
        ids_given = getattr(request.parse(), field)
        component_id = request.params["component_id"]
        written = page_access.admit(page.id, component_id, model, ids_given, field)
        return _created(request, component_out(written.records, written.record))

    def expel(request: ApiRequest):
        page = request.page(PAGE_CONFIGURATION)
        written = page_access.expel_all(page.id, request.params["component_id"], model)
        return component_out(written.records, written.record)

    router.route(
        path,
        ["POST"],
        summary=f"Add page access {holder}s to a component",
        body=given,
        response="ComponentOut",
        status=201,
        answers=ARCHIVED_CREATED,
    )(_named(f"add_page_access_{holder}s_to_component", admit))
    router.route(
        path,
        ["DELETE"],
        summary=f"Remove every page access {holder} from a component",
        response="ComponentOut",
    )(_named(f"remove_page_access_{holder}s_from_component", expel))


_register_component_side(USERS_KIND, "PageAccessUserIdsGiven", "page_access_user_ids")
_register_component_side(GROUPS_KIND, "PageAccessGroupIdsGiven", "page_access_group_ids")
