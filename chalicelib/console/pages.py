"""The console's home (the user's pages, and a new one), and a page's overview: its components
with their statuses, changed in one form, and its open incidents and maintenances.

A page is created as the API's `POST /v1/pages` creates it: by an owner of the organization,
its fields validated by `PageCreate`, written by `pages.create_page`."""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.console.components import nested
from chalicelib.console.settings import time_zones
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import component_groups, components, incidents, organizations, pages
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import auth, errors
from chalicelib.http.inputs import plain

NEW_PAGE = "/pages/new"
# What the form asks of a new page; the API takes every page field, the rest are in Settings.
NEW_PAGE_FIELDS = ("name", "subdomain", "domain", "url", "time_zone")


def may_create_pages(screen: Screen) -> bool:
    """The API's rule for `POST /v1/pages`: owners of the organization create pages."""
    return bool(screen.user.owner)


@console_view("")
def home(screen: Screen) -> Response:
    reachable = [
        page for page in pages.pages_of(screen.user.organization_id) if screen.may(page.id, None)
    ]
    if len(reachable) == 1:
        # Nothing to choose between: its overview offers a new page to whoever may make one.
        return redirect(f"{BASE}/pages/{reachable[0].id}")
    shown = [{"id": page.id, "name": pages.profile_of(page).get("name", "")} for page in reachable]
    shown.sort(key=lambda page: page["name"].casefold())
    return screen.render("home.html", pages=shown, can_create=may_create_pages(screen))


@console_view(NEW_PAGE)
def new_page_form(screen: Screen) -> Response:
    auth.require_owner(auth.Principal("console-session", screen.user))
    return screen.render("page_new.html", time_zones=time_zones())


@console_view(NEW_PAGE, ("POST",), again=new_page_form)
def create_page(screen: Screen) -> Response:
    auth.require_owner(auth.Principal("console-session", screen.user))
    given = screen.form.get("page")
    if not isinstance(given, dict):
        raise errors.unprocessable({"page": ["is missing"]})
    # An optional field left blank is not sent, as an API client leaves it out.
    fields = {name: given[name] for name in NEW_PAGE_FIELDS if given.get(name) not in (None, "")}
    body = errors.validated(schemas.PageCreate, {"page": fields}, "page")
    page = pages.create_page(screen.user.organization_id, plain(body.page, pages.PageInput))
    return redirect(f"{BASE}/pages/{page.id}?done=Page+created")


def _page_context(screen: Screen, page_id: str) -> dict:
    page = screen.page(page_id)
    records = components.components_of(page.id)
    open_records = incidents.open_records(page.id)
    return {
        "page": {"id": page.id, "name": pages.profile_of(page).get("name", "")},
        "rows": _rows(records),
        "incidents": [record for record in open_records if not record.scheduled],
        "maintenances": [record for record in open_records if record.scheduled],
        "can": {
            "configure": screen.may(page.id, PAGE_CONFIGURATION),
            "incidents": screen.may(page.id, organizations.incident_role(False)),
            "maintenances": screen.may(page.id, organizations.incident_role(True)),
            "create_pages": may_create_pages(screen),
        },
    }


def _rows(records: list) -> list[tuple[object, bool, str]]:
    """The component table's rows in the public page's order, each group followed by its
    members: (record, whether it is a member, its status as the public page shows it)."""
    rows = []
    for entry in nested(records):
        members = [member["record"] for member in entry["members"]]
        status = entry["record"].status
        if entry["record"].group:
            status = component_groups.shown_status(member.status for member in members)
        rows.append((entry["record"], False, status))
        rows += [(member, True, member.status) for member in members]
    return rows


@console_view("/pages/{page_id}")
def page_overview(screen: Screen) -> Response:
    context = _page_context(screen, screen.request.params["page_id"])
    return screen.render("page.html", done=screen.request.query.get("done", ""), **context)


@console_view("/pages/{page_id}/components", ("POST",))
def change_statuses(screen: Screen) -> Response:
    """Each component whose status the form changes is updated as the API's component
    update does it (one write each: a status change notifies its own subscribers)."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    wanted = screen.form.get("status")
    if not isinstance(wanted, dict):
        raise errors.unprocessable({"status": ["choose a status for each component"]})
    current = {record.id: record.status for record in components.components_of(page.id)}
    changed = 0
    for component_id, status in wanted.items():
        if component_id in current and status != current[component_id]:
            body = {"component": {"status": status}}
            parsed = errors.validated(schemas.ComponentUpdate, body, "component").component
            fields = plain(parsed, components.ComponentInput)
            components.update_component(page.id, component_id, fields)
            changed += 1
    done = f"{changed} component status{'es' if changed != 1 else ''} changed"
    return redirect(f"{BASE}/pages/{page.id}?done={done.replace(' ', '+')}")
