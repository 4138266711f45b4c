"""Changing an incident after the fact: its name and impact, the text of its updates, a
maintenance's window, cancelling a maintenance not yet begun, and deleting it (after a
confirmation, in a disclosure). Each form is the API's write, under the API's role:
`PATCH .../incidents/{id}` (`incident_role` of its kind), `PATCH .../incident_updates/{id}`
(`incident_manager`), `DELETE .../incidents/{id}`."""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.console.incidents import authorized_incident, incident_fields
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import incident_states as states
from chalicelib.domain import incidents, organizations, pages
from chalicelib.domain.inputs import or_none
from chalicelib.http import errors
from chalicelib.views.incidents import incident_out

INCIDENT = "/pages/{page_id}/incidents/{incident_id}"
# `impact_override` as the form offers it; empty clears it (the impact follows its components).
IMPACTS = {
    "": "From its components",
    "none": "None",
    "minor": "Minor",
    "major": "Major",
    "critical": "Critical",
}


@console_view(INCIDENT + "/edit")
def edit_incident(screen: Screen) -> Response:
    incident = authorized_incident(screen)
    page = screen.current_page
    record = incident.record
    return screen.render(
        "incident_edit.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        incident=incident_out(incident).model_dump(mode="json"),
        scheduled=record.scheduled,
        window_open=record.scheduled and record.status == "scheduled",
        impacts=IMPACTS,
        may_edit_updates=screen.may(page.id, organizations.INCIDENT_MANAGER),
        closed=record.status in states.CLOSED,
        # The update whose text was refused, when this screen is shown again for it.
        refused_update=screen.request.params.get("update_id") if screen.refused else None,
    )


@console_view(INCIDENT + "/edit", ("POST",), again=edit_incident)
def save_incident(screen: Screen) -> Response:
    """The name, the impact (`impact_override`; empty: from its components) and a scheduled
    maintenance's window; only a moved window appends an update, which notifies subscribers
    when "Notify subscribers of the new window" is ticked."""
    incident = authorized_incident(screen)
    form = screen.form.get("incident")
    if isinstance(form, dict):
        # A checkbox: left unticked, it is not posted at all.
        form.setdefault("deliver_notifications", "false")
    fields = incident_fields(screen, schemas.IncidentUpdate)
    if or_none(fields.status) is not None or or_none(fields.body) is not None:
        raise errors.unprocessable({"incident": ["post updates from the incident's screen"]})
    page_id = incident.record.page_id
    incidents.update_incident(page_id, incident.record.id, fields)
    return redirect(f"{BASE}/pages/{page_id}/incidents/{incident.record.id}?done=Changes+saved")


@console_view(INCIDENT + "/updates/{update_id}", ("POST",), again=edit_incident)
def save_update_text(screen: Screen) -> Response:
    """An update's text, as `PATCH .../incident_updates/{id}` edits it (no one notified)."""
    page_id, incident_id = screen.request.params["page_id"], screen.request.params["incident_id"]
    screen.page(page_id, organizations.INCIDENT_MANAGER)
    given = screen.form.get("incident_update")
    text = given.get("body") if isinstance(given, dict) else None
    if not text:
        raise errors.unprocessable({"body": ["can't be blank"]})
    body = {"incident_update": {"body": text}}
    changes = errors.validated(schemas.IncidentUpdateEdit, body, "incident_update")
    incidents.edit_update(
        page_id,
        incident_id,
        screen.request.params["update_id"],
        changes.incident_update.model_dump(exclude_unset=True, exclude_none=True),
    )
    return redirect(f"{BASE}/pages/{page_id}/incidents/{incident_id}?done=Update+text+saved")


@console_view(INCIDENT + "/delete", ("POST",))
def delete_incident(screen: Screen) -> Response:
    incident = authorized_incident(screen)
    page_id = incident.record.page_id
    incidents.delete_incident(page_id, incident.record.id)
    kind = "maintenances" if incident.record.scheduled else "incidents"
    done = "Maintenance+deleted" if incident.record.scheduled else "Incident+deleted"
    return redirect(f"{BASE}/pages/{page_id}/{kind}?done={done}")
