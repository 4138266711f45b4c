"""Adding subscribers in the console: an email, a phone (number and country), a webhook or a
chat channel (URL with an email), for the whole page, for chosen components, or for one
incident. Each is the API's create (`subscribers.create`, the incident one after the API's
check that the incident is the page's), validated by the API's `SubscriberCreate`."""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.console.html import KIND_LABELS
from chalicelib.console.subscribers import (
    SUBSCRIBERS,
    back_to_list,
    component_sections,
    form_object,
    form_text,
    with_whole_groups,
)
from chalicelib.console.views import Screen, console_view, page_heading
from chalicelib.domain import chat_platforms, incidents, pages, sms_countries, subscribers
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain

# Incidents offered to an incident subscriber: the newest ones.
INCIDENTS_OFFERED = 25
SCOPES = ("page", "components", "incident")


@console_view(SUBSCRIBERS + "/new")
def new_subscriber(screen: Screen) -> Response:
    template, context = _new_form(screen, {})
    return screen.render(template, **context)


# Each add form's field no other has, to tell which was posted when it does not say (`form`).
_FORM_FIELDS = {"phone_number": "sms", "chat_webhook_url": "chat", "endpoint": "webhook"}


def _posted_form(typed: dict) -> str:
    """Which add form `typed` came from ("" for none: the screen shown, not refused)."""
    if not typed:
        return ""
    if typed.get("form") in ("email", *_FORM_FIELDS.values()):
        return typed["form"]
    given = typed.get("subscriber") if isinstance(typed.get("subscriber"), dict) else {}
    return next((form for field, form in _FORM_FIELDS.items() if field in given), "email")


def _new_form(screen: Screen, typed: dict) -> tuple[str, dict]:
    """The screen of the add forms (one per kind); refused, the one posted shows its
    problems and what was typed."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    profile = pages.profile_of(page)
    allowed = {
        kind: profile.get(setting, True)
        for kind, (setting, _field) in subscribers.KIND_SETTINGS.items()
    }
    offered = incidents.list_page(page.id, INCIDENTS_OFFERED, 1)
    return "subscriber_new.html", dict(
        posted=_posted_form(typed),
        page=page_heading(page),
        allowed=allowed,
        page_scope=profile.get("allow_page_subscribers", True),
        incident_scope=profile.get("allow_incident_subscribers", True),
        sections=component_sections(page.id),
        incidents=[
            {"id": i.record.id, "name": i.record.name or "", "status": i.record.status}
            for i in offered
        ],
        countries=sorted(sms_countries.COUNTRIES.values(), key=lambda c: c.name),
        platforms=chat_platforms.LABELS,
        kind_labels=KIND_LABELS,
    )


@console_view(SUBSCRIBERS, ("POST",), form=_new_form)
def add_subscriber(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    fields = {k: v for k, v in form_object(screen, "subscriber").items() if v != ""}
    scope = form_text(screen, "scope") or "page"
    if scope not in SCOPES:
        raise errors.invalid("scope", f"must be one of {', '.join(SCOPES)}")
    incident_id = None
    if scope == "incident":
        incident_id = form_text(screen, "incident_id")
        if not incident_id:
            raise errors.invalid("incident_id", "choose the incident to follow")
        incidents.get_incident(page.id, incident_id)  # the API's check: one of the page's
    if scope != "components":
        fields.pop("component_ids", None)
    else:
        fields["component_ids"] = with_whole_groups(screen, page.id, fields.get("component_ids"))
    if scope == "components" and not fields.get("component_ids"):
        raise errors.invalid("component_ids", "choose at least one component")
    body = errors.validated(schemas.SubscriberCreate, {"subscriber": fields}, "subscriber")
    created = subscribers.create(
        page, plain(body.subscriber, subscribers.SubscriberInput), incident_id
    )
    return back_to_list(page.id, f"Added {subscribers.address_of(created)}")
