"""The audit of automation (issue 34, item 8): every alert post and every check result that
could move a component is recorded with its source, its fingerprint or result, and the change
made or why none was, kept `KEPT_FOR` and read a page at a time, newest first (a storm of
hundreds of components pushes none out of reach)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import timedelta

from chalicelib import clock, ids
from chalicelib.domain import unit_of_work
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.integrations import AutomationEvent

LISTED = 100
KEPT_FOR = timedelta(days=30)
# Free text from a monitoring system ends up here: bounded, so an item stays small.
MAX_DETAIL_CHARS = 1000


@dataclass(frozen=True)
class Entry:
    """One audit event, as its reader sees it."""

    source_kind: str  # `alertmanager`, `grafana`, `generic` or `check`
    source_id: str  # the integration's or the check's id
    detail: str  # the alerts' fingerprints, or the check's result
    reason: str  # what was done, or why nothing was
    component_id: str | None = None
    old_status: str | None = None
    new_status: str | None = None
    changed: bool = False


def _event(page_id: str, entry: Entry, moment) -> AutomationEvent:
    event_id = ids.new_id()
    return AutomationEvent(
        page_id,
        f"{clock.iso(moment)}#{event_id}",
        id=event_id,
        source_kind=entry.source_kind,
        source_id=entry.source_id,
        detail=entry.detail[:MAX_DETAIL_CHARS],
        component_id=entry.component_id,
        old_status=entry.old_status,
        new_status=entry.new_status,
        changed=entry.changed,
        reason=entry.reason[:MAX_DETAIL_CHARS],
        created_at=moment,
        expires_at=moment + KEPT_FOR,
    )


def stage(work: Work, entry: Entry) -> None:
    """Record `entry` with the change it describes (in its transaction)."""
    work.save(_event(work.page_id, entry, work.moment))


def record(page_id: str, entry: Entry) -> None:
    """Record `entry` on its own (no change came of it). The public page does not show it."""

    def change(work: Work) -> None:
        work.quiet()
        stage(work, entry)

    unit_of_work.run(page_id, change)


def recent(page_id: str, start: int = 0, size: int = LISTED) -> list[AutomationEvent]:
    """The page's events from the `start`-th newest, `size` of them, newest first (a Query
    read no further than the page asked for)."""
    newest = AutomationEvent.query(page_id, scan_index_forward=False, limit=start + size)
    return list(itertools.islice(newest, start, start + size))
