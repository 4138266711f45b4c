"""The fan-out: one outbox event in, delivery batches out.

It reads the event, works out what it says once, pages through the recipients and enqueues
them in batches on the deliveries queue.
"""

import logging

from chalicelib.domain import incidents, organizations, subscribers
from chalicelib.domain.errors import DomainError
from chalicelib.domain.postmortems import postmortem_of
from chalicelib.notify import content, outbox, queues
from chalicelib.store.models import Page, User
from chalicelib.store.outbox import OutboxEvent
from chalicelib.views.components import page_components

logger = logging.getLogger(__name__)
BATCH_SIZE = 50


def _team_member(user: User) -> dict:
    """An organization user reminded of an open incident: no subscription to manage."""
    return {
        "id": user.id,
        "kind": "email",
        "email": user.email,
        "phone": None,
        "endpoint": None,
        "unsubscribe": None,
        "manage": None,
        "quarantinable": False,
    }


def _recipient(subscriber) -> dict:
    return {
        "id": subscriber.id,
        "kind": subscriber.kind,
        "email": subscriber.email,
        "phone": subscribers.e164(subscriber),
        "endpoint": subscriber.endpoint,
        "unsubscribe": subscribers.unsubscribe_link(subscriber),
        "manage": subscribers.manage_link(subscriber),
        # Incident subscribers are never quarantined (CONTRACT.md, Notifications).
        "quarantinable": not subscriber.incident_id,
    }


def _enqueue(event: OutboxEvent, message_content: dict, recipients: list, as_recipient=None) -> int:
    """Enqueue `recipients` (subscribers, or what `as_recipient` makes a recipient of) in
    batches."""
    as_recipient = as_recipient or _recipient
    messages = [
        {
            "event_id": event.id,
            "page_id": event.page_id,
            "content": message_content,
            "recipients": [as_recipient(r) for r in recipients[start : start + BATCH_SIZE]],
        }
        for start in range(0, len(recipients), BATCH_SIZE)
    ]
    queues.send_batch(queues.DELIVERIES, messages)
    return len(recipients)


def _page_state(page: Page, components: list[dict]) -> dict:
    return content.page_summary(page, [component["status"] for component in components])


def _incident_event(event: OutboxEvent, page: Page, *, reminder: bool = False) -> int:
    payload = event.payload
    incident = incidents.get_incident(page.id, payload["incident_id"])
    update_id = payload.get("incident_update_id")
    update = next((u for u in incident.updates if u.id == update_id), incident.updates[0])
    components = page_components(page.id)
    message = content.incident_content(
        page, incident, update, _page_state(page, components), reminder=reminder
    )
    recipients = subscribers.recipients(
        page.id,
        component_ids=payload.get("component_ids") or [],
        incident_id=incident.record.id,
        since=update.created_at,
    )
    return _enqueue(event, message, recipients)


def _reminder_event(event: OutboxEvent, page: Page) -> int:
    return _incident_event(event, page, reminder=True)


def _team_reminder_event(event: OutboxEvent, page: Page) -> int:
    record = incidents.get_record(page.id, event.payload["incident_id"])
    if not incidents.is_open(record):
        return 0  # resolved since
    message = content.team_reminder_content(page, record, event.payload["hours"])
    team = [
        user
        for user in organizations.users_of(page.organization_id)
        if user.email and organizations.has_role(user, page.id, organizations.INCIDENT_MANAGER)
    ]
    return _enqueue(event, message, team, _team_member)


def _postmortem_event(event: OutboxEvent, page: Page) -> int:
    record = incidents.get_incident(page.id, event.payload["incident_id"]).record
    postmortem = postmortem_of(record) or {}
    message = content.postmortem_content(page, record, postmortem.get("body") or "")
    # Postmortems go to email subscribers only (SPEC 6).
    recipients = [
        subscriber
        for subscriber in subscribers.recipients(
            page.id, component_ids=record.component_ids or [], incident_id=record.id, since=None
        )
        if subscriber.kind == "email"
    ]
    return _enqueue(event, message, recipients)


def _component_event(event: OutboxEvent, page: Page) -> int:
    change = event.payload
    components = page_components(page.id)
    component = next((c for c in components if c["id"] == change["component_id"]), None)
    if component is None:
        return 0
    message = content.component_content(page, component, change, _page_state(page, components))
    # A component status change is a webhook (CONTRACT.md).
    recipients = [
        subscriber
        for subscriber in subscribers.component_recipients(page.id, component["id"])
        if subscriber.kind == "webhook"
    ]
    return _enqueue(event, message, recipients)


FANOUT = {
    "incident_update": _incident_event,
    "maintenance_reminder": _reminder_event,
    "incident_reminder": _team_reminder_event,
    "postmortem_published": _postmortem_event,
    "component_update": _component_event,
}


def fan_out(event_id: str) -> int:
    """Enqueue the deliveries of one event; returns how many recipients it has."""
    try:
        event = OutboxEvent.get(event_id)
        outbox.received(event)
        page = Page.get(event.page_id)
    except (OutboxEvent.DoesNotExist, Page.DoesNotExist):
        logger.warning("event %s or its page is gone; nothing to send", event_id)
        return 0
    try:
        return FANOUT[event.kind](event, page)
    except DomainError:
        logger.warning("event %s refers to something deleted since; nothing to send", event_id)
        return 0
