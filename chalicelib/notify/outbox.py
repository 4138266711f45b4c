"""Handing notification events to SQS once the change they announce is committed.

A change stages its event on its unit of work (`Work.event`), in the same transaction as the
change; after the commit the unit of work calls `publish_committed`, which sends it to the
notifications queue. The event stays `pending` until the fan-out receives it (`received`):
the write pays for one send, not for a second write. If the process dies before the send, the
scheduled `sweep` sends it later: a notification is never lost, only late. An event the sweep
sends again while the first copy waits in the queue is fanned out twice and delivered once
(deliveries are claimed per event and recipient).
"""

import logging
from datetime import timedelta

from chalicelib import clock
from chalicelib.domain.unit_of_work import Committed
from chalicelib.notify import queues
from chalicelib.store.outbox import PENDING, OutboxEvent

logger = logging.getLogger(__name__)
# An event younger than this is probably still being published by the request that made it.
SWEEP_AFTER = timedelta(seconds=30)


def publish(events: list[OutboxEvent]) -> None:
    """Hand committed events to the queue; whatever fails here the sweep retries."""
    for event in events:
        try:
            queues.send(queues.NOTIFICATIONS, {"event_id": event.id, "page_id": event.page_id})
        except Exception:
            logger.exception("outbox event %s stays pending for the sweep", event.id)


def received(event: OutboxEvent) -> None:
    """The queue delivered the event to the fan-out: the sweep leaves it alone from now on."""
    if event.pending is not None:
        event.update(actions=[OutboxEvent.pending.remove()])


def publish_committed(committed: Committed) -> None:
    publish(committed.events)


def sweep() -> int:
    """Publish events that never reached the queue; returns how many."""
    cutoff = clock.now() - SWEEP_AFTER
    stale = list(OutboxEvent.pending_index.query(PENDING, OutboxEvent.created_at < cutoff))
    publish(stale)
    return len(stale)
