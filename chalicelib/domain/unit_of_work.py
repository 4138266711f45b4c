"""The unit of work: the one way anything in the service writes.

A write is a `change(work)`: it reads what it needs, applies the rules and stages on `work`
the items to save, update or delete, the outbox events that announce them and whether the
public page shows the change. `run` commits all of that as one DynamoDB transaction (several,
in order, when there are more than a transaction holds), with one conflict policy:

- a write that lost a race (another transaction held an item, or an item's version moved
  since it was read) is run again from fresh reads, a few times, with a short random pause;
- a condition that states what the change means (`intent=True`: "this maintenance is still
  scheduled", "this name is still free") failing is a real conflict: `errors.Conflict`, no retry;
- anything else is a fault and propagates.

A change the public page shows also counts one more change on the page's snapshot, in its
last transaction: the next public view rebuilds what it shows (`chalicelib.store.snapshots`).

Once committed, and only then, the listeners registered with `after_commit` run: the outbox
publishes the events. Nothing else publishes, so a change is announced exactly when it landed. A listener's failure is logged, never raised: the
change is committed and the caller must hear so (the outbox sweep catches up). A writer that
holds a turn (`turns`) announces once it has handed the turn on, before it answers: the next
writer of the item waits for the commit, not for the queue sends after it.

It lives with the rules because what counts as a conflict of intent is a rule; DynamoDB's part
(building the transaction, reading its cancellation reasons) is `chalicelib.store.base`'s, and
publishing is above the domain, so it registers itself here instead of being imported
(`app.py` wires it).
"""

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model

from chalicelib import clock, ids
from chalicelib.domain import errors, turns
from chalicelib.store import base, snapshots
from chalicelib.store.outbox import PENDING, OutboxEvent

logger = logging.getLogger(__name__)
T = TypeVar("T")
# DynamoDB takes at most 100 items in one transaction.
MAX_TRANSACTION_ITEMS = 100
ATTEMPTS = 12
# A lost race waits a random pause of up to PAUSE_SECONDS * 2^attempt, at most MAX_PAUSE:
# writers racing for one hot item (a component every client is updating) spread out
# instead of colliding again at once.
PAUSE_SECONDS = 0.005
MAX_PAUSE_SECONDS = 0.5
EVENT_KEPT_FOR = timedelta(days=30)


@dataclass
class Staged:
    """One item write: `kind` save, update or delete."""

    kind: str
    item: Model
    condition: Any = None
    actions: list | None = None
    versioned: bool = True
    intent: bool = False

    def add_to(self, writes) -> None:
        if self.kind == "save":
            writes.save(self.item, condition=self.condition)
        elif self.kind == "update":
            writes.update(
                self.item,
                self.actions,
                condition=self.condition,
                add_version_condition=self.versioned,
            )
        else:
            writes.delete(self.item, condition=self.condition)


@dataclass
class Committed:
    """What a commit wrote, as the listeners see it."""

    page_id: str | None
    events: list[OutboxEvent]
    # Whether the public page shows the change (its files are published again).
    public: bool = False
    # Whether it shows only in the page's charts (points), which no version of the page
    # counts: its files are published again all the same.
    charted: bool = False


class Work:
    """The writes of one change, staged until `run` commits them."""

    def __init__(self, page_id: str | None):
        self.page_id = page_id
        self.moment = clock.now()
        self.events: list[OutboxEvent] = []
        # Whether the public page shows what this change writes.
        self.public = page_id is not None
        self.charted = False
        self._units: list[list[Staged]] = []
        self._open_unit: list[Staged] | None = None

    def _stage(self, staged: Staged) -> None:
        if self._open_unit is not None:
            self._open_unit.append(staged)
        else:
            self._units.append([staged])

    @contextmanager
    def together(self) -> Iterator[None]:
        """Writes staged inside land in the same transaction, however many the change has."""
        if self._open_unit is not None:
            yield  # already inside one
            return
        self._open_unit = []
        try:
            yield
        finally:
            unit, self._open_unit = self._open_unit, None
            if unit:
                self._units.append(unit)

    def save(self, item: Model, condition=None, *, intent: bool = False) -> None:
        """Put `item` (on its version, if it has one, and on `condition`)."""
        self._stage(Staged("save", item, condition, intent=intent))

    def update(
        self, item: Model, actions: list, condition=None, *, versioned=True, intent=False
    ) -> None:
        """Apply `actions` to `item`; `versioned=False` writes whatever its version is now
        (for changes that commute, like appending an incident update)."""
        self._stage(Staged("update", item, condition, list(actions), versioned, intent))

    def delete(self, item: Model, condition=None, *, intent: bool = False) -> None:
        self._stage(Staged("delete", item, condition, intent=intent))

    def event(self, kind: str, payload: dict, page_id: str | None = None) -> OutboxEvent:
        """Stage a notification event, in the same transaction as the write staged just
        before it (or with the writes of the open `together` block)."""
        event = OutboxEvent(
            ids.new_id(),
            page_id=page_id or self.page_id,
            kind=kind,
            payload=payload,
            created_at=self.moment,
            pending=PENDING,
            expires_at=self.moment + EVENT_KEPT_FOR,
        )
        staged = Staged("save", event)
        if self._open_unit is not None or not self._units:
            self._stage(staged)
        else:
            self._units[-1].append(staged)
        self.events.append(event)
        return event

    def quiet(self) -> None:
        """The public page does not show this change: its snapshot stays as it is."""
        self.public = False

    def chart(self) -> None:
        """The change shows only in the page's charts: its snapshot stays as it is, and its
        files are published again (they show the points as they are when rendered)."""
        self.public = False
        self.charted = True

    @property
    def empty(self) -> bool:
        return not self._units

    def _transactions(self) -> list[list[Staged]]:
        units = list(self._units)
        if self.public and self.page_id:
            item, actions = snapshots.marker(self.page_id)
            units.append([Staged("update", item, actions=actions, versioned=False)])
        batches: list[list[Staged]] = []
        for unit in units:
            if not batches or len(batches[-1]) + len(unit) > MAX_TRANSACTION_ITEMS:
                batches.append([])
            batches[-1].extend(unit)
        return batches

    def commit(self) -> None:
        for batch in self._transactions():
            sent = sorted(batch, key=lambda staged: _SENT_ORDER[staged.kind])
            try:
                with base.transaction() as writes:
                    for staged in sent:
                        staged.add_to(writes)
            except TransactWriteError as error:
                raise _judged(error, sent) from None


# PynamoDB sends a transaction's deletes, then its puts, then its updates, whatever order
# they were added in, and DynamoDB gives the reasons of a cancellation in the order sent: read
# against the order staged, a taken name was judged a lost race (retried 12 times, then
# the same answer) and a lost race could be answered as a conflict.
_SENT_ORDER = {"delete": 0, "save": 1, "update": 2}


class _LostRace(Exception):
    """Worth another try from fresh reads."""


def _judged(error: TransactWriteError, batch: list[Staged]) -> Exception:
    codes = base.cancellation_codes(error)
    if not codes:
        return error
    for code, staged in zip(codes, batch, strict=False):
        if code == base.CONDITION_FAILED and staged.intent:
            return errors.Conflict()
    if all(code in (None, base.LOST_RACE, base.CONDITION_FAILED) for code in codes):
        return _LostRace()
    return error


Listener = Callable[[Committed], None]
_listeners: list[Listener] = []


def after_commit(*listeners: Listener) -> None:
    """Run `listeners` after every commit, in order."""
    for listener in listeners:
        if listener not in _listeners:
            _listeners.append(listener)


def _announce(committed: Committed) -> None:
    for listener in _listeners:
        try:
            listener(committed)
        except Exception:
            logger.exception("after-commit step %s failed", getattr(listener, "__name__", ""))


def run(page_id: str | None, change: Callable[[Work], T], *, attempts: int = ATTEMPTS) -> T:
    """Make `change` on a fresh `Work`, commit it, then announce it. A lost race runs the
    change again from fresh reads; after `attempts` losses, `errors.Conflict`."""
    for attempt in range(attempts):
        work = Work(page_id)
        result = change(work)
        if work.empty:
            return result
        try:
            work.commit()
        except _LostRace:
            time.sleep(random.uniform(0, min(PAUSE_SECONDS * 2**attempt, MAX_PAUSE_SECONDS)))
            continue
        turns.after(partial(_announce, Committed(page_id, work.events, work.public, work.charted)))
        return result
    raise errors.Conflict()
