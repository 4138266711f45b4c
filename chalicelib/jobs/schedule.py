"""What runs every minute (every SCHEDULE_TICK_SECONDS locally)."""

import logging

from chalicelib.jobs import maintenance, reminders, third_party
from chalicelib.notify import outbox
from chalicelib.public import publish

logger = logging.getLogger(__name__)


def tick() -> dict:
    moved = maintenance.run()
    reminded = reminders.run()
    swept = outbox.sweep()
    republished = publish.request_due()
    try:
        followed = third_party.run()
    except Exception:
        # Reading the set of sources failed: the other steps are done, the next tick polls.
        logger.exception("third-party poll failed")
        followed = 0
    return {
        "maintenances": moved,
        "reminders": reminded,
        "swept": swept,
        "publishes_due": republished,
        "third_party_changes": followed,
    }
