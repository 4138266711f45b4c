"""The console's home (the user's pages) and a page's overview: its components with their
statuses, changed in one form, and its open incidents and maintenances."""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import components, incidents, organizations, pages
from chalicelib.http import errors


@console_view("")
def home(screen: Screen) -> Response:
    reachable = [
        page for page in pages.pages_of(screen.user.organization_id) if screen.may(page.id, None)
    ]
    if len(reachable) == 1:
        return redirect(f"{BASE}/pages/{reachable[0].id}")
    shown = [{"id": page.id, "name": pages.profile_of(page).get("name", "")} for page in reachable]
    return screen.render("home.html", pages=shown)


def _page_context(screen: Screen, page_id: str) -> dict:
    page = screen.page(page_id)
    records = components.components_of(page.id)
    open_records = incidents.open_records(page.id)
    return {
        "page": {"id": page.id, "name": pages.profile_of(page).get("name", "")},
        "components": records,
        "incidents": [record for record in open_records if not record.scheduled],
        "maintenances": [record for record in open_records if record.scheduled],
        "can": {
            "configure": screen.may(page.id, PAGE_CONFIGURATION),
            "incidents": screen.may(page.id, organizations.incident_role(False)),
            "maintenances": screen.may(page.id, organizations.incident_role(True)),
        },
    }


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
            fields = errors.validated(schemas.ComponentUpdate, body, "component").component
            components.update_component(page.id, component_id, fields)
            changed += 1
    done = f"{changed} component status{'es' if changed != 1 else ''} changed"
    return redirect(f"{BASE}/pages/{page.id}?done={done.replace(' ', '+')}")
