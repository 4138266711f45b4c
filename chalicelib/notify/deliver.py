"""Delivery: batches of recipients of events, each recipient sent to at most once.

The recipients of every batch received (one deliveries message each) are claimed together,
100 to a transaction (`chalicelib.notify.claims`); a redelivered message finds them claimed
and sends nothing.
Then every send of every batch runs concurrently (`chalicelib.notify.lanes`): a webhook POST
per recipient, at most `webhook.PER_HOST` at once to one host (a chat channel's message is a
webhook POST too, in its platform's format); an SES raw email per recipient
(the message is rendered once per event and its headers made once per batch; only its links
are the recipient's own), `SES_CALLS_AT_ONCE` at
once, each at its moment of the account's SES rate (`pacing.Pace`); an SNS publish per SMS.
A send is tried up to 3 times within 30 s; a page or component subscriber whose sends all fail
for its address (its webhook's endpoint; an address or a number SES or SNS refused) is
quarantined. Each recipient reached is settled before its send ends, those reached
meanwhile in one write (`claims.Reached`). Last, one write per batch settles its claims.

A send that SES or SNS refuses for a limit (the rate, SES's 24-hour quota, the SMS spend
limit: `pacing.limit_of`), or whose moment at the rate lies further than the delivery may
wait, is held (`lanes.Held`): nobody's failure. Its recipients, and every one of that channel
not yet sent to, go back to the deliveries queue in a message of their own, delayed, and
their claims are given up, so the delivery that takes that message sends to them, once.
"""

import hashlib
import hmac
import logging
import math
from dataclasses import dataclass, field

from chalicelib.domain import chat_platforms, pages, subscribers
from chalicelib.notify import (
    chat,
    claims,
    content,
    delivery_metrics,
    email,
    email_body,
    lanes,
    mime,
    pacing,
    queues,
    sms,
    webhook,
)
from chalicelib.store.models import Page

logger = logging.getLogger(__name__)
# Sends in flight at once, over all the batches of one invocation.
WORKERS = 64
SES_CALLS_AT_ONCE = 8
SNS_CALLS_AT_ONCE = 16
SES_LANE, SNS_LANE = "ses", "sns"
EMAIL, SMS = "email", "sms"
LANE_OF_CHANNEL = {EMAIL: SES_LANE, SMS: SNS_LANE}
# SQS delays a message by 900 s at most; a hold longer than that is found again and kept.
LONGEST_DELAY_SECONDS = 900


class DeliveriesElsewhere(Exception):
    """Some recipients are being sent to by another delivery of the same batch, or by one
    that died before settling: the message must come back once their lease has run out."""


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _per_lane(lane: str) -> int:
    return {SES_LANE: SES_CALLS_AT_ONCE, SNS_LANE: SNS_CALLS_AT_ONCE}.get(lane, webhook.PER_HOST)


def _webhook_sends(message: dict, recipients: list[dict], secret: str | None) -> list[lanes.Send]:
    body_for = content.webhook_bodies(message["content"])

    def post(to: list[dict]) -> list[dict]:
        failed = []
        for recipient in to:
            body = body_for(recipient["unsubscribe"])
            headers = {"X-Webhook-Signature": signature(secret, body)} if secret else {}
            if not webhook.post_json(recipient["endpoint"], body, headers):
                failed.append(recipient)
        return failed

    return [
        lanes.Send(webhook.lane_of(recipient["endpoint"]), [recipient], post)
        for recipient in recipients
    ]


def _chat_sends(message: dict, recipients: list[dict]) -> list[lanes.Send]:
    """A POST of its platform's message to each chat channel, as a webhook's (unsigned: the
    platforms check none)."""
    platforms = {recipient["kind"] for recipient in recipients}
    body_for = {
        platform: chat.bodies(platform, message["content"]["chat"]) for platform in platforms
    }

    def post(to: list[dict]) -> list[dict]:
        failed = []
        for recipient in to:
            body = body_for[recipient["kind"]](recipient["unsubscribe"])
            if not webhook.post_json(recipient["endpoint"], body, {}):
                failed.append(recipient)
        return failed

    return [
        lanes.Send(webhook.lane_of(recipient["endpoint"]), [recipient], post)
        for recipient in recipients
    ]


@dataclass
class _Limited:
    """What the sends of SES and SNS share in one delivery: the email pace (made at the first
    email, when the rate is read) and the channels' holds."""

    holds: pacing.Holds
    emails: int
    pace: pacing.Pace | None = None
    # Recipients whose last failed send was not refused for their address: not quarantined.
    not_their_fault: set[str] = field(default_factory=set)

    def paced_email(self, to: str, raw: bytes) -> None:
        """The email sent at its moment of the account's rate (read from SES at the first)."""
        if self.pace is None:
            rate = pacing.max_send_rate()
            if rate <= 0:  # SES lets the account send nothing now: as a paused account
                paused = pacing.Limit(pacing.PAUSED, f"MaxSendRate {rate:g}")
                raise pacing.held_by(paused, EMAIL, self.holds)
            self.pace = pacing.Pace(EMAIL, rate, self.emails)
        self.pace.turn()
        email.send_raw(to, raw, delivery=True)

    def sent_through(self, channel: str, key: str, send, *args, **kwargs) -> None:
        """`send(*args, **kwargs)` to the recipient `key`: its refusal for a limit held rather
        than failed, and a failure noted as the subscriber's only when it was about its
        address."""
        try:
            send(*args, **kwargs)
        except lanes.Held:
            raise
        except Exception as error:
            limit = pacing.limit_of(error)
            if limit is not None:
                raise pacing.held_by(limit, channel, self.holds) from error
            if pacing.about_the_address(error):
                self.not_their_fault.discard(key)
            else:
                self.not_their_fault.add(key)
            raise
        self.holds.sent(channel)


def _email_sends(message: dict, recipients: list[dict], limited: _Limited) -> list[lanes.Send]:
    message_content = message["content"]
    letterhead = mime.Letterhead(message_content["sender"], message_content["subject"])
    links = message_content["links"]

    def send(to: list[dict]) -> list[dict]:
        for recipient in to:
            text = email_body.personalize(message_content["text"], links, recipient)
            html = email_body.personalize(message_content["html"], links, recipient)
            raw = letterhead.message(recipient["email"], text, html, recipient["unsubscribe"])
            limited.sent_through(
                EMAIL, recipient["key"], limited.paced_email, recipient["email"], raw
            )
        return []

    return [lanes.Send(SES_LANE, [recipient], send) for recipient in recipients]


def _sms_sends(message: dict, recipients: list[dict], limited: _Limited) -> list[lanes.Send]:
    text = message["content"]["sms"]

    def send(to: list[dict]) -> list[dict]:
        for recipient in to:
            limited.sent_through(
                SMS, recipient["key"], sms.send_sms, recipient["phone"], text, delivery=True
            )
        return []

    return [lanes.Send(SNS_LANE, [recipient], send) for recipient in recipients]


def _settling_each(send: lanes.Send, reached: claims.Reached) -> lanes.Send:
    """The send, settling the claim of each recipient it reached before it ends."""
    attempt = send.attempt

    def settling(to: list[dict]) -> list[dict]:
        failed = attempt(to)
        failed_keys = {recipient["key"] for recipient in failed}
        reached.settle([r["key"] for r in to if r["key"] not in failed_keys])
        return failed

    send.attempt = settling
    return send


def _sends(
    message: dict, recipients: list[dict], secret: str | None, limited: _Limited
) -> list[lanes.Send]:
    """What to send to whom; a recipient whose kind this event has nothing for is done."""
    message_content = message["content"]
    by_kind: dict[str, list[dict]] = {"webhook": [], "email": [], "sms": []}
    for recipient in recipients:
        by_kind.setdefault(recipient["kind"], []).append(recipient)
    sends = []
    if message_content.get("webhook"):
        sends += _webhook_sends(message, by_kind["webhook"], secret)
    if message_content.get("subject"):
        sends += _email_sends(message, by_kind["email"], limited)
    if message_content.get("sms"):
        sends += _sms_sends(message, by_kind["sms"], limited)
    if message_content.get("chat"):
        channels = [r for r in recipients if chat_platforms.is_chat(r["kind"])]
        sends += _chat_sends(message, channels)
    return sends


def _secret(page_id: str, secrets: dict[str, str | None]) -> str | None:
    if page_id not in secrets:
        try:
            secrets[page_id] = pages.webhook_secret_of(Page.get(page_id))
        except Page.DoesNotExist:
            secrets[page_id] = None
    return secrets[page_id]


def _limited(batches: list[tuple[dict, claims.Claimed, list[dict]]]) -> _Limited:
    kinds = [recipient["kind"] for _, _, ours in batches for recipient in ours]
    channels = {EMAIL, SMS} & set(kinds)
    return _Limited(pacing.Holds(channels), kinds.count(EMAIL))


def _send_later(message: dict, kept: list[dict], delays: dict[str, float]) -> None:
    """The recipients a limit held, back on the deliveries queue, delayed until they may be
    sent: a message for each delay (an SMS held a second for the rate does not wait out
    email's hold)."""
    by_delay: dict[int, list[dict]] = {}
    for recipient in kept:
        seconds = math.ceil(delays.get(recipient["key"], 1.0))
        by_delay.setdefault(max(1, min(LONGEST_DELAY_SECONDS, seconds)), []).append(
            {name: value for name, value in recipient.items() if name != "key"}
        )
    for seconds, recipients in sorted(by_delay.items()):
        queues.send_batch(
            queues.DELIVERIES, [{**message, "recipients": recipients}], delay_seconds=seconds
        )


def deliver_all(messages: list[dict]) -> int:
    """Send every batch of `messages` at once; returns how many were delivered now. Raises
    `DeliveriesElsewhere`, after sending the rest, when some must be looked at again."""
    batches: list[tuple[dict, claims.Claimed, list[dict]]] = []
    # A subscriber may be in batches of two events: outcomes are per (event, subscriber).
    elsewhere = 0
    secrets: dict[str, str | None] = {}
    sends: list[lanes.Send] = []
    reached = claims.Reached()
    by_ids = [{recipient["id"]: recipient for recipient in m["recipients"]} for m in messages]
    every_claim = claims.claim_all(
        [(m["event_id"], list(by_id)) for m, by_id in zip(messages, by_ids, strict=True)]
    )
    for message, by_id, claimed in zip(messages, by_ids, every_claim, strict=True):
        elsewhere += len(claimed.elsewhere)
        ours = [
            {**by_id[subscriber_id], "key": f"{message['event_id']}#{subscriber_id}"}
            for subscriber_id in claimed.ours
        ]
        batches.append((message, claimed, ours))
    limited = _limited(batches)
    runner = lanes.Lanes(WORKERS, _per_lane)
    for channel, lane in LANE_OF_CHANNEL.items():
        if seconds := limited.holds.held(channel):
            runner.hold(lane, lanes.Held(f"{channel} held", seconds))
    for message, _, ours in batches:
        secret = None
        if any(recipient["kind"] == "webhook" for recipient in ours):
            secret = _secret(message["page_id"], secrets)
        sends += [_settling_each(send, reached) for send in _sends(message, ours, secret, limited)]
    outcomes = runner.run(sends)
    kinds = {recipient["key"]: recipient["kind"] for _, _, ours in batches for recipient in ours}
    delivery_metrics.record((kinds[key], reached) for key, reached in outcomes.items())
    delivered = 0
    for message, claimed, ours in batches:
        kept = [r for r in ours if r["key"] in outcomes and outcomes[r["key"]] is None]
        if kept:
            # Queued again before the claims are given up: a delivery dying between the two
            # leaves claims whose lease runs out, never recipients nobody will send to.
            _send_later(message, kept, runner.delays)
            claims.release(claimed, message["event_id"], [r["id"] for r in kept])
            logger.info(
                "%d recipients of event %s held by a limit: queued again",
                len(kept),
                message["event_id"],
            )
        failed = [r for r in ours if outcomes.get(r["key"], True) is False]
        claims.settle(claimed, [recipient["id"] for recipient in failed])
        delivered += len(ours) - len(failed) - len(kept)
        for recipient in failed:
            if recipient["quarantinable"] and recipient["key"] not in limited.not_their_fault:
                subscribers.quarantine_by_id(message["page_id"], recipient["id"])
    if elsewhere:
        raise DeliveriesElsewhere(f"{elsewhere} recipients are held by another delivery")
    return delivered


def deliver(message: dict) -> int:
    """Send one batch; returns how many were delivered now."""
    return deliver_all([message])
