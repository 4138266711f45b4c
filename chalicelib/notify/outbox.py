"""Staging notification events with the change they announce, and handing them to SQS.

A change writes its event in its own transaction (`stage_event`), then `publish` sends it to
the notifications queue. If the process dies in between, the event stays `pending` and the
scheduled `sweep` sends it later: a notification is never lost, only late.
"""

import logging
from datetime import timedelta

from chalicelib import clock, ids
from chalicelib.notify import queues
from chalicelib.store.outbox import PENDING, OutboxEvent

logger = logging.getLogger(__name__)
KEEP_FOR = timedelta(days=30)
# An event younger than this is probably still being published by the request that made it.
SWEEP_AFTER = timedelta(seconds=30)


def stage_event(writes, page_id: str, kind: str, payload: dict) -> OutboxEvent:
    """Add an event to the transaction `writes`; publish it once the transaction committed."""
    moment = clock.now()
    event = OutboxEvent(
        ids.new_id(),
        page_id=page_id,
        kind=kind,
        payload=payload,
        created_at=moment,
        pending=PENDING,
        expires_at=moment + KEEP_FOR,
    )
    writes.save(event)
    return event


def publish(events: list[OutboxEvent]) -> None:
    """Hand committed events to the queue; whatever fails here the sweep retries."""
    for event in events:
        try:
            queues.send(queues.NOTIFICATIONS, {"event_id": event.id})
            event.update(actions=[OutboxEvent.pending.remove()])
        except Exception:
            logger.exception("outbox event %s stays pending for the sweep", event.id)


def sweep() -> int:
    """Publish events that never reached the queue; returns how many."""
    cutoff = clock.now() - SWEEP_AFTER
    stale = list(OutboxEvent.pending_index.query(PENDING, OutboxEvent.created_at < cutoff))
    publish(stale)
    return len(stale)
