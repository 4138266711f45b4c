"""Incident templates in the console: list, create, edit, delete. The new-incident form
starts from them (`console/incidents.py`). The forms post the API's field names
(`template[...]`), validated by its schema (`IncidentTemplateCreate`) and written by the
domain's functions, under the API's role for templates (`incident_manager`).
"""

from __future__ import annotations

from urllib.parse import quote_plus

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import components, incident_templates, organizations
from chalicelib.domain import incident_states as states
from chalicelib.http import errors
from chalicelib.http.inputs import plain

TEMPLATES = "/pages/{page_id}/templates"
TEMPLATE = TEMPLATES + "/{template_id}"
ROLE = organizations.INCIDENT_MANAGER
# Choices left blank mean "none" to the API, which takes them as absent.
_BLANK_MEANS_NONE = ("group_id", "update_status")


def _context(screen: Screen, role: str | None = None) -> dict:
    page = screen.page(screen.request.params["page_id"], role)
    records = components.components_of(page.id, consistent=True)
    return {
        "page": page_heading(page),
        "components": [record for record in records if not record.group],
        "groups": [record for record in records if record.group],
        "statuses": states.REALTIME + states.SCHEDULED,
        "can_write": screen.may(page.id, ROLE),
    }


def _values(screen: Screen, should_tweet: bool = False) -> incident_templates.TemplateInput:
    """The form's `template[...]` fields as the API takes them, every field of a template.
    The service posts to no Twitter, so the form offers no `should_tweet`: the API's field
    keeps the value it has (`should_tweet`)."""
    fields = screen.form.get("template")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"template": ["is missing"]})
    fields["should_tweet"] = should_tweet
    for name in _BLANK_MEANS_NONE:
        if fields.get(name) == "":
            del fields[name]
    body = errors.validated(schemas.IncidentTemplateCreate, {"template": fields}, "template")
    return plain(body.template, incident_templates.TemplateInput)


def _back(page_id: str, done: str) -> Response:
    return redirect(f"{BASE}{TEMPLATES.format(page_id=page_id)}?done={quote_plus(done)}")


@console_view(TEMPLATES)
def list_templates(screen: Screen) -> Response:
    context = _context(screen)
    templates = sorted(
        incident_templates.templates_of(context["page"]["id"]), key=lambda t: t.name.lower()
    )
    done = screen.request.query.get("done", "")
    return screen.render("templates_list.html", templates=templates, done=done, **context)


@console_view(TEMPLATES + "/new", ("POST",), again=list_templates)
def create_template(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], ROLE)
    incident_templates.create_template(page.id, _values(screen))
    return _back(page.id, "Template added")


@console_view(TEMPLATE)
def show_template(screen: Screen) -> Response:
    context = _context(screen, ROLE)
    template_id = screen.request.params["template_id"]
    template = incident_templates.get_template(context["page"]["id"], template_id)
    return screen.render("template_edit.html", template=template, **context)


@console_view(TEMPLATE, ("POST",), again=show_template)
def update_template(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], ROLE)
    template_id = screen.request.params["template_id"]
    kept = incident_templates.get_template(page.id, template_id).should_tweet
    fields = _values(screen, should_tweet=bool(kept))
    incident_templates.update_template(page.id, template_id, fields)
    return _back(page.id, "Template saved")


@console_view(TEMPLATE + "/delete", ("POST",))
def delete_template(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], ROLE)
    incident_templates.delete_template(page.id, screen.request.params["template_id"])
    return _back(page.id, "Template deleted")
