"""Incidents and maintenances in the console: open one (from scratch or from a template,
with the affected components and their statuses), post updates, resolve, follow up after;
schedule a maintenance with its automation flags and reminders. A form takes no component
another open incident holds unless chosen, and shows who holds it (`component_holds`).

The forms post the API's own field names (`incident[name]`, `incident[components][<id>]`),
validated by the API's schemas and written by the same domain functions; the role asked is
the API's (`organizations.incident_role`: maintenances need `maintenance_manager`, other
incidents `incident_manager`).
"""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import (
    component_choices,
    component_holds,
    incident_templates,
    incidents,
    organizations,
    pages,
    postmortems,
    subscribers,
)
from chalicelib.domain import incident_states as states
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.views.incidents import incident_out

# The form's time fields, read in the page's zone.
TIME_FIELDS = ("scheduled_for", "scheduled_until", "backfill_date")
# What the screen says once an update is posted, by the status it gave (else "Update posted").
DONE = {"resolved": "Incident+resolved", "completed": "Maintenance+completed"}
# The automation flags a maintenance form offers, each a checkbox, as the API names them.
MAINTENANCE_FLAGS = {
    "scheduled_remind_prior": "Remind subscribers 60 minutes before it starts",
    "scheduled_auto_in_progress": "Start it automatically at the scheduled time",
    "scheduled_auto_completed": "Complete it automatically at the scheduled end",
    "auto_transition_to_maintenance_state": "At the start, put its components under maintenance",
    "auto_transition_to_operational_state": "At the end, set its components back to operational",
    "auto_transition_deliver_notifications_at_start": "Notify subscribers when it starts",
    "auto_transition_deliver_notifications_at_end": "Notify subscribers when it ends",
}


def incident_fields(screen: Screen, schema: type) -> incidents.IncidentInput:
    """The form's `incident[...]` fields as the API would take them: a component left at
    "not affected" is not named; times are read in the zone of the page (`screen.page`
    first)."""
    fields = screen.form.get("incident")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"incident": ["is missing"]})
    _with_whole_groups(screen, fields)
    chosen = fields.get("components")
    if isinstance(chosen, dict):
        fields["components"] = {key: value for key, value in chosen.items() if value}
        if not fields["components"]:
            del fields["components"]
    for name in ("scheduled_for", "scheduled_until", "template_id", "reminder_intervals"):
        if fields.get(name) == "":
            del fields[name]
    for name in TIME_FIELDS:
        if isinstance(fields.get(name), str):
            fields[name] = screen.time_input(fields[name])
    body = errors.validated(schema, {"incident": fields}, "incident")
    return plain(body.incident, incidents.IncidentInput)


def _with_whole_groups(screen: Screen, fields: dict) -> None:
    """A group chosen whole (`whole_groups[]`), or given a status (`group_statuses[<id>]`),
    stands for each of its members, as the form's script would have chosen them."""
    whole = component_choices.ids_of(screen.form.get("whole_groups"))
    statuses = screen.form.get("group_statuses")
    statuses = statuses if isinstance(statuses, dict) else {}
    if not whole and not any(statuses.values()):
        return
    listed = component_choices.listed_of(screen.request.params["page_id"])
    if whole:
        chosen = fields.get("component_ids")
        fields["component_ids"] = component_choices.with_whole_groups(chosen, whole, listed)
    if any(statuses.values()):
        chosen = fields.get("components")
        chosen = {k: v for k, v in chosen.items() if v} if isinstance(chosen, dict) else {}
        given = {k: v for k, v in statuses.items() if isinstance(v, str)}
        fields["components"] = component_choices.statuses_with_whole_groups(chosen, given, listed)


def page_components(page_id: str) -> dict:
    """What an incident form shows of the page's components: its members to choose from, and
    them under their groups' headings."""
    listed = component_choices.listed_of(page_id)
    return {
        "components": [component for component in listed if not component["group"]],
        "sections": component_choices.sections(listed),
    }


def _form_context(screen: Screen, page_id: str, scheduled: bool) -> dict:
    page = screen.page(page_id, organizations.incident_role(scheduled))
    templates = incident_templates.templates_of(page.id) if not scheduled else []
    chosen = screen.request.query.get("template_id", "")
    template = next((t for t in templates if t.id == chosen), None)
    return {
        "page": {"id": page.id, "name": pages.profile_of(page).get("name", "")},
        **page_components(page.id),
        "preselected": component_holds.preselected_for_new(
            template.component_ids if template else None
        ),
        "holds": component_holds.held_elsewhere(page.id),
        "unset_label": "Not affected",
        "templates": templates,
        "template": template,
        "statuses": states.statuses_of(scheduled),
        "flags": MAINTENANCE_FLAGS,
    }


@console_view("/pages/{page_id}/incidents/new")
def new_incident(screen: Screen) -> Response:
    context = _form_context(screen, screen.request.params["page_id"], scheduled=False)
    return screen.render("incident_new.html", **context)


@console_view("/pages/{page_id}/maintenances/new")
def new_maintenance(screen: Screen) -> Response:
    context = _form_context(screen, screen.request.params["page_id"], scheduled=True)
    return screen.render("maintenance_new.html", **context)


def _new_form(screen: Screen, typed: dict) -> tuple[str, dict]:
    """The form a new incident or maintenance was posted from (a maintenance's has its
    window), to show again."""
    given = typed.get("incident") if isinstance(typed.get("incident"), dict) else {}
    scheduled = given.get("status") == "scheduled" or "scheduled_for" in given
    context = _form_context(screen, screen.request.params["page_id"], scheduled)
    return ("maintenance_new.html" if scheduled else "incident_new.html"), context


@console_view("/pages/{page_id}/incidents", ("POST",), form=_new_form)
def create_incident(screen: Screen) -> Response:
    page_id = screen.request.params["page_id"]
    screen.page(page_id)
    fields = incident_fields(screen, schemas.IncidentCreate)
    screen.page(page_id, organizations.incident_role(incidents.is_scheduled(fields)))
    created = incidents.create_incident(page_id, fields)
    return redirect(f"{BASE}/pages/{page_id}/incidents/{created.record.id}")


@console_view("/pages/{page_id}/incidents/{incident_id}")
def show_incident(screen: Screen) -> Response:
    page_id, incident_id = screen.request.params["page_id"], screen.request.params["incident_id"]
    page = screen.page(page_id)
    incident = incidents.get_incident(page.id, incident_id)
    scheduled = incident.record.scheduled
    shown = incident_out(incident).model_dump(mode="json")
    active = {kind: by_state["active"] for kind, by_state in subscribers.counts(page.id).items()}
    holds = component_holds.held_elsewhere(page.id, besides=incident.record.id)
    return screen.render(
        "incident.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        incident=shown,
        scheduled=scheduled,
        closed=incident.record.status in states.CLOSED,
        can_write=screen.may(page.id, organizations.incident_role(scheduled)),
        statuses=states.statuses_of(scheduled),
        **page_components(page.id),
        preselected=set(incident.record.component_ids or []),
        holds=holds,
        restorable=set(holds.restorable(incident.record.component_ids or [])),
        restored_status=component_holds.RESTORED_STATUS,
        unset_label="Unchanged",
        active_subscribers=active,
        has_postmortem=postmortems.postmortem_of(incident.record) is not None,
        may_postmortem=screen.may(page.id, organizations.INCIDENT_MANAGER) and not scheduled,
        done=screen.request.query.get("done", ""),
    )


def authorized_incident(screen: Screen) -> incidents.Incident:
    """The screen's incident, once the user is found to hold the API's role for its kind."""
    page_id, incident_id = screen.request.params["page_id"], screen.request.params["incident_id"]
    screen.page(page_id)
    existing = incidents.get_incident(page_id, incident_id)
    screen.page(page_id, organizations.incident_role(existing.record.scheduled))
    return existing


@console_view("/pages/{page_id}/incidents/{incident_id}", ("POST",), again=show_incident)
def update_incident(screen: Screen) -> Response:
    """Post an update (a status and/or a message, component statuses), or resolve; a
    resolved incident takes follow-ups too, its status kept unless another is chosen."""
    existing = authorized_incident(screen)
    page_id = existing.record.page_id
    fields = incident_fields(screen, schemas.IncidentUpdate)
    incidents.update_incident(page_id, existing.record.id, fields)
    done = DONE.get(fields.status, "Update+posted")
    if screen.form.get("cancelled") == "true":
        done = "Maintenance+cancelled"
    return redirect(f"{BASE}/pages/{page_id}/incidents/{existing.record.id}?done={done}")
