"""Organization users and permissions (SPEC 4.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.domain import organizations, pages
from chalicelib.domain.organizations import ROLES
from chalicelib.http import errors
from chalicelib.http.auth import require_organization, require_owner
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import paginate
from chalicelib.http.routing import ApiRequest, Router

if TYPE_CHECKING:
    from chalicelib.store.models import User

blueprint = Blueprint(__name__)
router = Router(blueprint, "organizations")
USERS = "/v1/organizations/{organization_id}/users"
USER = USERS + "/{user_id}"
PERMISSIONS = "/v1/organizations/{organization_id}/permissions/{user_id}"


def user_out(user: User) -> schemas.UserOut:
    return schemas.UserOut(
        id=user.id,
        organization_id=user.organization_id,
        email=user.email,
        first_name=user.first_name,
        last_name=user.last_name,
        created_at=clock.iso(user.created_at),
        updated_at=clock.iso(user.updated_at),
    )


def _organization_user(request: ApiRequest) -> User:
    require_organization(request.principal, request.params["organization_id"])
    user = organizations.find_user(request.params["organization_id"], request.params["user_id"])
    if user is None:
        raise errors.not_found()
    return user


def permissions_out(user: User) -> schemas.PermissionsOut:
    if user.owner:
        reachable = {page.id: {} for page in pages.pages_of(user.organization_id)}
    else:
        reachable = organizations.page_roles_of(user)
    return schemas.PermissionsOut(
        user_id=user.id,
        pages=[
            schemas.PagePermissionOut(
                page_id=page_id,
                **{role: not roles or bool(roles.get(role)) for role in ROLES},
            )
            for page_id, roles in reachable.items()
        ],
    )


@router.route(
    USERS, ["GET"], summary="List users", response="UserOut", many=True, query="Pagination"
)
def list_users(request: ApiRequest):
    require_organization(request.principal, request.params["organization_id"])
    users = organizations.users_of(request.params["organization_id"])
    return [user_out(user) for user in paginate(users, request.query)]


@router.route(
    USERS, ["POST"], summary="Create a user", body="UserCreate", response="UserOut", status=201
)
def create_user(request: ApiRequest):
    organization_id = request.params["organization_id"]
    require_organization(request.principal, organization_id)
    require_owner(request.principal)
    fields = plain(request.parse().user, organizations.UserInput)
    return user_out(organizations.add_user(organization_id, fields))


@router.route(USER, ["DELETE"], summary="Delete a user", response="UserOut")
def delete_user(request: ApiRequest):
    user = _organization_user(request)
    require_owner(request.principal)
    organizations.delete_user(user, by=request.principal.user)
    return user_out(user)


@router.route(PERMISSIONS, ["GET"], summary="Get a user's permissions", response="PermissionsOut")
def get_permissions(request: ApiRequest):
    return permissions_out(_organization_user(request))


@router.route(
    PERMISSIONS,
    ["PUT", "PATCH"],
    summary="Set a user's permissions",
    body="PermissionsUpdate",
    response="PermissionsOut",
)
def update_permissions(request: ApiRequest):
    user = _organization_user(request)
    require_owner(request.principal)
    # SPEC 4.1: a body whose `pages` is not a map of page ids to objects is a bad request.
    pages_given = request.body.get("pages")
    if not isinstance(pages_given, dict) or not all(
        isinstance(roles, dict) for roles in pages_given.values()
    ):
        raise errors.bad_request()
    body = request.parse()
    known = {page.id for page in pages.pages_of(user.organization_id)}
    if not set(body.pages) <= known:
        raise errors.not_found()
    page_roles = {
        page_id: roles.model_dump(exclude_none=True) for page_id, roles in body.pages.items()
    }
    return permissions_out(organizations.set_page_roles(user, page_roles))
