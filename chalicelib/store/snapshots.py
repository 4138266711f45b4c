"""Page snapshots: the public view of a page, precomputed, in one item per page.

A visitor names a page by id, subdomain or custom domain; a name other than the id is looked up
in `Claim` first. The body is zlib-compressed JSON: a page with a long history stays far below
DynamoDB's 400 KB item limit.

A write the public sees does not rebuild the body: its transaction adds 1 to the item's
`changes` (`mark_changed`), so the write costs one item more whatever the page holds. A view
that finds `changes` ahead of `built_changes` (or no body) rebuilds the body first.
"""

import zlib
from datetime import UTC, datetime

from pynamodb.attributes import (
    BinaryAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.exceptions import UpdateError
from pynamodb.models import Model

from chalicelib.store.base import is_condition_failure, table_meta

PAGE = "page"
SUBDOMAIN = "subdomain"
DOMAIN = "domain"
# What a body may weigh once compressed; the rest of the item's 400 KB is keys and headroom.
MAX_BODY_BYTES = 350_000


def key_of(kind: str, value: str) -> str:
    return f"{kind}#{value}"


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
    actions = [PageSnapshot.changes.add(1), PageSnapshot.changed_at.set(datetime.now(UTC))]
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
