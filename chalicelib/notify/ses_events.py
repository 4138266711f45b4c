"""SES's bounce, complaint and delivery notifications, as its configuration set publishes them
to the `email-events` SNS topic (`infra/generate.py`), read and handed to the rules
(`chalicelib.domain.bounces`).

Every notification email carries its subscriber's signed unsubscribe link in its
List-Unsubscribe header (`mime.list_unsubscribe`), and SES returns the sent headers in the
notification's `mail` object: the link names the page and the subscriber, and its signature
proves this service wrote it. A notification that is not JSON, of no type acted on, without
that header, or whose bounced address is not the subscriber's, is logged and acknowledged:
SNS would otherwise retry it, and no retry makes it readable. A storage fault still raises,
so Lambda retries it.
"""

import json
import logging
import re
from datetime import datetime
from typing import Any

from chalicelib import clock
from chalicelib.domain import bounces, errors, subscribers

logger = logging.getLogger(__name__)
TOPIC = "email-events"
BOUNCE, COMPLAINT, DELIVERY = "Bounce", "Complaint", "Delivery"
PERMANENT = "Permanent"
# `/s/{page_id}/subscriptions/{token}/unsubscribe`, the path `subscribers.link_path_of` makes.
_UNSUBSCRIBE_PATH = re.compile(
    rf"/s/([^/<>\s]+)/subscriptions/([^/<>\s]+)/{subscribers.UNSUBSCRIBE}(?=[>?#\s,]|$)"
)


class Unreadable(Exception):
    """What the notification says cannot be acted on; `str()` says why (no address in it)."""


def _kind(notification: dict) -> str:
    # `eventType` from a configuration set's event destination, `notificationType` from an
    # identity's notifications: the same objects otherwise.
    return notification.get("eventType") or notification.get("notificationType") or ""


def _unsubscribe_link(mail: dict) -> tuple[str, str]:
    for header in mail.get("headers") or []:
        if str(header.get("name", "")).lower() == "list-unsubscribe":
            found = _UNSUBSCRIBE_PATH.search(str(header.get("value", "")))
            if found:
                return found.group(1), found.group(2)
    raise Unreadable("no List-Unsubscribe link of ours in the mail's headers")


def _addresses(recipients: Any) -> set[str]:
    if not isinstance(recipients, list):
        raise Unreadable("no recipients listed")
    return {str(recipient["emailAddress"]).strip().lower() for recipient in recipients}


def _subscriber(mail: dict, affected: set[str]):
    page_id, token = _unsubscribe_link(mail)
    try:
        subscriber = subscribers.by_token(page_id, token, subscribers.UNSUBSCRIBE)
    except errors.NotFound:
        raise Unreadable(f"the unsubscribe link names no subscriber of page {page_id}") from None
    if (subscriber.email or "").lower() not in affected:
        raise Unreadable(f"subscriber {subscriber.id} of page {page_id} is not the address told")
    return subscriber


def _moment(value: Any) -> datetime:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return clock.now()


def _on_bounce(notification: dict) -> None:
    bounce = notification["bounce"]
    subscriber = _subscriber(notification["mail"], _addresses(bounce.get("bouncedRecipients")))
    if bounce.get("bounceType") == PERMANENT:
        reason = f"{bounces.HARD_BOUNCE} ({bounce.get('bounceSubType') or 'General'})"
        bounces.quarantine(subscriber.page_id, subscriber.id, reason)
        return
    # Transient, and Undetermined (SES could not tell): counted, not acted on at once.
    feedback_id = str(bounce.get("feedbackId") or notification["mail"].get("messageId"))
    bounces.count_soft_bounce(
        subscriber.page_id, subscriber.id, feedback_id, _moment(bounce.get("timestamp"))
    )


def _on_complaint(notification: dict) -> None:
    complaint = notification["complaint"]
    recipients = complaint.get("complainedRecipients")
    subscriber = _subscriber(notification["mail"], _addresses(recipients))
    feedback = complaint.get("complaintFeedbackType")
    reason = f"{bounces.COMPLAINT} ({feedback})" if feedback else bounces.COMPLAINT
    bounces.unsubscribe(subscriber.page_id, subscriber.id, reason)


_HANDLERS = {BOUNCE: _on_bounce, COMPLAINT: _on_complaint}


def handle(message: str) -> None:
    """One SNS message's notification, acted on or acknowledged; only a fault raises."""
    try:
        notification = json.loads(message)
        if not isinstance(notification, dict):
            raise Unreadable("not a JSON object")
        handler = _HANDLERS.get(_kind(notification))
        if handler is None:  # deliveries and every other event: nothing to do
            logger.info("SES %s notification: nothing to do", _kind(notification) or "untyped")
            return
        handler(notification)
    except (Unreadable, ValueError, KeyError, TypeError, AttributeError) as unreadable:
        # The reason says which part was missing; the notification itself (addresses, the
        # signed link) is not logged.
        logger.warning("SES notification acknowledged unread: %s", _why(unreadable))


def _why(unreadable: Exception) -> str:
    if isinstance(unreadable, Unreadable):
        return str(unreadable)
    if isinstance(unreadable, KeyError):
        return f"no {unreadable.args[0]!r} in it"
    return f"{type(unreadable).__name__} reading it"
