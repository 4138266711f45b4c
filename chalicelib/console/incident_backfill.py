"""Backfilling a past incident: its name, impact, when it began and was resolved (read in the
page's zone), what happened, the components it affected, and whether it counts in the uptime
bars (by its impact, from when it began until resolved: `domain.uptime`). It is the API's
create with `incident[backfilled]` and `incident[backfill_date]` (its start), so no one is
notified and no component's status changes; the domain adds the resolving update at its
time."""

from __future__ import annotations

from datetime import datetime

from chalice import Response

from chalicelib import schemas
from chalicelib.console.incident_edits import IMPACTS
from chalicelib.console.incidents import incident_fields, page_components
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import incidents, organizations, pages
from chalicelib.http import errors

BACKFILL = "/pages/{page_id}/incidents/backfill"
INCIDENT_MANAGER = organizations.incident_role(False)


@console_view(BACKFILL)
def backfill_form(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], INCIDENT_MANAGER)
    return screen.render(
        "incident_backfill.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        **page_components(page.id),
        impacts={value: label for value, label in IMPACTS.items() if value},
    )


def _resolved_at(screen: Screen) -> datetime:
    moment = screen.time_input(screen.form.get("resolved_at"))
    try:
        return datetime.fromisoformat((moment or "").replace("Z", "+00:00"))
    except ValueError:
        raise errors.unprocessable({"resolved_at": ["is not a date and time"]}) from None


@console_view(BACKFILL, ("POST",))
def backfill_incident(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], INCIDENT_MANAGER)
    form = screen.form.get("incident")
    if not isinstance(form, dict) or not form.get("backfill_date"):
        raise errors.unprocessable({"backfill_date": ["when it began is required"]})
    # Only the backfill's own fields: a past incident sets no component's status now.
    form.update(backfilled="true", status="investigating", deliver_notifications="false")
    form.pop("components", None)
    if not form.get("impact_override"):
        form.pop("impact_override", None)
    fields = incident_fields(screen, schemas.IncidentCreate)
    created = incidents.create_incident(
        page.id,
        fields,
        resolved_at=_resolved_at(screen),
        resolution=str(screen.form.get("resolution") or ""),
        # A checkbox: left unticked, the owner keeps it out of the uptime bars.
        in_uptime=screen.form.get("in_uptime") == "yes",
    )
    location = f"{BASE}/pages/{page.id}/incidents/{created.record.id}"
    return redirect(f"{location}?done=Past+incident+added")
