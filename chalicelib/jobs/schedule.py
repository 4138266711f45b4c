"""What runs every minute (every SCHEDULE_TICK_SECONDS locally)."""

import logging

from chalicelib.jobs import maintenance, reminders
from chalicelib.notify import outbox

logger = logging.getLogger(__name__)


def tick() -> dict:
    moved = maintenance.run()
    reminded = reminders.run()
    swept = outbox.sweep()
    return {"maintenances": moved, "reminders": reminded, "swept": swept}
