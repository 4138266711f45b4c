"""Monitoring in the console (issue 34): the page's alert integrations (create, edit, delete,
rotate the token of their URL) and the audit of what automation did on the page.

Every change is the API's: the forms post its field names (`integration[...]`), validated by
its schemas, written by its domain functions (`integrations.create_integration`, ...) under
its role (`page_configuration`). Two fields are maps keyed by what a user types, which a
form cannot name: a rule's labels are typed a `label=value` a line, and the severity map is
rows of a severity and a status; both are made into the API's maps before validation.

An integration's URL carries a token kept only as a hash: it is shown once, in the answer
that made it (create, rotate), never redirected to, with the configuration to paste.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

from chalice import Response

from chalicelib import config, schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import (
    automation_audit,
    checks,
    components,
    incident_templates,
    integrations,
)
from chalicelib.domain.alert_payloads import DEFAULT_SEVERITIES, KINDS, OTHER_SEVERITY
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.views.integrations import integration_out, receiver_url

INTEGRATIONS = "/pages/{page_id}/integrations"
INTEGRATION = INTEGRATIONS + "/{integration_id}"
AUTOMATION_EVENTS = "/pages/{page_id}/automation_events"
KIND_LABELS = {
    "alertmanager": "Prometheus Alertmanager",
    "grafana": "Grafana alerting",
    "generic": "Generic JSON",
    checks.SOURCE_KIND: "Check",
}
# What a severity may be mapped to (the schema's `OutageStatus`).
OUTAGE_STATUSES = ("degraded_performance", "partial_outage", "major_outage", "under_maintenance")
# Empty rows a form offers for new rules and severities, below those already set.
BLANK_ROWS = 2
# Number fields a blank leaves as they are (on create: their defaults).
_NUMBERS = ("hold_minutes", "min_firing_seconds", "rate_limit_per_minute")
# A blank expiry is the kind's default (the API's null).
_DEFAULTED = ("expire_after_minutes",)


def _page_id(screen: Screen) -> str:
    return screen.request.params["page_id"]


def _back(page_id: str, done: str) -> Response:
    return redirect(f"{BASE}{INTEGRATIONS.format(page_id=page_id)}?done={quote_plus(done)}")


def matchers_text(match: dict[str, str]) -> str:
    """A rule's labels as its form field shows them: `label=value`, a line each."""
    return "\n".join(f"{label}={value}" for label, value in match.items())


def _matchers(text: str) -> dict[str, str]:
    """A rule's form field as the API's `match`: `label=value`, a line each."""
    match = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        label, equals, value = line.partition("=")
        if not equals or not label.strip():
            raise errors.invalid("rules", f"{line.strip()[:40]!r}: write a label=value a line")
        match[label.strip()] = value.strip()
    return match


def _rules(rows: Any) -> Any:
    """The form's rule rows as the API's `rules`, leaving out rows left blank."""
    if not isinstance(rows, list):
        return rows  # not the form's rows: the schema says what is wrong
    rules = []
    for row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("match", ""), str):
            rules.append(row)
            continue
        text, component_id = row.get("match", ""), row.get("component_id", "")
        if text.strip() or component_id:
            rules.append({"match": _matchers(text), "component_id": component_id})
    return rules


def _severities(rows: Any) -> Any:
    """The form's severity rows (`severity`, `status`) as the API's `severities` map."""
    if not isinstance(rows, list):
        return rows
    severities = {}
    for row in rows:
        if not isinstance(row, dict):
            return rows
        severity = row.get("severity", "")
        if isinstance(severity, str) and severity.strip():
            severities[severity.strip()] = row.get("status", "")
    return severities


def _fields(screen: Screen) -> dict:
    """The form's `integration[...]` fields, as the API's body would give them."""
    fields = screen.form.get("integration")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"integration": ["is missing"]})
    if "rules" in fields:
        fields["rules"] = _rules(fields["rules"])
    if "severities" in fields:
        fields["severities"] = _severities(fields["severities"])
    for name in _NUMBERS:
        if fields.get(name) == "":
            del fields[name]
    for name in _DEFAULTED:
        if fields.get(name) == "":
            fields[name] = None
    if fields.get("incident_template_id") == "":
        fields["incident_template_id"] = None  # "None": no incident
    return fields


def _settings(parsed) -> dict:
    """The validated settings as the rules take them (plain values), as the API gives them."""
    return parsed.model_dump(exclude_unset=True)


def _choices(page_id: str) -> dict:
    """What the form offers: the components a rule may name (id: name), the page's templates."""
    records = components.components_of(page_id, consistent=True)
    return {
        "rule_components": {record.id: record.name for record in records if not record.group},
        "templates": sorted(
            incident_templates.templates_of(page_id), key=lambda each: each.name.lower()
        ),
        "kinds": KINDS,
        "kind_labels": KIND_LABELS,
        "outage_statuses": OUTAGE_STATUSES,
        "default_severities": DEFAULT_SEVERITIES,
        "other_severity": OTHER_SEVERITY,
        "blank_rows": BLANK_ROWS,
        "default_expiry": integrations.DEFAULT_EXPIRE_AFTER_MINUTES,
    }


@console_view(INTEGRATIONS)
def list_integrations(screen: Screen) -> Response:
    """The page's integrations and what each maps, for those who may configure the page;
    the others see where the audit is."""
    page = screen.page(_page_id(screen))
    can_write = screen.may(page.id, PAGE_CONFIGURATION)
    shown, names, templates = [], {}, {}
    if can_write:
        shown = [integration_out(each) for each in integrations.integrations_of(page.id)]
        shown.sort(key=lambda each: (each.name.lower(), each.created_at))
        names = {record.id: record.name for record in components.components_of(page.id)}
        templates = {each.id: each.name for each in incident_templates.templates_of(page.id)}
    return screen.render(
        "integrations.html",
        page=page_heading(page),
        integrations=shown,
        component_names=names,
        template_names=templates,
        can_write=can_write,
        done=screen.request.query.get("done", ""),
        **(_choices(page.id) if can_write else {"kind_labels": KIND_LABELS}),
    )


def _made(screen: Screen, made: integrations.Made, done: str) -> Response:
    """The integration's URL, in this answer only (never stored, never redirected to)."""
    return screen.render(
        "integrations_url.html",
        page=page_heading(screen.current_page),
        integration=integration_out(made.integration),
        url=receiver_url(made.token),
        token=made.token,
        bearer_url=config.public_base_url() + integrations.BEARER_PATH,
        kind_labels=KIND_LABELS,
        done=done,
    )


@console_view(INTEGRATIONS + "/new", ("POST",), again=list_integrations)
def create_integration(screen: Screen) -> Response:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    body = {"integration": _fields(screen)}
    parsed = errors.validated(schemas.IntegrationCreate, body, "integration").integration
    made = integrations.create_integration(page.id, **_settings(parsed))
    return _made(screen, made, "Integration added")


def _integration(screen: Screen) -> integrations.Integration:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    return integrations.get_integration(page.id, screen.request.params["integration_id"])


@console_view(INTEGRATION)
def show_integration(screen: Screen) -> Response:
    integration = integration_out(_integration(screen))
    return screen.render(
        "integrations_edit.html",
        page=page_heading(screen.current_page),
        integration=integration,
        matchers_text=matchers_text,
        **_choices(integration.page_id),
    )


@console_view(INTEGRATION, ("POST",), again=show_integration)
def update_integration(screen: Screen) -> Response:
    integration = _integration(screen)
    body = {"integration": _fields(screen)}
    parsed = errors.validated(schemas.IntegrationUpdate, body, "integration").integration
    integrations.update_integration(integration.page_id, integration.id, **_settings(parsed))
    return _back(integration.page_id, "Integration saved")


def _confirmation(screen: Screen, action: str) -> Response:
    """What `action` ("delete" or "rotate") breaks, and the button that does it."""
    return screen.render(
        "integrations_confirm.html",
        integration=integration_out(_integration(screen)),
        page=page_heading(screen.current_page),
        kind_labels=KIND_LABELS,
        action=action,
    )


@console_view(INTEGRATION + "/delete")
def confirm_delete(screen: Screen) -> Response:
    return _confirmation(screen, "delete")


@console_view(INTEGRATION + "/delete", ("POST",))
def delete_integration(screen: Screen) -> Response:
    integration = _integration(screen)
    integrations.delete_integration(integration.page_id, integration.id)
    return _back(integration.page_id, "Integration deleted; its URL no longer works")


@console_view(INTEGRATION + "/rotate")
def confirm_rotation(screen: Screen) -> Response:
    return _confirmation(screen, "rotate")


@console_view(INTEGRATION + "/rotate", ("POST",))
def rotate_token(screen: Screen) -> Response:
    integration = _integration(screen)
    made = integrations.rotate_token(integration.page_id, integration.id)
    return _made(screen, made, "New URL made; the old one no longer works")


def _source_labels(page_id: str, component_names: dict[str, str]) -> dict[str, str]:
    """Each automation source of the page (integration or check) as the audit names it (a
    check by its component: its URL may carry a token, and the audit is for every role)."""
    labels = {}
    for integration in integrations.integrations_of(page_id):
        kind = KIND_LABELS.get(integration.kind, integration.kind)
        labels[integration.id] = f"{kind}: {integration.name}" if integration.name else kind
    for check in checks.checks_of(page_id):
        labels[check.id] = f"Check of {component_names.get(check.component_id, 'a component')}"
    return labels


@console_view(AUTOMATION_EVENTS)
def list_automation_events(screen: Screen) -> Response:
    """The newest automation events of the page, as the API's audit lists them (anyone of
    the page reads it there too)."""
    page = screen.page(_page_id(screen))
    names = {record.id: record.name for record in components.components_of(page.id)}
    return screen.render(
        "automation_events.html",
        page=page_heading(page),
        events=automation_audit.recent(page.id),
        listed=automation_audit.LISTED,
        sources=_source_labels(page.id, names),
        kind_labels=KIND_LABELS,
        component_names=names,
    )
