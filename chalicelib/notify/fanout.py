"""The fan-out: one outbox event in, delivery batches out.

It reads the event, works out what it says once, reads the recipients a page at a time and
enqueues them in batches on the deliveries queue as they are read: the first batch is on its
way after the first read, and memory holds a few batches however many recipients there are.
"""

import logging
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice

from chalicelib.domain import chat_platforms, component_holds, incidents, organizations, subscribers
from chalicelib.domain.errors import DomainError, NotFound
from chalicelib.domain.incident_states import CLOSED
from chalicelib.domain.postmortems import postmortem_of
from chalicelib.notify import content, outbox, queues
from chalicelib.observability import metrics
from chalicelib.store.base import read_together
from chalicelib.store.models import Page, User
from chalicelib.store.outbox import OutboxEvent
from chalicelib.store.subscribers import Recipient
from chalicelib.views import snapshot as public_snapshot
from chalicelib.views.components import page_components

logger = logging.getLogger(__name__)
# Recipients per delivery message: SES takes 50 destinations a call.
BATCH_SIZE = 50
ADDRESS_FIELDS = {
    "email": "email",
    "sms": "phone",
    "webhook": "endpoint",
    **dict.fromkeys(chat_platforms.PLATFORMS, "endpoint"),  # a chat channel's webhook URL
}


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


def _recipient(item: Recipient) -> dict:
    recipient = {
        "id": item.subscriber_id,
        "kind": item.kind,
        "email": None,
        "phone": None,
        "endpoint": None,
        "unsubscribe": subscribers.link_of(
            item.page_id, item.subscriber_id, subscribers.UNSUBSCRIBE
        ),
        "manage": subscribers.link_of(item.page_id, item.subscriber_id, subscribers.MANAGE),
        # Incident subscribers are never quarantined (CONTRACT.md, Notifications).
        "quarantinable": not item.audience.startswith(subscribers.INCIDENT_AUDIENCE + "#"),
    }
    recipient[ADDRESS_FIELDS[item.kind]] = item.address
    return recipient


def _batches(recipients: Iterable, as_recipient: Callable[..., dict]) -> Iterator[list[dict]]:
    read = iter(recipients)
    while batch := [as_recipient(item) for item in islice(read, BATCH_SIZE)]:
        yield batch


def _anyone(recipients: Iterable) -> Iterator | None:
    """`recipients` as they are read, or None when there are none: a message nobody hears is
    never made (making one reads the page's public state)."""
    read = iter(recipients)
    first = next(read, None)
    return None if first is None else chain([first], read)


def _enqueue(
    event: OutboxEvent,
    message_content: dict,
    recipients: Iterable,
    as_recipient: Callable[..., dict] = _recipient,
) -> int:
    """Enqueue `recipients` (recipient items, or what `as_recipient` makes a recipient of)
    in batches, as they are read."""
    count = 0
    waiting: list[dict] = []
    for batch in _batches(recipients, as_recipient):
        waiting.append(
            {
                "event_id": event.id,
                "page_id": event.page_id,
                "content": content.for_kinds(message_content, {r["kind"] for r in batch}),
                "recipients": batch,
            }
        )
        # The first batch goes alone, so deliveries start while the rest is read.
        if count == 0 or len(waiting) == queues.MESSAGES_PER_SEND:
            queues.send_batch(queues.DELIVERIES, waiting)
            waiting = []
        count += len(batch)
    if waiting:
        queues.send_batch(queues.DELIVERIES, waiting)
    metrics.fan_out_size(count, event.kind)
    return count


def page_state(page: Page) -> dict:
    """One read of the page's snapshot, not of its incidents; the event's own write made it
    stale, so the first event after a write rebuilds it, as a view would (a rebuild reads only
    what the public page shows, however long the page's history)."""
    snapshot = public_snapshot.load(page.id)
    if snapshot is None:
        raise NotFound()  # the page is gone
    return content.page_state(snapshot.content)


def _incident_event(event: OutboxEvent, page: Page, *, reminder: bool = False) -> int:
    payload = event.payload
    incident = incidents.get_incident(page.id, payload["incident_id"])
    update_id = payload.get("incident_update_id")
    update = next((u for u in incident.updates if u.id == update_id), incident.updates[0])
    incident = incidents.as_left_by(incident, update)
    recipients = _anyone(
        subscribers.recipients(
            page.id,
            component_ids=payload.get("component_ids") or [],
            incident_id=incident.record.id,
            since=update.created_at,
        )
    )
    if recipients is None:
        return 0
    held = None
    if update.status in CLOSED:  # its email says which components another incident holds
        held = component_holds.held_elsewhere(page.id, besides=incident.record.id).by_component
    message = content.incident_content(
        page, incident, update, page_state(page), reminder=reminder, held=held
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
    recipients = subscribers.recipients(
        page.id,
        component_ids=record.component_ids or [],
        incident_id=record.id,
        since=None,
        kind="email",
    )
    return _enqueue(event, message, recipients)


def _component_event(event: OutboxEvent, page: Page) -> int:
    change = event.payload
    # A component status change is a webhook (CONTRACT.md).
    recipients = _anyone(
        subscribers.component_recipients(page.id, change["component_id"], "webhook")
    )
    if recipients is None:
        return 0
    components = page_components(page.id)
    component = next((c for c in components if c["id"] == change["component_id"]), None)
    if component is None:
        return 0
    message = content.component_content(page, component, change, page_state(page))
    return _enqueue(event, message, recipients)


FANOUT = {
    "incident_update": _incident_event,
    "maintenance_reminder": _reminder_event,
    "incident_reminder": _team_reminder_event,
    "postmortem_published": _postmortem_event,
    "component_update": _component_event,
}


def fan_out(event_id: str, page_id: str | None = None) -> int:
    """Enqueue the deliveries of one event; returns how many recipients it has. With the
    event's `page_id` (its message names it), the event and the page are one read."""
    if page_id:
        event, page = read_together((OutboxEvent, event_id), (Page, page_id))
    else:  # a message published before messages named the page
        event = read_together((OutboxEvent, event_id))[0]
        page = read_together((Page, event.page_id))[0] if event is not None else None
    if event is None or page is None or page.id != event.page_id:
        logger.warning("event %s or its page is gone; nothing to send", event_id)
        return 0
    outbox.received(event)
    try:
        return FANOUT[event.kind](event, page)
    except DomainError:
        logger.warning("event %s refers to something deleted since; nothing to send", event_id)
        return 0
