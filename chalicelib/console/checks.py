"""Built-in checks in the console (issue 34, item 7): the page's components with their checks
(each with its last result and its response-time metric); a check created, edited and deleted
(after a confirmation).

Every change is the API's: the forms post its field names (`check[...]`), validated by its
schemas (`CheckCreate`, `CheckUpdate`), written by its domain functions
(`checks.create_check`, `update_check`, `delete_check`) under its role (`page_configuration`),
which alone sees checks: a check's URL may name an internal service or carry a token.
"""

from __future__ import annotations

import re
from urllib.parse import quote_plus

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import checks, components, metrics
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.views.checks import check_out

CHECKS = "/pages/{page_id}/checks"
COMPONENT_CHECKS = "/pages/{page_id}/components/{component_id}/checks"
CHECK = COMPONENT_CHECKS + "/{check_id}"
# Number fields a blank leaves as they are (on create: their defaults).
_NUMBERS = ("timeout_seconds", "interval_seconds")
# Expected status codes are typed as a list: "200-299, 301".
_SEPARATORS = re.compile(r"[\s,;]+")


def _page_id(screen: Screen) -> str:
    return screen.request.params["page_id"]


def _back(page_id: str, done: str) -> Response:
    return redirect(f"{BASE}{CHECKS.format(page_id=page_id)}?done={quote_plus(done)}")


def _fields(screen: Screen) -> dict:
    """The form's `check[...]` fields, as the API's body would give them."""
    fields = screen.form.get("check")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"check": ["is missing"]})
    codes = fields.get("expected_status_codes")
    if isinstance(codes, str):
        fields["expected_status_codes"] = [code for code in _SEPARATORS.split(codes) if code]
    for name in _NUMBERS:
        if fields.get(name) == "":
            del fields[name]
    thresholds = fields.get("failure_thresholds")
    if isinstance(thresholds, dict):
        fields["failure_thresholds"] = {
            status: count for status, count in thresholds.items() if count != ""
        }
    return fields


def _checked_fields(screen: Screen, schema: type) -> checks.CheckFields:
    parsed = errors.validated(schema, {"check": _fields(screen)}, "check").check
    return checks.fields_of(parsed.model_dump(exclude_unset=True))


def _form_context() -> dict:
    """What the form offers, and its defaults and limits (the rules')."""
    return {
        "methods": checks.METHODS,
        "failure_statuses": checks.FAILURE_STATUSES,
        "defaults": {
            "expected_status_codes": checks.shown_status_codes(checks.DEFAULT_STATUS_CODES),
            "timeout_seconds": checks.DEFAULT_TIMEOUT_SECONDS,
            "interval_seconds": checks.MIN_INTERVAL_SECONDS,
            "failure_thresholds": checks.DEFAULT_THRESHOLDS,
        },
        "limits": {
            "timeout": checks.MAX_TIMEOUT_SECONDS,
            "interval": (checks.MIN_INTERVAL_SECONDS, checks.MAX_INTERVAL_SECONDS),
            "threshold": checks.MAX_THRESHOLD,
            "expected_body": checks.MAX_EXPECTED_BODY_LENGTH,
            "url": checks.MAX_URL_LENGTH,
        },
    }


@console_view(CHECKS)
def list_checks(screen: Screen) -> Response:
    """The page's components in page order, each with its checks, for those who may
    configure the page."""
    page = screen.page(_page_id(screen))
    can_write = screen.may(page.id, PAGE_CONFIGURATION)
    entries, shown = [], {}
    if can_write:
        shown = {metric.id: bool(metric.display) for metric in metrics.metrics_of(page.id)}
        by_component: dict[str, list] = {}
        for check in checks.checks_of(page.id, consistent=True):
            by_component.setdefault(check.component_id, []).append(check_out(check))
        for record in components.components_of(page.id, consistent=True):
            if not record.group:
                entries.append(
                    {
                        "component": record,
                        "checks": by_component.get(record.id, []),
                        "follows_source": bool(record.third_party_url),
                    }
                )
    return screen.render(
        "checks.html",
        page=page_heading(page),
        entries=entries,
        metric_shown=shown,
        can_write=can_write,
        max_checks=checks.MAX_CHECKS_PER_COMPONENT,
        done=screen.request.query.get("done", ""),
    )


def _component(screen: Screen) -> components.Component:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    records = components.components_of(page.id, consistent=True)
    return components.find(records, screen.request.params["component_id"])


def _check_screen(
    screen: Screen,
    template: str,
    component: components.Component,
    check: checks.Check | None,
    **context,
) -> Response:
    shown = check_out(check) if check else None
    page = page_heading(screen.current_page)
    return screen.render(template, page=page, component=component, check=shown, **context)


@console_view(COMPONENT_CHECKS + "/new")
def new_check(screen: Screen) -> Response:
    return _check_screen(screen, "checks_edit.html", _component(screen), None, **_form_context())


@console_view(COMPONENT_CHECKS + "/new", ("POST",), again=new_check)
def create_check(screen: Screen) -> Response:
    component = _component(screen)
    fields = _checked_fields(screen, schemas.CheckCreate)
    checks.create_check(component.page_id, component.id, fields)
    return _back(component.page_id, f"Check of {component.name} added; it runs within a minute")


def _check(screen: Screen) -> tuple[components.Component, checks.Check]:
    component = _component(screen)
    check = checks.get_check(component.page_id, component.id, screen.request.params["check_id"])
    return component, check


@console_view(CHECK)
def show_check(screen: Screen) -> Response:
    component, check = _check(screen)
    return _check_screen(screen, "checks_edit.html", component, check, **_form_context())


@console_view(CHECK, ("POST",), again=show_check)
def update_check(screen: Screen) -> Response:
    component, check = _check(screen)
    fields = _checked_fields(screen, schemas.CheckUpdate)
    checks.update_check(component.page_id, component.id, check.id, fields)
    return _back(component.page_id, f"Check of {component.name} saved")


@console_view(CHECK + "/delete")
def confirm_delete(screen: Screen) -> Response:
    component, check = _check(screen)
    return _check_screen(screen, "checks_confirm.html", component, check)


@console_view(CHECK + "/delete", ("POST",))
def delete_check(screen: Screen) -> Response:
    component, check = _check(screen)
    checks.delete_check(component.page_id, component.id, check.id)
    return _back(component.page_id, f"Check of {component.name} deleted, with its metric")
