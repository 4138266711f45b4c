"""The public snapshot of a page: read once per public view, however many components and
incidents the page has, and rebuilt by the first view after a write the page shows.

Each such write counts a change on the snapshot item in its own transaction (the unit of work
does it), so writes never pay for the page's view; a view that finds changes the body was not
built after (or no body: a page never viewed) rebuilds it. A rebuild reads only what the page shows:
the page, its components, the open incidents and maintenances (a sparse index, then each one's
updates), the newest incidents of each of the last `RECENT_DAYS` days (a bounded query a day
of incident items, each with its newest update in brief), the newest of those that began
earlier in the uptime bars' window (one bounded query: the bars' day cards name them) and each
showcased component's status days over that window, and which metrics it charts (one Query;
their points are read when the page is viewed, as data points do not change the snapshot).
The page's older history never enters a write: the history pages and an old incident's page
read it when visited.
"""

import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from chalicelib import clock, config
from chalicelib.domain import components, incidents, metrics, uptime
from chalicelib.domain.pages import find_page
from chalicelib.recent import Recent
from chalicelib.store import snapshots
from chalicelib.store.base import read_together
from chalicelib.store.components import Component
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.models import Claim, Page
from chalicelib.store.snapshots import DOMAIN, PAGE, SUBDOMAIN, key_of
from chalicelib.views import content

# The uptime bars cover 90 days in the page's time zone; a day more covers any zone.
UPTIME_WINDOW = timedelta(days=91)
# The days whose past incidents the page lists, in brief, beyond the open ones (today and
# the 14 before, in the page's time zone), and how many of each day at most (the newest; the
# others are behind a link to the history): no file or read grows with a busy day.
RECENT_DAYS = 15
PER_DAY = 10
# Incidents that began in the uptime bars' window before those days, read for the bars' day
# cards at most (the newest): the read stays bounded however busy the window was.
UPTIME_OLDER_INCIDENTS = 200
# Maintenances may be entered well ahead: a completed one may have its window in the future.
_LATEST = datetime(9999, 12, 31, tzinfo=UTC)
# Recent incidents kept at most; halved until the compressed snapshot fits in one item.
LISTED_INCIDENTS = 1000
_LOOKS_LIKE_PAGE_ID = re.compile(r"^[0-9a-z]{16}$")
_DECODED_CACHE_SIZE = 32
REBUILD_WAIT_SECONDS = 2.0


@dataclass(frozen=True)
class Snapshot:
    page_id: str
    etag: str
    content: dict
    # An item read in the same round trip as the snapshot (`load`'s `alongside`), or None.
    alongside: object = None
    # The page's changes the body shows (the published files' version).
    changes: int = 0


# Given a page id, the (model, key) of an item a view wants read with its snapshot, or None.
Alongside = Callable[[str], tuple | None] | None


def refresh(
    page_id: str, *, unless_current: bool = False, any_body: bool = False, stored: bool = True
) -> Snapshot | None:
    """Rebuild the page's snapshot from consistent reads and store it (unless not `stored`:
    the publisher, whose files readers get, spares the table the write); with
    `unless_current`, not when it is current by then (or, with `any_body` too, built at all).
    None when the page does not exist."""
    # Wall time, not `clock.now()`: it orders real reads, and tests may move the clock back.
    read_at = datetime.now(UTC)
    # Counted before the reads: a change committed while they run leaves the body behind it.
    marked = snapshots.read(page_id, consistent=True)
    if unless_current and marked is not None and (marked.current or (any_body and marked.body)):
        return _decoded_snapshot(marked)  # another view built it meanwhile
    changes = _changes_shown(marked, read_at)
    page = find_page(page_id, consistent=True)
    if page is None:
        return None
    # Consistent reads: a refresh runs right after the write it must show.
    records = components.components_of(page_id, consistent=True)
    entries, related = _entries(page_id, uptime.time_zone_of(page))
    history = _uptime_history(page, records)
    displayed = [
        metric for metric in metrics.metrics_of(page_id, consistent=True) if metric.display
    ]
    listed = LISTED_INCIDENTS
    while True:
        kept = _trimmed(entries, listed)
        data = content.build(
            page,
            records,
            kept,
            history,
            clock.iso(clock.now()),
            incomplete=len(kept) < len(entries),
            displayed=displayed,
            related=related,
        )
        body = snapshots.compress(json.dumps(data, separators=(",", ":")))
        if len(body) <= snapshots.MAX_BODY_BYTES or listed == 0:
            break
        listed //= 2
    etag = hashlib.sha256(body).hexdigest()[:32]
    if stored:
        snapshots.write(page.id, body, etag, changes, read_at)
    built = Snapshot(page.id, etag, data, changes=changes)
    _built.put(page.id, (changes, built))
    return built


def _changes_shown(marked: snapshots.PageSnapshot | None, read_at: datetime) -> int:
    """The changes a body built from reads starting at `read_at` shows for sure. The indexes
    may still miss a change younger than they take to settle: such a body counts one change
    less, and the next view builds again."""
    if marked is None:
        return 0
    changes = int(marked.changes or 0)
    settle = timedelta(seconds=config.index_settle_seconds())
    if changes and marked.changed_at is not None and read_at - marked.changed_at < settle:
        return changes - 1
    return changes


def _entries(page_id: str, time_zone: str) -> tuple[list[dict], list[IncidentRecord]]:
    """The open incidents and maintenances whole, and in brief, newest first, those of the
    last `RECENT_DAYS` days of the page's time zone that `_recent` reads. For the uptime bars'
    day cards, those and the newest `UPTIME_OLDER_INCIDENTS` that began before them in the
    bars' window."""
    opened = incidents.with_updates(incidents.open_records(page_id))
    shown = {incident.record.id for incident in opened}
    now = clock.now()
    zone = ZoneInfo(time_zone)
    recent_start = _day_start(now.astimezone(zone).date() - timedelta(days=RECENT_DAYS - 1), zone)
    recent = [record for record in _recent(page_id, recent_start, zone) if record.id not in shown]
    older = incidents.started_between(
        page_id, now - UPTIME_WINDOW, recent_start, limit=UPTIME_OLDER_INCIDENTS
    )
    entries = [content.incident_entry(incident) for incident in opened]
    entries += [content.brief_entry(record) for record in recent]
    related = [incident.record for incident in opened] + recent
    related += [record for record in older if record.id not in shown]
    return sorted(entries, key=lambda entry: entry["incident"]["id"], reverse=True), related


def _recent(page_id: str, start: datetime, zone: ZoneInfo) -> list[IncidentRecord]:
    """The newest `content.NEWEST_LISTED` incidents that began since `start` (the status API's
    lists and the feeds), and of each day since at least its newest `PER_DAY` + 1 (one more
    than a day lists: it says the day has more). Each read is a Query with a limit, however
    busy a day was: one on most pages; on a busy one, going back, one for the days a read
    did not reach and one for a day it reached only part of."""
    found: dict[str, IncidentRecord] = {}
    end, limit = _LATEST, content.NEWEST_LISTED
    while end > start:
        batch = incidents.started_between(page_id, start, end, limit)
        found |= {record.id: record for record in batch}
        if len(batch) < limit:
            break  # all of [start, end)
        # The days after the oldest read are whole in the batch; that day may not be.
        day = batch[-1].started_at.astimezone(zone).date()
        day_start, day_end = _day_start(day, zone), _day_start(day + timedelta(days=1), zone)
        if sum(1 for record in batch if record.started_at >= day_start) <= PER_DAY:
            found |= {
                record.id: record
                for record in incidents.started_between(
                    page_id, day_start, min(day_end, end), PER_DAY + 1
                )
            }
        end, limit = day_start, PER_DAY + 1
    return list(found.values())


def _day_start(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), zone).astimezone(UTC)


def _trimmed(entries: list[dict], listed: int) -> list[dict]:
    """Every open entry and the newest `listed` others."""
    kept, others = [], 0
    for entry in entries:
        if not content.is_open(entry):
            others += 1
            if others > listed:
                continue
        kept.append(entry)
    return kept


def _uptime_history(page: Page, records: list[Component]) -> dict:
    """Start, statuses and edited days over the bars' window of each showcased component (a
    Query each), the backfilled outages of the window on its statuses (one bounded query)."""
    time_zone = uptime.time_zone_of(page)
    now = clock.now()
    window_start = now - UPTIME_WINDOW
    showcased = [record for record in records if not record.group and record.showcase]
    past = uptime.past_outages(page.id, window_start, now) if showcased else []
    first_day = uptime.local_date(window_start, time_zone).isoformat()
    history = {}
    for record in showcased:
        start = uptime.start_of(record, time_zone)
        statuses = uptime.history(record, max(window_start, start))
        segments = uptime.with_past_outages(statuses, record.id, past)
        edits = {day: v for day, v in (record.uptime_edits or {}).items() if day >= first_day}
        history[record.id] = (start, segments, edits)
    return history


def load_by_reference(reference: str, alongside: Alongside = None) -> Snapshot | None:
    """The snapshot of the page a public path names by id or subdomain. A page id always names
    its own page, even when another page's subdomain has the same shape."""
    if _LOOKS_LIKE_PAGE_ID.match(reference):
        found = load(reference, alongside)
        if found is not None:
            return found
    return load_by_subdomain(reference, alongside)


def load_by_subdomain(subdomain: str, alongside: Alongside = None) -> Snapshot | None:
    """The snapshot of the page whose subdomain is `subdomain`: its claim, then its snapshot."""
    return _load_by_name(SUBDOMAIN, subdomain, alongside)


def load_by_domain(host: str, alongside: Alongside = None) -> Snapshot | None:
    """The snapshot of the page whose custom domain is `host`: its claim, then its snapshot."""
    return _load_by_name(DOMAIN, host, alongside)


def load(page_id: str, alongside: Alongside = None) -> Snapshot | None:
    """The page's snapshot: one GetItem (with `alongside`'s item, one BatchGetItem), and a
    rebuild when a write came after it (or it was never built). None when there is no such
    page."""
    wanted = alongside(page_id) if alongside else None
    if wanted is None:
        item, other = snapshots.read(page_id), None
    else:
        item, other = read_together((snapshots.PageSnapshot, key_of(PAGE, page_id)), wanted)
    found = _current(page_id, item)
    return replace(found, alongside=other) if found is not None and other is not None else found


def _current(page_id: str, item: snapshots.PageSnapshot | None) -> Snapshot | None:
    """The snapshot `item` holds, or the one a rebuild makes when it is behind."""
    if item is not None and item.current:
        return _decoded_snapshot(item)
    # Right after a write one view of the process rebuilds the body, and the views that arrive
    # meanwhile wait for it, so whoever wrote sees the write; only on a page so busy that the
    # rebuild takes longer than `REBUILD_WAIT_SECONDS` are they shown the body as it was (a
    # rebuild behind) rather than queue. A page never built makes them wait however long.
    lock = _rebuild_lock(page_id)
    never_built = item is None or item.body is None
    if not lock.acquire(timeout=-1 if never_built else REBUILD_WAIT_SECONDS):
        return _decoded_snapshot(item)
    try:
        # A view needs the changes it found counted, not those written while it waited: the
        # body just built here shows them, or one more rebuild does.
        built = _built.get(page_id)
        if built is not None and built[0] >= int((item and item.changes) or 0):
            return built[1]
        # Those that waited for a first build take it, even if a write came after it.
        return refresh(page_id, unless_current=True, any_body=never_built)
    finally:
        lock.release()


def _decoded_snapshot(item: snapshots.PageSnapshot) -> Snapshot:
    # Decoding costs more than the read under load: a warm process decodes each version once.
    data = _decoded.get(item.etag)
    if data is None:
        data = json.loads(snapshots.decompress(item.body))
        _decoded.put(item.etag, data)
    return Snapshot(item.page_id, item.etag, data, changes=int(item.built_changes or 0))


def _rebuild_lock(page_id: str) -> threading.Lock:
    with _locks_guard:
        return _rebuild_locks.setdefault(page_id, threading.Lock())


def _load_by_name(kind: str, name: str, alongside: Alongside = None) -> Snapshot | None:
    # Claims are named `<kind>#<value>` as snapshot keys are.
    try:
        page_id = Claim.get(key_of(kind, name)).page_id
    except Claim.DoesNotExist:
        return None
    return load(page_id, alongside)


@dataclass(frozen=True)
class Publication:
    """What the page's snapshot item says of its published files (`chalicelib.public.publish`
    keeps them)."""

    changes: int  # the public writes committed to the page
    changed_at: datetime | None  # when the last one was
    published_changes: int | None  # the writes the files show; None: never published
    due: datetime | None  # when what the files show changes with time alone

    def is_current(self, now: datetime) -> bool:
        """The files show every write, and time has not changed them yet."""
        if self.published_changes is None or self.published_changes < self.changes:
            return False
        return self.due is not None and self.due > now


def publication_of(page_id: str) -> Publication | None:
    """The page's publication (one consistent GetItem: a publish runs right after the write it
    must show), or None when its snapshot item is not there."""
    item = snapshots.read(page_id, consistent=True)
    if item is None:
        return None
    published = item.published_changes
    return Publication(
        int(item.changes or 0),
        item.changed_at,
        None if published is None else int(published),
        item.publish_due,
    )


def due_pages(now: datetime) -> list[str]:
    """The ids of the pages whose published files are due by `now` (one Query of a sparse
    index, never of the table)."""
    return snapshots.due_pages(now)


def mark_published(page_id: str, changes: int, due: datetime) -> None:
    """The page's files show `changes` writes and are due again at `due` (or now, if a write
    came meanwhile)."""
    snapshots.mark_published(page_id, changes, due)


def forget(page_id: str) -> None:
    """A page that is gone: its snapshot item goes too."""
    snapshots.forget(page_id)


_decoded: Recent[str, dict] = Recent(_DECODED_CACHE_SIZE)
# Per page, the last body this process built and the changes it shows.
_built: Recent[str, tuple[int, Snapshot]] = Recent(_DECODED_CACHE_SIZE)
_rebuild_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
