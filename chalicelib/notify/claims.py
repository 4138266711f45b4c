"""Delivery claims, made and settled a batch at a time: the one place that writes them.

Before sending, one transaction claims (event, subscriber) for every recipient of a batch, on
the condition that nobody has: a redelivered message finds its recipients claimed and sends
nothing twice. A claim names its batch and is held under a lease as long as the delivery
function may run. After sending, one item settles the whole batch (and names whom it
failed); each recipient reached is also settled alone as soon as it is, so that a delivery
dying mid-batch leaves only the sends it had in flight unsettled. A claim found unsettled
past its lease (its delivery died between claim and settling) is taken over, so a recipient
is not lost to a crash either.
"""

import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from pynamodb.exceptions import TransactWriteError

from chalicelib import clock, config
from chalicelib.store import base
from chalicelib.store.deliveries import DeliveryClaim

SENDING, SETTLED = "sending", "settled"
KEPT_FOR = timedelta(days=7)
# DynamoDB takes at most 100 items in one transaction.
PER_TRANSACTION = 100
ATTEMPTS = 8


@dataclass
class Claimed:
    """Of the recipients asked for: those this delivery now holds, and those another
    delivery is sending right now (to be looked at again when its lease has run out)."""

    batch: str = field(default_factory=lambda: uuid.uuid4().hex)
    ours: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)


def _key(event_id: str, subscriber_id: str) -> str:
    return f"{event_id}#{subscriber_id}"


def _batch_key(batch: str) -> str:
    return f"batch#{batch}"


def _claim_item(event_id: str, subscriber_id: str, batch: str, now) -> DeliveryClaim:
    return DeliveryClaim(
        _key(event_id, subscriber_id),
        outcome=SENDING,
        batch=batch,
        lease_until=int((now + timedelta(seconds=config.delivery_lease_seconds())).timestamp()),
        expires_at=now + KEPT_FOR,
    )


def _settled(batch: str | None, known: dict[str, bool]) -> bool:
    """Whether the batch that holds a claim has settled (one read per batch)."""
    if batch is None:
        return False
    if batch not in known:
        try:
            known[batch] = DeliveryClaim.get(_batch_key(batch)).outcome == SETTLED
        except DeliveryClaim.DoesNotExist:
            known[batch] = False
    return known[batch]


def _claim_some(event_id: str, subscriber_ids: list[str], claimed: Claimed) -> None:
    now = clock.now()
    # First nobody's; a claim found `sending` past its lease is taken over on the condition
    # that it is still the one seen (two takers: one wins).
    wanted = {subscriber_id: DeliveryClaim.id.does_not_exist() for subscriber_id in subscriber_ids}
    for attempt in range(ATTEMPTS):
        if not wanted:
            return
        try:
            with base.transaction() as writes:
                for subscriber_id, condition in wanted.items():
                    writes.save(
                        _claim_item(event_id, subscriber_id, claimed.batch, now),
                        condition=condition,
                        return_values="ALL_OLD",
                    )
        except TransactWriteError as error:
            codes = base.cancellation_codes(error)
            if base.LOST_RACE in codes:
                time.sleep(random.uniform(0, 0.01 * (attempt + 1)))
                continue
            if base.CONDITION_FAILED not in codes:
                raise
            # Only puts in this transaction: the reasons come in the order they were staged.
            reasons = error.cancellation_reasons or []
            batches: dict[str, bool] = {}
            still = {}
            for (subscriber_id, condition), reason in zip(wanted.items(), reasons, strict=False):
                if reason is None or reason.code != base.CONDITION_FAILED:
                    still[subscriber_id] = condition
                    continue
                found = reason.raw_item or {}
                if found.get("outcome", {}).get("S") != SENDING:
                    continue  # settled by itself (an earlier version's claim)
                if _settled(found.get("batch", {}).get("S"), batches):
                    continue
                lease_until = int(found.get("lease_until", {}).get("N", "0"))
                if lease_until >= int(now.timestamp()):
                    claimed.elsewhere.append(subscriber_id)
                else:
                    still[subscriber_id] = (DeliveryClaim.outcome == SENDING) & (
                        DeliveryClaim.lease_until == lease_until
                    )
            wanted = still
            continue
        claimed.ours.extend(wanted)
        return
    raise RuntimeError(f"could not claim deliveries of event {event_id}")


def claim(event_id: str, subscriber_ids: list[str]) -> Claimed:
    """Claim the deliveries of one batch: a transaction per 100 (a second one only for a
    redelivered batch, without the recipients already claimed)."""
    claimed = Claimed()
    for start in range(0, len(subscriber_ids), PER_TRANSACTION):
        _claim_some(event_id, subscriber_ids[start : start + PER_TRANSACTION], claimed)
    return claimed


def mark_reached(keys: list[str]) -> None:
    """Recipients just reached are settled each on its own at once (one write each, made by
    the worker that sent): a delivery that dies before settling its batch leaves only those
    it was sending to for the next to take over, not those it had reached."""
    for key in keys:
        DeliveryClaim(key).update(actions=[DeliveryClaim.outcome.set(SETTLED)])


def settle(claimed: Claimed, failed: list[str]) -> None:
    """The batch has sent: one write settles every claim it holds."""
    if not claimed.ours:
        return
    now = clock.now()
    DeliveryClaim(
        _batch_key(claimed.batch),
        outcome=SETTLED,
        failed=failed or None,
        expires_at=now + KEPT_FOR,
    ).save()
