"""Page snapshots: the public view of a page, precomputed, in one item per page.

A visitor names a page by id, subdomain or custom domain; a name other than the id is looked up
in `Claim` first. The body is zlib-compressed JSON: a page with a long history stays far below
DynamoDB's 400 KB item limit.

A write the public sees does not rebuild the body: its transaction adds 1 to the item's
`changes` (`marker`), so the write costs one item more whatever the page holds. A view
that finds `changes` ahead of `built_changes` (or no body) rebuilds the body first.

The same item says when the page's published files are due again (`publish_due`, in a sparse
index): a write makes them due at once, a publish makes them due when its time-dependent parts
(today's bar, the day's boundary) change. The every-minute function reads the index, never
the table.
"""

import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from pynamodb.attributes import (
    BinaryAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.exceptions import UpdateError
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from chalicelib.store.base import is_condition_failure, table_meta

PAGE = "page"
SUBDOMAIN = "subdomain"
DOMAIN = "domain"
# What a body may weigh once compressed; the rest of the item's 400 KB is keys and headroom.
MAX_BODY_BYTES = 350_000
# The one value of the due index's hash key: every page whose files are due is in it.
DUE = "due"
# Longer than the publish function may run (its Lambda timeout), so a lease is never taken
# over from a publisher still at work.
PUBLISH_LEASE_SECONDS = 180
LEASE_WAIT_SECONDS = 20.0


def key_of(kind: str, value: str) -> str:
    return f"{kind}#{value}"


class PublishesDue(GlobalSecondaryIndex):
    """Sparse: only pages whose published files are due again carry `publish_queue`."""

    class Meta:
        index_name = "publishes-due"
        projection = KeysOnlyProjection()

    publish_queue = UnicodeAttribute(hash_key=True)
    publish_due = UTCDateTimeAttribute(range_key=True)


class PageSnapshot(Model):
    """hash `key` (`page#<id>`).

    `changes` counts the public writes committed to the page; `built_changes` is the count the
    body was built after. Until the first build the item may hold only `changes`.
    """

    Meta = table_meta("page-snapshots")
    key = UnicodeAttribute(hash_key=True)
    page_id = UnicodeAttribute(null=True)
    body = BinaryAttribute(legacy_encoding=False, null=True)
    etag = UnicodeAttribute(null=True)
    built_at = UTCDateTimeAttribute(null=True)
    changes = NumberAttribute(null=True)
    changed_at = UTCDateTimeAttribute(null=True)
    built_changes = NumberAttribute(null=True)
    publish_queue = UnicodeAttribute(null=True)
    publish_due = UTCDateTimeAttribute(null=True)
    published_changes = NumberAttribute(null=True)
    publish_lease_until = UTCDateTimeAttribute(null=True)
    publishes_due = PublishesDue()

    @property
    def current(self) -> bool:
        """Whether the body shows every change committed so far."""
        return self.body is not None and (self.built_changes or 0) >= (self.changes or 0)


def compress(text: str) -> bytes:
    return zlib.compress(text.encode(), level=6)


def decompress(body: bytes) -> str:
    return zlib.decompress(body).decode()


def marker(page_id: str) -> tuple[PageSnapshot, list]:
    """The item and the actions that count one more change to the page's public view, for a
    unit of work to stage in its transaction."""
    # Wall time, as a rebuild's reads are timed: it measures how long the indexes had to settle.
    now = datetime.now(UTC)
    actions = [
        PageSnapshot.changes.add(1),
        PageSnapshot.changed_at.set(now),
        PageSnapshot.publish_queue.set(DUE),
        PageSnapshot.publish_due.set(now),
    ]
    return PageSnapshot(key_of(PAGE, page_id)), actions


def read(page_id: str, *, consistent: bool = False) -> PageSnapshot | None:
    """The page's snapshot item (one GetItem), or None."""
    try:
        return PageSnapshot.get(key_of(PAGE, page_id), consistent_read=consistent)
    except PageSnapshot.DoesNotExist:
        return None


def write(page_id: str, body: bytes, etag: str, built_changes: int, built_at: datetime) -> bool:
    """Store a body built after `built_changes` changes, leaving the count of changes alone.
    False when a body built after as many changes or more is stored already (it stays)."""
    item = PageSnapshot(key_of(PAGE, page_id))
    try:
        item.update(
            actions=[
                PageSnapshot.page_id.set(page_id),
                PageSnapshot.body.set(body),
                PageSnapshot.etag.set(etag),
                PageSnapshot.built_at.set(built_at),
                PageSnapshot.built_changes.set(built_changes),
            ],
            condition=PageSnapshot.built_changes.does_not_exist()
            | (PageSnapshot.built_changes < built_changes)
            | ((PageSnapshot.built_changes == built_changes) & (PageSnapshot.built_at <= built_at)),
        )
    except UpdateError as error:
        if is_condition_failure(error):
            return False
        raise
    return True


def mark_published(page_id: str, changes: int, due: datetime) -> None:
    """The page's files show `changes` changes and are due again at `due`; if a change came
    meanwhile, they stay due now (its own publish is on its way)."""
    item = PageSnapshot(key_of(PAGE, page_id))
    published = [PageSnapshot.published_changes.set(changes)]
    try:
        item.update(
            actions=[
                *published,
                PageSnapshot.publish_queue.set(DUE),
                PageSnapshot.publish_due.set(due),
            ],
            condition=PageSnapshot.changes.does_not_exist() | (PageSnapshot.changes <= changes),
        )
        return
    except UpdateError as error:
        if not is_condition_failure(error):
            raise
    try:
        item.update(
            actions=published,
            condition=PageSnapshot.published_changes.does_not_exist()
            | (PageSnapshot.published_changes < changes),
        )
    except UpdateError as error:
        if not is_condition_failure(error):
            raise


def forget(page_id: str) -> None:
    """A page that is gone: its snapshot item goes too."""
    PageSnapshot(key_of(PAGE, page_id)).delete()


def due_pages(now: datetime) -> list[str]:
    """The ids of the pages whose published files are due by `now` (one Query)."""
    due = PageSnapshot.publishes_due.query(DUE, PageSnapshot.publish_due <= now)
    return [item.key.removeprefix(key_of(PAGE, "")) for item in due]


@contextmanager
def publish_lease(page_id: str, wait_seconds: float = LEASE_WAIT_SECONDS) -> Iterator[None]:
    """One publisher of the page at a time, where the site store cannot lock (S3): a lease on
    the page's snapshot item, waited for up to `wait_seconds` (then `TimeoutError`)."""
    item = PageSnapshot(key_of(PAGE, page_id))
    deadline = time.monotonic() + wait_seconds
    while True:
        now = datetime.now(UTC)
        until = now + timedelta(seconds=PUBLISH_LEASE_SECONDS)
        try:
            item.update(
                actions=[PageSnapshot.publish_lease_until.set(until)],
                condition=PageSnapshot.publish_lease_until.does_not_exist()
                | (PageSnapshot.publish_lease_until < now),
            )
            break
        except UpdateError as error:
            if not is_condition_failure(error):
                raise
        if time.monotonic() > deadline:
            raise TimeoutError(f"another publish of page {page_id} holds its lease")
        time.sleep(0.1)
    try:
        yield
    finally:
        try:
            item.update(
                actions=[PageSnapshot.publish_lease_until.remove()],
                condition=PageSnapshot.publish_lease_until == until,
            )
        except UpdateError as error:
            if not is_condition_failure(error):
                raise
