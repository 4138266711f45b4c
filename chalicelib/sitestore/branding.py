"""Images uploaded for a page (its logo, icon and cover), kept in the site store beside its
published files: `branding/{page_id}/{sha256}.{extension}`.

A file is named by the hash of its bytes, so a name always means the same bytes: readers and
the CDN may keep it for good, and a new image is a new name (the page's field changes, and
the page is published anew). Files live outside the page's places (`s/{ref}/`, `hosts/...`),
which a publish replaces or removes whole when the page is made private or its address
changes: an image outlives those, and goes when the page is deleted (`remove_all`).
"""

import hashlib
import re

from chalicelib.sitestore import SiteStore, current

FOLDER = "branding"
# A name is the file's hash: whatever is once served under it never changes.
CACHE_CONTROL = "public, max-age=31536000, immutable"
_NAME = re.compile(r"^[0-9a-f]{64}\.[a-z]{2,4}$")


def store(page_id: str, content: bytes, extension: str, content_type: str) -> str:
    """Keep an image of the page; its file name."""
    name = f"{hashlib.sha256(content).hexdigest()}.{extension}"
    headers = {"Content-Type": content_type, "Cache-Control": CACHE_CONTROL}
    current().write(_path(page_id, name), content, headers)
    return name


def read(page_id: str, name: str) -> bytes | None:
    """An image of the page by its file name; None when there is none (or the name cannot
    be one)."""
    if not _NAME.match(name):
        return None
    return current().read(_path(page_id, name))


def remove_all(page_id: str, store: SiteStore | None = None) -> None:
    """Every image of a page that is gone."""
    (store or current()).delete_tree(f"{FOLDER}/{page_id}/")


def _path(page_id: str, name: str) -> str:
    return f"{FOLDER}/{page_id}/{name}"
