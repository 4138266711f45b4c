"""Page access in the console (SPEC 2.5, 2.6, 4.4, 4.5): who may view an audience-specific page
and what each of them sees. The page's audience settings, its page access users (listed by
pages, filtered by email) and groups: add, edit, remove, and a group's members.

Every change is the API's: the forms post its field names (`page_access_user[...]`,
`page_access_group[...]`, `page[...]`), validated by its schemas and written by its domain
functions (`access_subscriptions.create_user`, `page_access.create`, `update`, `delete`,
`pages.update_page`), under its role (`page_configuration`), which the lists need too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import access_subscriptions, components, metrics, page_access, pages
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import MAX_PAGE_NUMBER

if TYPE_CHECKING:
    from chalicelib.store.models import Page  # annotations only: pages come from the domain

ACCESS = "/pages/{page_id}/access"
USER = ACCESS + "/users/{user_id}"
GROUP = ACCESS + "/groups/{group_id}"
PER_SCREEN = 50
# A user's form offers every group as a checkbox: a page has a handful, read up to this.
GROUPS_TO_CHOOSE_FROM = 1000
# The page fields that decide who sees the page, as the API names them.
AUDIENCE_FLAGS = {
    "audience_specific": "Audience-specific: only page access users who sign in see the page, "
    "each the components and metrics granted to them",
    "viewers_must_be_team_members": "Private: only the organization's team sees the page "
    "(this wins over audience-specific)",
    "hidden_from_search": "Hide the page from search engines",
}


def _page(screen: Screen) -> Page:
    return screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)


def _number(screen: Screen, name: str) -> int:
    """A 1-based screen number from the query (anything else: the first)."""
    given = screen.request.query.get(name, "")
    return min(int(given), MAX_PAGE_NUMBER) if given.isdigit() and int(given) >= 1 else 1


def _screenful(read: Callable[[int], list], number: int) -> tuple[list, bool]:
    """The `number`th screenful of what `read(limit)` lists from its start, and whether
    another follows (one more is read to know)."""
    found = read(number * PER_SCREEN + 1)
    return found[(number - 1) * PER_SCREEN : number * PER_SCREEN], len(found) > number * PER_SCREEN


def _back(page_id: str, done: str, path: str = ACCESS, **ids: str) -> Response:
    where = path.format(page_id=page_id, **ids)
    return redirect(f"{BASE}{where}?{urlencode({'done': done})}")


def _choices(page_id: str) -> dict:
    """What a user or group may be granted: the page's components and metrics."""
    return {
        "components": components.components_of(page_id, consistent=True),
        "metrics": metrics.metrics_of(page_id, consistent=True),
    }


def _who(user) -> str:
    return user.email or user.external_login or user.id


@console_view(ACCESS)
def show_access(screen: Screen) -> Response:
    page = _page(screen)
    email = screen.request.query.get("email", "").strip()
    user_number, group_number = _number(screen, "page"), _number(screen, "groups_page")
    users, more_users = _screenful(
        lambda limit: page_access.users_of(page.id, limit, email or None), user_number
    )
    groups, more_groups = _screenful(
        lambda limit: page_access.groups_of(page.id, limit), group_number
    )
    every_group = page_access.groups_of(page.id, GROUPS_TO_CHOOSE_FROM)
    group_names = {group.id: group.name for group in every_group}
    return screen.render(
        "access.html",
        page=page_heading(page),
        profile=pages.profile_of(page),
        flags=AUDIENCE_FLAGS,
        users=[
            {
                "record": user,
                "who": _who(user),
                "groups": [group_names.get(g, g) for g in page_access.members(user)],
                "components": len(page_access.granted(user, page_access.COMPONENTS)),
                "metrics": len(page_access.granted(user, page_access.METRICS)),
            }
            for user in users
        ],
        groups=[
            {
                "record": group,
                "members": len(page_access.members(group)),
                "components": len(page_access.granted(group, page_access.COMPONENTS)),
                "metrics": len(page_access.granted(group, page_access.METRICS)),
            }
            for group in groups
        ],
        every_group=every_group,
        email=email,
        user_number=user_number,
        more_users=more_users,
        group_number=group_number,
        more_groups=more_groups,
        chosen={"components": [], "metrics": [], "groups": []},
        done=screen.request.query.get("done", ""),
        **_choices(page.id),
    )


@console_view(ACCESS + "/audience", ("POST",), again=show_access)
def save_audience(screen: Screen) -> Response:
    """The audience flags alone (a forged field of another kind is not this screen's)."""
    page = _page(screen)
    given = screen.form.get("page") if isinstance(screen.form.get("page"), dict) else {}
    fields = {name: value for name, value in given.items() if name in AUDIENCE_FLAGS}
    body = errors.validated(schemas.PageUpdate, {"page": fields}, "page")
    pages.update_page(page, plain(body.page, pages.PageInput))
    return _back(page.id, "Audience saved")


def _fields(screen: Screen, wrapper: str, schema: type):
    """The form's `wrapper[...]` fields, validated by the API's `schema`."""
    given = screen.form.get(wrapper)
    if not isinstance(given, dict):
        raise errors.unprocessable({wrapper: ["is missing"]})
    # A blank text field is one left empty: not sent, as the API's clients leave it out.
    given = {name: value for name, value in given.items() if value != ""}
    return getattr(errors.validated(schema, {wrapper: given}, wrapper), wrapper)


@dataclass(frozen=True)
class Kind:
    """Users or groups: what their screens need to know."""

    model: type
    fields: type  # what the rules take of a body
    wrapper: str  # the API's body key
    path: str
    parameter: str
    update_schema_name: str  # the API's schema of an update, named: schemas load on first use
    named: Callable[[object], str]  # how a notice names one

    @property
    def update_schema(self) -> type:
        return getattr(schemas, self.update_schema_name)


USERS = Kind(
    page_access.USER,
    page_access.UserInput,
    "page_access_user",
    USER,
    "user_id",
    "PageAccessUserUpdate",
    _who,
)
GROUPS = Kind(
    page_access.GROUP,
    page_access.GroupInput,
    "page_access_group",
    GROUP,
    "group_id",
    "PageAccessGroupUpdate",
    lambda group: f"the group {group.name}",
)


def _holder(screen: Screen, kind: Kind) -> tuple[Page, object]:
    page = _page(screen)
    holder_id = screen.request.params[kind.parameter]
    return page, page_access.get(kind.model, page.id, holder_id, consistent=True)


def _granted(holder) -> dict:
    return {
        "components": page_access.granted(holder, page_access.COMPONENTS),
        "metrics": page_access.granted(holder, page_access.METRICS),
    }


def _update(screen: Screen, kind: Kind) -> Response:
    page = _page(screen)
    holder_id = screen.request.params[kind.parameter]
    fields = plain(_fields(screen, kind.wrapper, kind.update_schema), kind.fields)
    holder = page_access.update(page.id, kind.model, holder_id, fields)
    return _back(page.id, f"Saved {kind.named(holder)}", kind.path, **{kind.parameter: holder_id})


def _delete(screen: Screen, kind: Kind) -> Response:
    page = _page(screen)
    holder = page_access.delete(page.id, kind.model, screen.request.params[kind.parameter])
    return _back(page.id, f"Removed {kind.named(holder)}")


# Users -------------------------------------------------------------------------------------


@console_view(ACCESS + "/users", ("POST",), again=show_access)
def add_user(screen: Screen) -> Response:
    page = _page(screen)
    body = _fields(screen, "page_access_user", schemas.PageAccessUserCreate)
    user = access_subscriptions.create_user(page.id, plain(body, page_access.UserInput))
    return _back(page.id, f"Added {_who(user)}")


@console_view(USER)
def show_user(screen: Screen) -> Response:
    page, user = _holder(screen, USERS)
    return screen.render(
        "access_user.html",
        page=page_heading(page),
        user_record=user,
        who=_who(user),
        every_group=page_access.groups_of(page.id, GROUPS_TO_CHOOSE_FROM),
        chosen={**_granted(user), "groups": set(page_access.members(user))},
        done=screen.request.query.get("done", ""),
        **_choices(page.id),
    )


@console_view(USER, ("POST",), again=show_user)
def update_user(screen: Screen) -> Response:
    return _update(screen, USERS)


@console_view(USER + "/delete", ("POST",))
def delete_user(screen: Screen) -> Response:
    return _delete(screen, USERS)


# Groups ------------------------------------------------------------------------------------


@console_view(ACCESS + "/groups", ("POST",), again=show_access)
def add_group(screen: Screen) -> Response:
    page = _page(screen)
    body = _fields(screen, "page_access_group", schemas.PageAccessGroupCreate)
    group = page_access.create(page.id, page_access.GROUP, plain(body, page_access.GroupInput))
    return _back(page.id, f"Created the group {group.name}", GROUP, group_id=group.id)


@console_view(GROUP)
def show_group(screen: Screen) -> Response:
    page, group = _holder(screen, GROUPS)
    member_ids = page_access.members(group)
    found = page_access.users_named(page.id, member_ids)
    return screen.render(
        "access_group.html",
        page=page_heading(page),
        group=group,
        members=[{"id": i, "who": _who(found[i])} for i in member_ids if i in found],
        chosen=_granted(group),
        done=screen.request.query.get("done", ""),
        **_choices(page.id),
    )


@console_view(GROUP, ("POST",), again=show_group)
def update_group(screen: Screen) -> Response:
    return _update(screen, GROUPS)


@console_view(GROUP + "/delete", ("POST",))
def delete_group(screen: Screen) -> Response:
    return _delete(screen, GROUPS)


@console_view(GROUP + "/members", ("POST",), again=show_group)
def add_member(screen: Screen) -> Response:
    """A page access user, named by its email, joins the group."""
    page = _page(screen)
    group_id = screen.request.params["group_id"]
    email = screen.form.get("email")
    user = page_access.user_by_email(page.id, email) if isinstance(email, str) else None
    if user is None:
        raise errors.unprocessable({"email": ["is not a page access user of this page"]})
    page_access.set_membership(page.id, group_id, user.id, member=True)
    return _back(page.id, f"Added {_who(user)} to the group", GROUP, group_id=group_id)


@console_view(GROUP + "/members/{user_id}/remove", ("POST",))
def remove_member(screen: Screen) -> Response:
    page = _page(screen)
    group_id = screen.request.params["group_id"]
    user = page_access.get(page_access.USER, page.id, screen.request.params["user_id"])
    page_access.set_membership(page.id, group_id, user.id, member=False)
    return _back(page.id, f"Took {_who(user)} out of the group", GROUP, group_id=group_id)
