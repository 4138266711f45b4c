"""Delivery claims, made and settled a batch at a time: the one place that writes them.

Before sending, transactions of up to 100 items claim (event, subscriber) for every recipient
of the batches a delivery received (as few transactions as DynamoDB allows), on the
condition that nobody has: a redelivered message finds its recipients claimed and sends
nothing twice. A claim names its batch and is held under a lease as long as the delivery
function may run. After sending, one item settles the whole batch (and names whom it
failed); each recipient reached is also settled as soon as it is (the recipients reached
while one such write is under way go in the next: `Reached`), so that a delivery
dying mid-batch leaves only the sends it had in flight unsettled. A claim found unsettled
past its lease (its delivery died between claim and settling) is taken over, so a recipient
is not lost to a crash either.
"""

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

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


@dataclass(frozen=True)
class _Wanted:
    """One recipient of one batch to claim."""

    claimed: Claimed = field(compare=False)
    event_id: str
    subscriber_id: str

    @property
    def key(self) -> str:
        return _key(self.event_id, self.subscriber_id)


def _claim_some(wanted: dict[_Wanted, Any]) -> None:
    """Claim the recipients of `wanted` (at most 100, no key twice) in one transaction, each
    on its condition; what another delivery holds is noted `elsewhere` on its batch."""
    now = clock.now()
    for attempt in range(ATTEMPTS):
        if not wanted:
            return
        try:
            with base.transaction() as writes:
                for one, condition in wanted.items():
                    writes.save(
                        _claim_item(one.event_id, one.subscriber_id, one.claimed.batch, now),
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
            for (one, condition), reason in zip(wanted.items(), reasons, strict=False):
                if reason is None or reason.code != base.CONDITION_FAILED:
                    still[one] = condition
                    continue
                found = reason.raw_item or {}
                if found.get("outcome", {}).get("S") != SENDING:
                    continue  # settled by itself (an earlier version's claim)
                if _settled(found.get("batch", {}).get("S"), batches):
                    continue
                lease_until = int(found.get("lease_until", {}).get("N", "0"))
                if lease_until >= int(now.timestamp()):
                    one.claimed.elsewhere.append(one.subscriber_id)
                else:
                    still[one] = (DeliveryClaim.outcome == SENDING) & (
                        DeliveryClaim.lease_until == lease_until
                    )
            wanted = still
            continue
        for one in wanted:
            one.claimed.ours.append(one.subscriber_id)
        return
    raise RuntimeError("could not claim deliveries of " + ", ".join({w.event_id for w in wanted}))


def _transactions(wanted: list[_Wanted]) -> list[list[_Wanted]]:
    """`wanted` in transactions of at most 100; a key met again (the same event's batch
    twice in one receive) starts the next, as DynamoDB refuses an item twice in one."""
    groups: list[list[_Wanted]] = [[]]
    keys: set[str] = set()
    for one in wanted:
        if len(groups[-1]) == PER_TRANSACTION or one.key in keys:
            groups.append([])
            keys = set()
        groups[-1].append(one)
        keys.add(one.key)
    return [group for group in groups if group]


def claim_all(batches: list[tuple[str, list[str]]]) -> list[Claimed]:
    """Claim the deliveries of several batches, each `(event id, subscriber ids)`: as few
    transactions as DynamoDB allows (100 items each) over all of them, a claim per recipient
    on the condition that nobody has one (then a second round only for claims found and
    taken over past their lease)."""
    claimed = [Claimed() for _ in batches]
    wanted = [
        _Wanted(holder, event_id, subscriber_id)
        for holder, (event_id, subscriber_ids) in zip(claimed, batches, strict=True)
        for subscriber_id in subscriber_ids
    ]
    nobody_has = DeliveryClaim.id.does_not_exist()
    for group in _transactions(wanted):
        _claim_some(dict.fromkeys(group, nobody_has))
    return claimed


def claim(event_id: str, subscriber_ids: list[str]) -> Claimed:
    """Claim the deliveries of one batch."""
    return claim_all([(event_id, subscriber_ids)])[0]


def _settle_reached(keys: list[str]) -> None:
    """Each claim of `keys`, held by this delivery, written settled (BatchWriteItem, 25 a
    call: a claim settled needs no condition, and only `outcome` is read of it again)."""
    expires_at = clock.now() + KEPT_FOR
    with DeliveryClaim.batch_write() as writes:
        for key in keys:
            writes.save(DeliveryClaim(key, outcome=SETTLED, expires_at=expires_at))


class _Write:
    """One settling write: done once its keys are on the table (or it failed)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None

    def wait(self) -> None:
        self.done.wait()
        if self.error is not None:
            raise RuntimeError("settling the recipients reached failed") from self.error


class Reached:
    """Settles recipients as they are reached, each before its sender goes on, in one write
    for all those reached meanwhile (group commit): a sender takes every key waiting and
    writes them (25 a call), up to `WRITERS` writes at once; a sender whose keys another has
    taken waits for that write. A delivery that dies leaves unsettled only the recipients
    whose sends, or whose settling, were in flight, as a write each would, in a fraction of
    the writes."""

    # Two writes at once: a sender arriving while one is under way does not wait for it to
    # end before its own begins.
    WRITERS = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[str] = []
        self._next = _Write()  # the write that will take what is waiting
        self._writers = threading.Semaphore(self.WRITERS)

    def settle(self, keys: list[str]) -> None:
        if not keys:
            return
        with self._lock:
            self._waiting.extend(keys)
            mine = self._next
        with self._writers:
            with self._lock:
                taken = None
                if mine is self._next:  # nobody has taken the keys yet: this sender writes
                    taken, self._waiting, self._next = self._waiting, [], _Write()
            if taken is not None:
                try:
                    _settle_reached(taken)
                except BaseException as error:
                    mine.error = error
                    raise
                finally:
                    mine.done.set()
                return
        mine.wait()


def release(claimed: Claimed, event_id: str, subscriber_ids: list[str]) -> None:
    """Give up the claims of recipients this delivery holds and did not send to (a limit of
    SES or SNS held them; their message is back on the queue): the delivery that sends to
    them later claims them anew. Called before `settle`, which would count them as sent.
    No condition: the claims are this delivery's, within their lease (BatchWriteItem, 25 a
    call)."""
    if not subscriber_ids:
        return
    held = set(claimed.ours)
    with DeliveryClaim.batch_write() as writes:
        for subscriber_id in subscriber_ids:
            if subscriber_id in held:
                writes.delete(DeliveryClaim(_key(event_id, subscriber_id)))


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
