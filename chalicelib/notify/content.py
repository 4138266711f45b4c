"""What a notification says: the webhook body, the email, the text message and the chat
message of an event.

Made once per event by the fan-out and carried in the delivery messages, so delivering to ten
thousand subscribers reads nothing more from DynamoDB.
"""

import json
from collections.abc import Callable

from chalicelib import clock
from chalicelib.domain import chat_platforms, pages
from chalicelib.domain.incident_states import CLOSED
from chalicelib.domain.incidents import Incident
from chalicelib.domain.markdown_text import render_text
from chalicelib.notify import email, email_body, sms
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.models import Page
from chalicelib.views.content import page_url
from chalicelib.views.incidents import incident_out
from chalicelib.web import times
from chalicelib.web.labels import UPDATE_LABELS

DOCUMENTATION_URL = "https://developer.statuspage.io/#section/Webhooks"
# The fields of a notification's content that each kind of recipient needs.
CHANNELS = {
    "email": ("subject", "sender", "text", "html", "links"),
    "sms": ("sms",),
    "webhook": ("webhook",),
    **{platform: ("chat",) for platform in chat_platforms.PLATFORMS},
}


def page_state(snapshot: dict) -> dict:
    """The page's status as notifications state it, from its public snapshot (one read; the
    snapshot is rebuilt first when a write came after it, as the event's write did)."""
    return {
        "id": snapshot["page"]["id"],
        "status_indicator": snapshot["status"]["indicator"],
        "status_description": snapshot["status"]["description"],
    }


def _page_link(page: Page, suffix: str = "") -> str:
    """A link into the page at its current public address (custom domain, its host under
    PUBLIC_DOMAIN, else its path), as its summary's `url` states it: the page is read when
    the event fans out, so a renamed subdomain or a new domain is what readers are sent to."""
    return page_url(page) + suffix


def _email(page: Page, subject: str, letter: dict, *, personal: bool = True) -> dict:
    """The email part of a notification, rendered once: subject, sender, both bodies and the
    markers of the reader's own links (`personal`: a subscriber's, which has them)."""
    profile = pages.profile_of(page)
    links = email_body.markers() if personal else {}
    text, html = email_body.render(
        {**letter, "personal": personal}, email_body.brand_of(profile), links
    )
    return {
        "subject": subject,
        "sender": email.sender_for(profile),
        "text": text,
        "html": html,
        "links": links,
    }


def _affected(incident: Incident, update: IncidentRecord, held: dict[str, list[str]]) -> list[dict]:
    """The components the incident names, each with the status this incident gave it by
    `update` (the newest it set; none when it set none), never the status another incident
    gave it since. An update that closes it says how each one is left: as it set it, else as
    it is, and, when another open incident still holds it (`held`: component id -> those
    incidents' names), says so."""
    given: dict[str, str] = {}
    # `incident` as `update` left it: its updates up to this one, newest first.
    for earlier in reversed(incident.updates):
        for change in earlier.affected_components or []:
            given[change.get("code")] = change.get("new_status") or ""
    set_now = {change.get("code") for change in update.affected_components or []}
    closing = update.status in CLOSED
    shown = {c["id"]: c for c in incident.record.components or [] if not c.get("group")}
    listed = []
    for component_id in incident.record.component_ids or []:
        component = shown.get(component_id)
        if component is None:
            continue  # deleted since, or a group
        entry = {"name": component.get("name") or "", "status": given.get(component_id, "")}
        if closing and component_id not in set_now:
            entry["status"] = component.get("status") or ""
            holders = held.get(component_id)
            if holders:
                entry["note"] = f"still affected by {', '.join(holders)}"
        listed.append(entry)
    return listed


def incident_content(
    page: Page,
    incident: Incident,
    update: IncidentRecord,
    page_state: dict,
    *,
    reminder: bool = False,
    held: dict[str, list[str]] | None = None,
) -> dict:
    """What an incident's update says to its subscribers; `held`: the components other open
    incidents hold (component id -> their names), for an update that closes it."""
    record = incident.record
    profile = pages.profile_of(page)
    name = profile.get("name", "")
    # On an audience-specific page each reader sees only some components; one message goes to
    # all of them, so it names none (the incident's own words are the team's to choose).
    shows_components = not profile.get("audience_specific")
    status = update.status.replace("_", " ")
    prefix = "Reminder: " if reminder else ""
    link = _page_link(page, f"/incidents/{record.id}")
    what = "maintenance" if record.scheduled else "incident"
    window = None
    if record.scheduled and record.scheduled_for and record.scheduled_until:
        window = [clock.iso(record.scheduled_for), clock.iso(record.scheduled_until)]
    letter = {
        "intro": (
            "Reminder: this maintenance begins soon"
            if reminder
            else ("Scheduled maintenance" if record.scheduled else None)
        ),
        "title": record.name,
        "status": update.status,
        "impact": record.impact,
        "window": window,
        "body": update.body or "",
        "components": _affected(incident, update, held or {}) if shows_components else [],
        "when": clock.iso(update.display_at or update.created_at),
        "button": {"href": link, "text": f"View the {what}"},
    }
    label = UPDATE_LABELS.get(update.status, status.capitalize())
    return {
        **_email(page, f"[{name}] {prefix}{record.name} - {status}", letter),
        "sms": sms.fitted(
            f"[{name}] {prefix}{record.name}: {label} - {render_text(update.body or '')}", link
        ),
        "webhook": {"page": page_state, "incident": _incident_body(incident, shows_components)},
        "chat": _chat(profile, letter, label, scheduled=bool(record.scheduled)),
    }


def _chat(profile: dict, letter: dict, label: str, *, scheduled: bool) -> dict:
    """What a chat message says (`chalicelib.notify.chat` makes each platform's of it):
    plain text, times in the page's time zone, and links."""
    local_time = times.time_formatter(profile.get("time_zone") or "Etc/UTC")
    return {
        "page": profile.get("name", ""),
        "intro": letter["intro"],
        "title": letter["title"],
        "status": letter["status"],
        "status_label": label,
        "impact": letter["impact"],
        "scheduled": scheduled,
        "body": (letter["body"] or "").strip(),
        "components": [{**c, "label": email_body.component_label(c)} for c in letter["components"]],
        "window": [local_time(moment) for moment in letter["window"]] if letter["window"] else None,
        "when": letter["when"],
        "when_text": local_time(letter["when"]),
        "link": letter["button"]["href"],
        "link_text": letter["button"]["text"],
    }


def _incident_body(incident: Incident, shows_components: bool) -> dict:
    body = incident_out(incident).model_dump(mode="json")
    if not shows_components:
        body["components"] = []
        for entry in body.get("incident_updates") or []:
            entry["affected_components"] = None
    return body


def team_reminder_content(page: Page, record: IncidentRecord, hours: int) -> dict:
    """To the team: an open incident has had no update for `hours` hours."""
    name = pages.profile_of(page).get("name", "")
    link = _page_link(page, f"/incidents/{record.id}")
    status = record.status.replace("_", " ")
    letter = {
        "intro": "A reminder to the team",
        "title": f"{record.name} is still {status}",
        "status": record.status,
        "impact": record.impact,
        "lines": [
            f"It has had no update for {hours} hours. Post an update or resolve it:",
            f"PATCH /v1/pages/{page.id}/incidents/{record.id}",
        ],
        "button": {"href": link, "text": "View the incident"},
    }
    return {
        **_email(
            page, f"[{name}] Reminder: {record.name} is still {status}", letter, personal=False
        ),
        "sms": None,
        "webhook": None,
        "chat": None,
    }


def postmortem_content(page: Page, record: IncidentRecord, body: str) -> dict:
    name = pages.profile_of(page).get("name", "")
    link = _page_link(page, f"/incidents/{record.id}")
    letter = {
        "intro": "Postmortem",
        "title": record.name,
        "status": "postmortem",
        "body": body,
        "button": {"href": link, "text": "Read it on the status page"},
    }
    return {
        **_email(page, f"[{name}] Postmortem: {record.name}", letter),
        "sms": None,
        "webhook": None,
        "chat": None,
    }


def _link_email(page: Page, title: str, why: Callable[[str], str], action: str, link: str) -> dict:
    """An email whose point is one link someone asked for (confirm, sign in): `why` says
    what it is for, given the page's name; `action` is its button."""
    name = pages.profile_of(page).get("name", "")
    letter = {
        "title": title,
        "lines": [why(name), "If you did not ask for this, ignore this message."],
        "button": {"href": link, "text": action},
    }
    return _email(page, f"[{name}] {title}", letter, personal=False)


def confirmation_content(page: Page, what: str, confirm_link: str) -> dict:
    """The email that asks a new subscriber to confirm (`what` it will receive)."""

    def why(name: str) -> str:
        return f"Confirm that you want {what} from {name}."

    return _link_email(page, "Confirm your subscription", why, "Confirm subscription", confirm_link)


def sign_in_content(page: Page, sign_in_link: str, minutes: int) -> dict:
    """The link that signs a page access user in to an audience-specific page."""

    def why(name: str) -> str:
        return f"Open this link within {minutes} minutes to see the {name} status page."

    return _link_email(page, "Sign in to the status page", why, "Sign in", sign_in_link)


def component_content(page: Page, component: dict, change: dict, page_state: dict) -> dict:
    return {
        "subject": None,
        "text": None,
        "sms": None,
        "chat": None,  # a component's change is a webhook's only (CONTRACT.md)
        "webhook": {
            "page": page_state,
            "component_update": {
                "created_at": change["created_at"],
                "new_status": change["new_status"],
                "old_status": change["old_status"],
                "id": change["id"],
                "component_id": component["id"],
            },
            "component": component,
        },
    }


def for_kinds(message: dict, kinds: set[str]) -> dict:
    """What a delivery batch of these kinds of recipients needs of the content: a batch of
    webhooks does not carry an email's bodies through SQS, nor a batch of emails the
    incident's JSON."""
    return {name: message.get(name) for kind in kinds for name in CHANNELS.get(kind, ())}


def webhook_body(content: dict, unsubscribe_url: str) -> dict:
    return {
        "meta": {"unsubscribe": unsubscribe_url, "documentation": DOCUMENTATION_URL},
        **content["webhook"],
    }


def webhook_bodies(content: dict) -> Callable[[str], bytes]:
    """`webhook_body` as JSON for one unsubscribe link after another: the part that is the
    same for every recipient (all but `meta`) is encoded once."""
    rest = json.dumps(content["webhook"])[1:]  # without its opening brace
    separator = ", " if content["webhook"] else ""

    def body(unsubscribe_url: str) -> bytes:
        meta = {"unsubscribe": unsubscribe_url, "documentation": DOCUMENTATION_URL}
        return ('{"meta": ' + json.dumps(meta) + separator + rest).encode()

    return body
