"""Publishing a page: its public files rendered from one consistent read and written to the
site store, where readers get them without the app.

Every committed change the public sees asks for a publish of its page (`request_committed`,
a message on the publish queue); the every-minute function asks again for the pages whose
files are due (a change whose message was lost, or what time alone changes: the page's
day, an outage's growing minutes; `clock_changes`).

A publish that finds the page's files current does nothing, so a burst of writes publishes a
few times, not once per write, and the last write's own message always finds its change
either published or not: the state after the last write is the one that lands. A publish
is `build` (reads and renders, no lock) then `store` (under the page's lock in the site
store: the files, each manifest, the version marker last). `store` gives way to a version
already published that is as new or newer, so an older publish that finishes last never
overwrites a newer one.

Layout in the site store, per mount (`site.Mount`): `{folder}/site.json`, the manifest (each
public path's file, status and headers), and the files it names, with `.gz` and `.br`
siblings where the store serves them; `published/{page_id}.json`, the version marker.
"""

from __future__ import annotations

import gzip
import json
import logging
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from chalicelib import clock, config
from chalicelib.domain import pages
from chalicelib.domain.unit_of_work import Committed
from chalicelib.notify import queues
from chalicelib.observability import metrics
from chalicelib.public import clock_changes, site
from chalicelib.sitestore import SiteStore, branding, current, hosts
from chalicelib.views import content
from chalicelib.views import snapshot as page_snapshot

if TYPE_CHECKING:
    from chalicelib.store.models import Page

try:
    import brotli
except ImportError:  # brotli is optional: gzip alone is served then
    brotli = None

logger = logging.getLogger(__name__)
MANIFEST = "site.json"
# Text worth compressing; icons and redirects are served as they are.
_COMPRESSED_TYPES = ("text/", "application/json", "application/rss", "application/atom")
_COMPRESSED_TYPES += ("application/javascript", "image/svg")
# Quick levels: brotli's best (11) took half a publish's time for little less size.
BROTLI_QUALITY = 5
GZIP_LEVEL = 6


@dataclass
class Build:
    """A page's files at one version, rendered and not yet stored."""

    page_id: str
    changes: int
    rendered_at: str
    due: datetime
    manifests: dict[str, dict] = field(default_factory=dict)
    files: dict[str, list[site.File]] = field(default_factory=dict)
    # When its reads began (epoch seconds): a withdrawal after it is newer than the build.
    started: float = 0.0
    # Each place's manifest as the build found it, and the keys it rendered (the others'
    # inputs were those of their published files).
    old_manifests: dict[str, dict | None] = field(default_factory=dict)
    rendered: dict[str, list[str]] = field(default_factory=dict)
    # The hold of the page's lock the build was made under, if any: `save` under the same
    # hold needs not read the manifests again.
    hold: object = None

    @property
    def version(self) -> tuple[int, str]:
        return self.changes, self.rendered_at


def request_committed(committed: Committed) -> None:
    """After a commit the public sees: ask for a publish of its page (forced for a change
    only its charts show, which leaves the page's version as it was)."""
    if committed.page_id and (committed.public or committed.charted):
        request(committed.page_id, force=committed.charted)


def withdraw_if_hidden(page: Page) -> None:
    """A page just made private or audience-specific: its files say so before the write
    is answered, and give way to the app, rather than a publish later (a publish of the page
    as it was, still on its way, is older and gives way in turn).

    On AWS the API may not write the bucket: the CDN's routing sends every path of the page
    to the app before the answer (`hosts.withdraw`), and the publish function removes the
    files, asked at once."""
    profile = pages.profile_of(page)
    if content.is_private(profile) or content.is_audience_specific(profile):
        if config.site_bucket():
            try:
                hosts.withdraw(page.id)
            except Exception as error:  # the publish asked next withdraws it too, seconds later
                logger.exception("withdrawal of page %s from the CDN failed: %s", page.id, error)
            request(page.id, force=True)
        else:
            publish_page(page.id, force=True)


def request(page_id: str, delay_seconds: int = 0, *, force: bool = False) -> None:
    message = {"page_id": page_id, **({"force": True} if force else {})}
    queues.send(queues.PUBLISH, message, delay_seconds=delay_seconds)


def request_due() -> int:
    """Ask for a publish of every page whose files are due (the every-minute function)."""
    due = page_snapshot.due_pages(clock.now())
    if due:
        queues.send_batch(queues.PUBLISH, [{"page_id": page_id} for page_id in due])
    return len(due)


def settings() -> dict:
    """The settings the files depend on beyond the page (links, hosts): files published
    under others are published again (`is_published`)."""
    return {"public_base_url": config.public_base_url(), "public_domain": config.public_domain()}


def publish_pages(page_ids: Iterable[str], *, force: bool = False) -> None:
    """Publish each page once, however often it is named. A page that fails is logged with
    the reason and the others go on; then the failure is raised, so the queue tries again
    (pages published meanwhile are found current) and, after its tries, keeps the message
    in its dead-letter queue."""
    failed = []
    for page_id in dict.fromkeys(page_ids):
        try:
            publish_page(page_id, force=force)
        except Exception as error:
            logger.exception("publish of page %s failed: %s", page_id, error)
            failed.append(page_id)
    if failed:
        raise RuntimeError(f"publish failed for pages {', '.join(failed)}")


def publish_page(page_id: str, store: SiteStore | None = None, *, force: bool = False) -> str:
    """Publish the page's files unless they are current (or `force`): "current",
    "published", "older" (a newer version was stored meanwhile) or "removed" (there is no
    such page)."""
    store = _Counted(store or current())
    began = time.monotonic()
    known = page_snapshot.publication_of(page_id)
    if known is not None and not force and known.is_current(clock.now()):
        return "current"
    # One build of a page at a time: a publish that waited for another finds the files
    # current, or builds what came after.
    with _exclusive(store, page_id):
        known = page_snapshot.publication_of(page_id)
        if known is not None and not force and known.is_current(clock.now()):
            return "current"
        built = build(page_id, store)
        if built is None:
            remove(page_id, store)
            if known is not None:
                page_snapshot.forget(page_id)
            return "removed"
        if not save(built, store):
            return "older"
    page_snapshot.mark_published(page_id, built.changes, built.due)
    if known is not None and (known.published_changes or 0) < built.changes:  # shows a new write
        metrics.publish_delay(
            known.changed_at,
            page_id,
            seconds=round(time.monotonic() - began, 3),
            rendered=sum(len(keys) for keys in built.rendered.values()),
            store_reads=store.reads,
            store_writes=store.writes,
        )
    if known is not None and (known.published_changes or 0) < built.changes < known.changes:
        # Built before the indexes showed the last change: once more when they do. Only
        # while builds move on: one that shows no more than the last would ask forever.
        request(page_id, delay_seconds=max(1, int(config.index_settle_seconds())))
    return "published"


def build(page_id: str, store: SiteStore) -> Build | None:
    """The page's files from one consistent read; None when there is no such page."""
    started = time.time()
    snapshot = page_snapshot.refresh(page_id, stored=False)
    if snapshot is None:
        return None
    page = pages.find_page(page_id, consistent=True)
    if page is None:
        return None
    now = clock.now()
    built = Build(
        page_id,
        snapshot.changes,
        datetime.now(UTC).isoformat(),  # wall time: it orders real publishes
        due=_due(snapshot.content, now),
        started=started,
        hold=_hold_of(page_id),
    )
    dynamic = site.is_dynamic(snapshot)
    reads: dict = {}
    for mount in site.mounts_of(page):
        # Read once: `save`, under the same hold of the lock, compares with it too.
        old = _read_json(store, _at(mount.folder))
        built.old_manifests[mount.folder] = old
        built.rendered[mount.folder] = []
        if dynamic:
            built.manifests[mount.folder] = {"page_id": page_id, "dynamic": True, "files": {}}
            built.files[mount.folder] = []
            continue
        old_files = (old or {}).get("files", {}) if (old or {}).get("page_id") == page_id else {}
        entries: dict[str, dict] = {}

        def unchanged(key: str, source: str | None, old_files=old_files, entries=entries) -> bool:
            # A file made of the same inputs as the one published is kept as it is.
            entry = old_files.get(key)
            if source is None or entry is None or entry.get("source") != source:
                return False
            entries[key] = entry
            return True

        rendered = list(site.render(snapshot, mount, skip=unchanged, reads=reads))
        for file in rendered:
            entries[file.key] = _entry(file, old_files.get(file.key), built.rendered_at, store)
            if file.source is not None:
                entries[file.key]["source"] = file.source
        built.manifests[mount.folder] = {
            "page_id": page_id,
            "dynamic": False,
            "variant_keys": list(site.VARIANT_KEYS),
            "files": entries,
        }
        built.rendered[mount.folder] = [file.key for file in rendered]
        fresh = [f for f in rendered if old_files.get(f.key, {}).get("etag") != f.etag]
        built.files[mount.folder] = fresh
    return built


def _entry(file: site.File, old: dict | None, rendered_at: str, store: SiteStore) -> dict:
    kept = old is not None and old.get("etag") == file.etag
    return {
        "file": file.name,
        "status": file.status,
        "etag": file.etag,
        "modified": old["modified"] if kept else rendered_at,
        "headers": file.headers,
        "encodings": _encodings(file) if store.precompressed else [],
    }


def _encodings(file: site.File) -> list[str]:
    if not file.body or not file.headers.get("Content-Type", "").startswith(_COMPRESSED_TYPES):
        return []
    return ["br", "gzip"] if brotli is not None else ["gzip"]


def _due(data: dict, now: datetime) -> datetime:
    """When the page's files change with time alone (`clock_changes`): its next midnight,
    and the next ten minutes while an outage's minutes grow. Metric charts are not due: they
    slide in the reader's browser, and their data's arrival asks for a publish itself."""
    return clock_changes.next_change(data, now)


def save(built: Build, store: SiteStore) -> bool:
    """Store the build under the page's lock, unless a version as new or newer is there:
    files first, then each manifest, the version marker last. False when it gave way.

    Only what changed is written: files whose body or headers changed, manifests that
    changed, and the marker when anything did (or the snapshot's version moved on, which an
    older build must give way to). Publishing an unchanged page again writes nothing. On AWS
    the CDN's routing (`hosts.Routing`) learns of new paths and places after their files are
    written, and forgets old ones before their files are deleted."""
    with _exclusive(store, built.page_id):
        marker = _read_json(store, _marker_path(built.page_id))
        if marker is not None and (marker["changes"], marker["rendered_at"]) >= built.version:
            return False
        routing = hosts.Routing.of(built.page_id, built.manifests, (marker or {}).get("routing"))
        routing.before_files(built.started)
        wrote = False
        held = built.hold is not None and _hold_of(built.page_id) is built.hold
        for folder, manifest in built.manifests.items():
            old = built.old_manifests.get(folder) if held else _read_json(store, _at(folder))
            wrote |= _save_mount(store, built.page_id, folder, manifest, built.files[folder], old)
        for folder in (marker or {}).get("mounts", []):
            if folder not in built.manifests:
                _remove_mount(store, built.page_id, folder)
                wrote = True
        routed = routing.after_files(built.started)
        new_marker = {
            "page_id": built.page_id,
            "changes": built.changes,
            "rendered_at": built.rendered_at,
            "mounts": sorted(built.manifests),
            "settings": settings(),
            **({"routing": routed} if routed is not None else {}),
        }
        unchanged = ("changes", "mounts", "settings", "routing")
        if wrote or marker is None or any(marker.get(k) != new_marker.get(k) for k in unchanged):
            store.write(_marker_path(built.page_id), json.dumps(new_marker).encode(), _JSON)
    return True


_JSON = {"Content-Type": "application/json", "Cache-Control": "no-store"}


def _save_mount(
    store: SiteStore,
    page_id: str,
    folder: str,
    manifest: dict,
    files: list[site.File],
    old: dict | None,
) -> bool:
    """Write the mount's changed files and its manifest if it changed, then delete the files
    it no longer names (`old`: the manifest stored); whether anything was written."""
    if old is not None and old.get("page_id") != page_id:
        store.delete_tree(f"{folder}/")  # a host or subdomain another page had before
        old = None
    for file in files:
        entry = manifest["files"][file.key]
        path = f"{folder}/{file.name}"
        store.write(path, file.body, file.headers, file.status)
        if "gzip" in entry["encodings"]:
            compressed = gzip.compress(file.body, GZIP_LEVEL, mtime=0)
            store.write(path + ".gz", compressed, file.headers, file.status)
        if "br" in entry["encodings"]:
            compressed = brotli.compress(file.body, quality=BROTLI_QUALITY)
            store.write(path + ".br", compressed, file.headers, file.status)
    changed = manifest != old
    if changed:
        store.write(_at(folder), json.dumps(manifest).encode(), _JSON)
    kept = {entry["file"] for entry in manifest["files"].values()}
    suffixes = ("", ".gz", ".br") if store.precompressed else ("",)
    for entry in (old or {}).get("files", {}).values():
        if entry["file"] not in kept:
            for suffix in suffixes:
                store.delete(f"{folder}/{entry['file']}{suffix}")
    return bool(files) or changed


def remove(page_id: str, store: SiteStore | None = None) -> None:
    """A page that is gone: out of the CDN's routing, then every mount it had, its uploaded
    images, then its marker."""
    store = store or current()
    with _exclusive(store, page_id):
        marker = _read_json(store, _marker_path(page_id)) or {}
        hosts.forget(page_id, marker.get("mounts", []))
        for folder in marker.get("mounts", []):
            _remove_mount(store, page_id, folder)
        branding.remove_all(page_id, store)
        store.delete(_marker_path(page_id))


def _remove_mount(store: SiteStore, page_id: str, folder: str) -> None:
    # Only while it is still this page's: another page may have taken the host since.
    manifest = _read_json(store, _at(folder))
    if manifest is not None and manifest.get("page_id") == page_id:
        store.delete_tree(f"{folder}/")


def is_published(page_id: str, store: SiteStore | None = None) -> bool:
    """Whether the page's files were published, under today's settings (on AWS: and are in
    the CDN's routing, which a version before it did not keep)."""
    marker = _read_json(store or current(), _marker_path(page_id))
    if marker is None or marker.get("settings") != settings():
        return False
    return "routing" in marker or not hosts.enabled()


@contextmanager
def _exclusive(store: SiteStore, page_id: str) -> Iterator[None]:
    """The page's lock in the store, taken once by a thread however often it asks."""
    held = _held.__dict__.setdefault("pages", {})
    if page_id in held:
        yield
        return
    with store.exclusive(page_id):
        held[page_id] = object()
        try:
            yield
        finally:
            del held[page_id]


class _Counted:
    """A store that counts the requests made of it: what a publish cost, in its metric line."""

    def __init__(self, store: SiteStore):
        self.store = store
        self.precompressed = store.precompressed
        self.reads = self.writes = 0

    def read(self, path: str) -> bytes | None:
        self.reads += 1
        return self.store.read(path)

    def write(self, path: str, body: bytes, headers: dict[str, str], status: int = 200) -> None:
        self.writes += 1
        self.store.write(path, body, headers, status)

    def delete(self, path: str) -> None:
        self.writes += 1
        self.store.delete(path)

    def delete_tree(self, prefix: str) -> None:
        self.writes += 1
        self.store.delete_tree(prefix)

    def exclusive(self, page_id: str) -> AbstractContextManager[None]:
        return self.store.exclusive(page_id)


def _hold_of(page_id: str) -> object:
    """This thread's hold of the page's lock (a new one each time it is taken), or None."""
    return _held.__dict__.get("pages", {}).get(page_id)


def _at(folder: str) -> str:
    return f"{folder}/{MANIFEST}"


_held = threading.local()


def _marker_path(page_id: str) -> str:
    return f"published/{page_id}.json"


def _read_json(store: SiteStore, path: str) -> dict | None:
    raw = store.read(path)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None  # a file damaged by hand: written anew
