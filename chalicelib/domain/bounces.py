"""What SES's bounces and complaints do to an email subscriber (docs/operations.md, Bounces).

A hard (Permanent) bounce quarantines the subscriber, as a failed delivery does; a complaint
unsubscribes it; soft (Transient) bounces are counted, and the third within 7 days
quarantines it. SES suspends an account whose bounce or complaint rate stays high, so an
address that says no is not written to again. Why it was stopped is kept beside it.
"""

import logging
from datetime import datetime, timedelta

from chalicelib.domain import subscribers, unit_of_work
from chalicelib.store.base import plain_dict
from chalicelib.store.bounces import BounceRecord
from chalicelib.store.subscribers import Subscriber

logger = logging.getLogger(__name__)
SOFT_BOUNCES_TO_QUARANTINE = 3
SOFT_BOUNCE_WINDOW = timedelta(days=7)
HARD_BOUNCE, SOFT_BOUNCES, COMPLAINT = "hard bounce", "soft bounces", "complaint"


def record_of(page_id: str, subscriber_id: str) -> BounceRecord | None:
    try:
        return BounceRecord.get(page_id, subscriber_id, consistent_read=True)
    except BounceRecord.DoesNotExist:
        return None


def _read(page_id: str, subscriber_id: str) -> BounceRecord:
    return record_of(page_id, subscriber_id) or BounceRecord(page_id, subscriber_id)


def _stopped(page_id: str, subscriber_id: str, reason: str) -> None:
    """Keep why SES's feedback stopped the subscriber."""

    def change(work: unit_of_work.Work) -> None:
        work.quiet()
        record = _read(page_id, subscriber_id)
        record.stopped_reason = reason
        record.stopped_at = record.updated_at = work.moment
        work.save(record)

    unit_of_work.run(page_id, change)


def quarantine(page_id: str, subscriber_id: str, reason: str) -> None:
    """Quarantine as a failed delivery does (a page or component subscriber; an incident
    subscriber follows one incident and is let be), with `reason` kept."""
    _stopped(page_id, subscriber_id, reason)
    subscribers.quarantine_by_id(page_id, subscriber_id)
    logger.info("subscriber %s of page %s quarantined: %s", subscriber_id, page_id, reason)


def unsubscribe(page_id: str, subscriber_id: str, reason: str) -> None:
    """Unsubscribe as the subscriber's own link does, with `reason` kept."""
    try:
        subscriber = Subscriber.get(page_id, subscriber_id)
    except Subscriber.DoesNotExist:
        return
    _stopped(page_id, subscriber_id, reason)
    subscribers.unsubscribe(subscriber)
    logger.info("subscriber %s of page %s unsubscribed: %s", subscriber_id, page_id, reason)


def count_soft_bounce(page_id: str, subscriber_id: str, feedback_id: str, at: datetime) -> int:
    """Count one soft bounce (once per SES `feedback_id`, however often it is told) and
    return how many fell within the window before `at`; the third quarantines."""

    def change(work: unit_of_work.Work) -> int:
        work.quiet()
        record = _read(page_id, subscriber_id)
        since = at - SOFT_BOUNCE_WINDOW
        kept = {
            known: moment
            for known, moment in plain_dict(record.soft_bounces).items()
            if datetime.fromisoformat(moment) > since
        }
        if feedback_id in kept:
            return len(kept)
        kept[feedback_id] = at.isoformat()
        record.soft_bounces = kept
        record.updated_at = work.moment
        work.save(record)
        return len(kept)

    counted = unit_of_work.run(page_id, change)
    if counted >= SOFT_BOUNCES_TO_QUARANTINE:
        days = SOFT_BOUNCE_WINDOW.days
        quarantine(page_id, subscriber_id, f"{SOFT_BOUNCES}: {counted} within {days} days")
    return counted
