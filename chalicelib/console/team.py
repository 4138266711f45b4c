"""The team in the console: the organization's users and their roles on a page, and their
API keys (a new key is shown once, in the answer that made it; revoke). Owners add users
(with a one-time password, shown once as the admin tool prints it) and delete them. Anyone
of the page sees the team; changes are for owners, as the API's organization routes are,
and are made by the same domain functions (`organizations.add_user`, `delete_user`)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, confirmation, confirmed, console_view, redirect
from chalicelib.domain import credentials, organizations, pages
from chalicelib.http import auth, errors
from chalicelib.http.inputs import plain

if TYPE_CHECKING:
    from chalicelib.store.models import User  # annotations only: read by the domain

TEAM = "/pages/{page_id}/team"
ROLE_LABELS = {
    organizations.PAGE_CONFIGURATION: "Page configuration",
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


def _chosen_roles(form: dict) -> dict[str, bool] | None:
    """The roles on the page a form's checkboxes choose; None: the page is not reached."""
    if form.get("access") != "true":
        return None
    chosen = form.get("roles") if isinstance(form.get("roles"), dict) else {}
    return {role: chosen.get(role) == "true" for role in ROLE_LABELS}


def _back(page_id: str, done: str) -> Response:
    return redirect(f"{BASE}{TEAM.format(page_id=page_id)}?{urlencode({'done': done})}")


def _team(screen: Screen, new_key: dict | None = None, new_user: dict | None = None) -> Response:
    page = screen.page(screen.request.params["page_id"])
    members = []
    for user in organizations.users_of(page.organization_id):
        roles = organizations.page_roles_of(user).get(page.id)
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
        new_user=new_user,
        done=screen.request.query.get("done", ""),
    )


@console_view(TEAM)
def show_team(screen: Screen) -> Response:
    return _team(screen)


@console_view(TEAM + "/{user_id}/roles", ("POST",), again=show_team)
def set_roles(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    user = _member(screen)
    organizations.set_roles_on_page(user, page.id, _chosen_roles(screen.form))
    return _back(page.id, f"Roles saved for {user.email}")


@console_view(TEAM + "/new", ("POST",), again=show_team)
def add_user(screen: Screen) -> Response:
    """A new user of the organization, with its roles on this page. Its one-time password
    is in this answer only (only its hash is kept)."""
    page = screen.page(screen.request.params["page_id"])
    auth.require_owner(auth.Principal("console-session", screen.user))
    password = credentials.new_one_time_password()
    given = screen.form.get("user") if isinstance(screen.form.get("user"), dict) else {}
    body = {"user": {**given, "password": password}}
    parsed = errors.validated(schemas.UserCreate, body, "user").user
    fields = plain(parsed, organizations.UserInput)
    user = organizations.add_user(page.organization_id, fields, one_time_password=True)
    organizations.set_roles_on_page(user, page.id, _chosen_roles(screen.form))
    return _team(screen, new_user={"email": user.email, "password": password})


@console_view(TEAM + "/{user_id}/delete", ("GET", "POST"))
def delete_user(screen: Screen) -> Response:
    """Shown first as a confirmation naming the user; posted from there, deleted."""
    page = screen.page(screen.request.params["page_id"])
    user = _member(screen)
    if not confirmed(screen):
        team = TEAM.format(page_id=page.id)
        return confirmation(
            screen,
            page,
            action=f"{team}/{user.id}/delete",
            question=f"Delete the user {user.email} from the whole organization?",
            consequence=(
                f"{user.email} can no longer sign in, on any page of the organization, and"
                " their API keys stop working. This cannot be undone."
            ),
            button=f"Delete {user.email}",
            cancel=team,
        )
    organizations.delete_user(user, by=screen.user)
    return _back(page.id, f"Deleted {user.email}")


@console_view(TEAM + "/{user_id}/keys", ("POST",), again=show_team)
def create_key(screen: Screen) -> Response:
    """The key is in this answer only (never stored, never redirected to)."""
    user = _member(screen)
    key = organizations.create_api_key(user)
    return _team(screen, {"email": user.email, "key": key})


@console_view(TEAM + "/{user_id}/keys/{key_hash}/revoke", ("GET", "POST"))
def revoke_key(screen: Screen) -> Response:
    """Shown first as a confirmation naming the key; posted from there, revoked."""
    page = screen.page(screen.request.params["page_id"])
    user = _member(screen)
    key_hash = screen.request.params["key_hash"]
    if not confirmed(screen):
        key = next((k for k in organizations.keys_of(user) if k.key_hash == key_hash), None)
        if key is None:
            raise errors.not_found()
        team = TEAM.format(page_id=page.id)
        return confirmation(
            screen,
            page,
            action=f"{team}/{user.id}/keys/{key_hash}/revoke",
            question=f"Revoke the API key {key_hash[:10]} of {user.email}?",
            consequence=(
                f"Requests made with this key (fingerprint {key_hash[:10]}) are refused at"
                " once. This cannot be undone: a new key can be made, to be given out again."
            ),
            button="Revoke the key",
            cancel=team,
        )
    organizations.revoke_api_key(user, key_hash)
    return _back(page.id, f"Revoked a key of {user.email}")
