"""What a notification says: the webhook body, the email and the text message of an event.

Made once per event by the fan-out and carried in the delivery messages, so delivering to ten
thousand subscribers reads nothing more from DynamoDB.
"""

import json
from collections.abc import Callable

from chalicelib import config
from chalicelib.domain import incidents, page_status, pages
from chalicelib.domain.incidents import Incident
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.models import Page
from chalicelib.views.incidents import incident_out

DOCUMENTATION_URL = "https://developer.statuspage.io/#section/Webhooks"


def page_summary(page: Page, component_statuses: list[str]) -> dict:
    records = incidents.open_records(page.id)
    unresolved = [record for record in records if incidents.is_unresolved(record)]
    in_maintenance = any(incidents.is_active_maintenance(record) for record in records)
    indicator = page_status.indicator(
        component_statuses, [record.impact or "none" for record in unresolved], in_maintenance
    )
    return {
        "id": page.id,
        "status_indicator": indicator,
        "status_description": page_status.description(indicator),
    }


def _page_link(page: Page, suffix: str = "") -> str:
    return f"{config.public_base_url()}/s/{page.subdomain or page.id}{suffix}"


def incident_content(
    page: Page,
    incident: Incident,
    update: IncidentRecord,
    page_state: dict,
    *,
    reminder: bool = False,
) -> dict:
    record = incident.record
    name = pages.profile_of(page).get("name", "")
    status = update.status.replace("_", " ")
    prefix = "Reminder: " if reminder else ""
    subject = f"[{name}] {prefix}{record.name} - {status}"
    link = _page_link(page, f"/incidents/{record.id}")
    text = f"{prefix}{record.name}\n\n{status.capitalize()}: {update.body or ''}\n\n{link}\n"
    sms = f"[{name}] {prefix}{record.name} - {status}: {update.body or ''}".strip()
    return {
        "subject": subject,
        "text": text,
        "sms": sms,
        "webhook": {"page": page_state, "incident": incident_out(incident).model_dump(mode="json")},
    }


def team_reminder_content(page: Page, record: IncidentRecord, hours: int) -> dict:
    """To the team: an open incident has had no update for `hours` hours."""
    name = pages.profile_of(page).get("name", "")
    link = _page_link(page, f"/incidents/{record.id}")
    status = record.status.replace("_", " ")
    return {
        "subject": f"[{name}] Reminder: {record.name} is still {status}",
        "text": (
            f"{record.name} has had no update for {hours} hours and is still {status}.\n\n"
            f"Post an update or resolve it: PATCH /v1/pages/{page.id}/incidents/{record.id}\n\n"
            f"{link}\n"
        ),
        "sms": None,
        "webhook": None,
    }


def postmortem_content(page: Page, record: IncidentRecord, body: str) -> dict:
    name = pages.profile_of(page).get("name", "")
    link = _page_link(page, f"/incidents/{record.id}")
    return {
        "subject": f"[{name}] Postmortem: {record.name}",
        "text": f"Postmortem of {record.name}\n\n{body}\n\n{link}\n",
        "sms": None,
        "webhook": None,
    }


def component_content(page: Page, component: dict, change: dict, page_state: dict) -> dict:
    return {
        "subject": None,
        "text": None,
        "sms": None,
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
