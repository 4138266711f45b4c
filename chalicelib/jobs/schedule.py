"""What runs every minute (every SCHEDULE_TICK_SECONDS locally)."""

import logging

from chalicelib.domain import automation, integrations
from chalicelib.jobs import checks, maintenance, reminders, third_party
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
    try:
        checked = checks.run()
    except Exception:
        # Reading the due checks failed: they stay due, and the next tick runs them.
        logger.exception("checks failed")
        checked = 0
    try:
        # Firing alerts not posted again within their integration's expire_after_minutes.
        expired = integrations.expire_due()
    except Exception:
        logger.exception("expiring alerts failed")
        expired = 0
    try:
        # Statuses automation waits to apply (min_firing_seconds, a hold by hand) that are due.
        settled = automation.settle_due()
    except Exception:
        logger.exception("automation's waits failed")
        settled = 0
    return {
        "automation_changes": settled,
        "expired_alert_changes": expired,
        "checks": checked,
        "maintenances": moved,
        "reminders": reminded,
        "swept": swept,
        "publishes_due": republished,
        "third_party_changes": followed,
    }
