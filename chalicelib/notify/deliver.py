"""Delivery: one batch of recipients of one event, each sent at most once.

Before sending, a conditional put claims (event, subscriber); a redelivered SQS message finds
the claim and sends nothing. A send is tried up to 3 times within 30 s; when all fail, a page
or component subscriber is quarantined.
"""

import hashlib
import hmac
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from pynamodb.exceptions import PutError, TransactWriteError

from chalicelib import clock
from chalicelib.domain import pages, subscribers
from chalicelib.notify import content, email, sms, webhook
from chalicelib.store.base import transaction
from chalicelib.store.deliveries import DeliveryClaim
from chalicelib.store.models import Page

logger = logging.getLogger(__name__)
ATTEMPTS = 3
RETRY_WINDOW_SECONDS = 30
BACKOFF_SECONDS = (2, 5)
PARALLEL_SENDS = 8
CLAIM_KEPT_FOR = timedelta(days=7)


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _claim(event_id: str, subscriber_id: str) -> DeliveryClaim | None:
    claim = DeliveryClaim(f"{event_id}#{subscriber_id}", expires_at=clock.now() + CLAIM_KEPT_FOR)
    try:
        claim.save(condition=DeliveryClaim.id.does_not_exist())
    except PutError:
        return None  # sent (or being sent) by an earlier delivery of this message
    return claim


def _send_once(message: dict, recipient: dict, secret: str | None) -> bool:
    kind = recipient["kind"]
    message_content = message["content"]
    try:
        if kind == "webhook" and message_content.get("webhook"):
            body = json.dumps(
                content.webhook_body(message_content, recipient["unsubscribe"])
            ).encode()
            headers = {"X-Webhook-Signature": signature(secret, body)} if secret else {}
            return webhook.post_json(recipient["endpoint"], body, headers)
        if kind == "email" and message_content.get("subject"):
            text = message_content["text"]
            if recipient.get("manage"):
                text += f"\nManage your subscription: {recipient['manage']}"
            if recipient["unsubscribe"]:
                text += f"\nUnsubscribe: {recipient['unsubscribe']}\n"
            email.send_email(recipient["email"], message_content["subject"], text)
            return True
        if kind == "sms" and message_content.get("sms"):
            sms.send_sms(recipient["phone"], message_content["sms"])
            return True
    except Exception:
        logger.exception("sending to subscriber %s failed", recipient["id"])
        return False
    return True  # nothing of this event is for this kind of subscriber


def _send(message: dict, recipient: dict, secret: str | None) -> bool:
    started = time.monotonic()
    for attempt in range(ATTEMPTS):
        if _send_once(message, recipient, secret):
            return True
        if attempt < len(BACKOFF_SECONDS):
            pause = BACKOFF_SECONDS[attempt]
            if time.monotonic() - started + pause > RETRY_WINDOW_SECONDS:
                break
            time.sleep(pause)
    return False


def _claim_all(event_id: str, recipients: list[dict]) -> list[dict]:
    """The recipients this delivery may send to. One transaction claims the whole batch; only
    when some were claimed before (a redelivered message) is each claimed on its own."""
    try:
        with transaction() as writes:
            for recipient in recipients:
                writes.save(
                    DeliveryClaim(
                        f"{event_id}#{recipient['id']}", expires_at=clock.now() + CLAIM_KEPT_FOR
                    ),
                    condition=DeliveryClaim.id.does_not_exist(),
                )
        return recipients
    except TransactWriteError:
        return [r for r in recipients if _claim(event_id, r["id"]) is not None]


def _deliver_one(message: dict, recipient: dict, secret: str | None) -> bool:
    delivered = _send(message, recipient, secret)
    if not delivered:
        DeliveryClaim(f"{message['event_id']}#{recipient['id']}").update(
            actions=[DeliveryClaim.outcome.set("failed")]
        )
        if recipient["quarantinable"]:
            subscribers.quarantine_by_id(message["page_id"], recipient["id"])
    return delivered


def deliver(message: dict) -> int:
    """Send one batch; returns how many were delivered now."""
    secret = None
    if any(recipient["kind"] == "webhook" for recipient in message["recipients"]):
        try:
            secret = pages.webhook_secret_of(Page.get(message["page_id"]))
        except Page.DoesNotExist:
            return 0
    claimed = _claim_all(message["event_id"], message["recipients"])
    with ThreadPoolExecutor(max_workers=PARALLEL_SENDS) as pool:
        outcomes = pool.map(lambda recipient: _deliver_one(message, recipient, secret), claimed)
        return sum(1 for delivered in outcomes if delivered)
