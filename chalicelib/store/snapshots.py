"""Page snapshots: the public view of a page, precomputed, one item per name it answers to.

A visitor names a page by id, subdomain or custom domain; each name is a key of this table
(`page#<id>`, `subdomain#<subdomain>`, `domain#<host>`) holding the same snapshot, so a page
view is one GetItem whatever name it uses. The body is zlib-compressed JSON: a page with a long
history stays far below DynamoDB's 400 KB item limit.
"""

import zlib
from datetime import datetime

from pynamodb.attributes import (
    BinaryAttribute,
    ListAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.exceptions import DeleteError, TransactWriteError
from pynamodb.models import Model

from chalicelib.store.base import table_meta, transaction

PAGE = "page"
SUBDOMAIN = "subdomain"
DOMAIN = "domain"
# What a body may weigh once compressed; the rest of the item's 400 KB is keys and headroom.
MAX_BODY_BYTES = 350_000


def key_of(kind: str, value: str) -> str:
    return f"{kind}#{value}"


class PageSnapshot(Model):
    """hash `key` (`page#<id>`, `subdomain#<s>`, `domain#<host>`).

    `built_at` is when the reads behind the body began: a snapshot never replaces one built
    from later reads. `aliases` (on the `page#` item only) lists the other keys written, so
    the next refresh can remove names the page no longer has.
    """

    Meta = table_meta("page-snapshots")
    key = UnicodeAttribute(hash_key=True)
    page_id = UnicodeAttribute()
    body = BinaryAttribute(legacy_encoding=False)
    etag = UnicodeAttribute()
    built_at = UTCDateTimeAttribute()
    aliases = ListAttribute(of=UnicodeAttribute, null=True)


def compress(text: str) -> bytes:
    return zlib.compress(text.encode(), level=6)


def decompress(body: bytes) -> str:
    return zlib.decompress(body).decode()


def read(key: str) -> PageSnapshot | None:
    """The snapshot stored under `key` (one GetItem), or None."""
    try:
        return PageSnapshot.get(key)
    except PageSnapshot.DoesNotExist:
        return None


def read_own(page_id: str) -> PageSnapshot | None:
    """The page's own item, read consistently (a refresh compares against it)."""
    try:
        return PageSnapshot.get(key_of(PAGE, page_id), consistent_read=True)
    except PageSnapshot.DoesNotExist:
        return None


def write(page_id: str, keys: list[str], body: bytes, etag: str, built_at: datetime) -> bool:
    """Put the snapshot under every key, all or none. False when a snapshot built from later
    reads of this page is already stored under one of them (it stays)."""
    aliases = [key for key in keys if key != key_of(PAGE, page_id)]
    try:
        with transaction() as writes:
            for key in keys:
                item = PageSnapshot(
                    key,
                    page_id=page_id,
                    body=body,
                    etag=etag,
                    built_at=built_at,
                    aliases=aliases if key == key_of(PAGE, page_id) else None,
                )
                # A name now held by another page is taken over: claims are unique, so the
                # writer is the page that holds it now.
                writes.save(
                    item,
                    condition=PageSnapshot.key.does_not_exist()
                    | (PageSnapshot.page_id != page_id)
                    | (PageSnapshot.built_at <= built_at),
                )
    except TransactWriteError:
        return False
    return True


def remove(page_id: str, keys: list[str]) -> None:
    """Delete names the page gave up, unless another page has taken them since."""
    for key in keys:
        try:
            PageSnapshot(key).delete(condition=PageSnapshot.page_id == page_id)
        except DeleteError:
            pass  # gone already, or now another page's
