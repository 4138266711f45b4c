"""The team in the console: the organization's users and their roles on a page, and their
API keys (a new key is shown once, in the answer that made it; revoke). Anyone of the page
sees the team; changes are for owners, as the API's organization routes are."""

from __future__ import annotations

from chalice import Response

from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import organizations, pages
from chalicelib.http import auth, errors
from chalicelib.store.base import plain_dict
from chalicelib.store.models import User

TEAM = "/pages/{page_id}/team"
ROLE_LABELS = {
    "page_configuration": "Page configuration",
    organizations.INCIDENT_MANAGER: "Incidents",
    organizations.MAINTENANCE_MANAGER: "Maintenances",
}


def _member(screen: Screen) -> User:
    """The user the path names, of the signed-in owner's organization."""
    auth.require_owner(auth.Principal("console-session", screen.user))
    user = organizations.find_user(screen.user.organization_id, screen.request.params["user_id"])
    if user is None:
        raise errors.not_found()
    return user


def _team(screen: Screen, new_key: dict | None = None) -> Response:
    page = screen.page(screen.request.params["page_id"])
    members = []
    for user in organizations.users_of(page.organization_id):
        roles = plain_dict(user.page_roles).get(page.id)
        members.append(
            {
                "id": user.id,
                "email": user.email,
                "owner": user.owner,
                "reaches": user.owner or roles is not None,
                # A page mapped to {} is full access: every role.
                "roles": {r: (not roles) or bool(roles.get(r)) for r in ROLE_LABELS},
                "keys": organizations.keys_of(user) if screen.user.owner else [],
            }
        )
    return screen.render(
        "team.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        members=members,
        role_labels=ROLE_LABELS,
        is_owner=screen.user.owner,
        new_key=new_key,
    )


@console_view(TEAM)
def show_team(screen: Screen) -> Response:
    return _team(screen)


@console_view(TEAM + "/{user_id}/roles", ("POST",))
def set_roles(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    user = _member(screen)
    chosen = screen.form.get("roles") if isinstance(screen.form.get("roles"), dict) else {}
    if screen.form.get("access") != "true":
        organizations.set_roles_on_page(user, page.id, None)
    else:
        roles = {role: chosen.get(role) == "true" for role in ROLE_LABELS}
        organizations.set_roles_on_page(user, page.id, roles)
    return redirect(f"{BASE}/pages/{page.id}/team")


@console_view(TEAM + "/{user_id}/keys", ("POST",))
def create_key(screen: Screen) -> Response:
    """The key is in this answer only (never stored, never redirected to)."""
    user = _member(screen)
    key = organizations.create_api_key(user)
    return _team(screen, {"email": user.email, "key": key})


@console_view(TEAM + "/{user_id}/keys/{key_hash}/revoke", ("POST",))
def revoke_key(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    organizations.revoke_api_key(_member(screen), screen.request.params["key_hash"])
    return redirect(f"{BASE}/pages/{page.id}/team")
