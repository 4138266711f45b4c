"""The published site's routing on AWS: which page each place serves, and which of its paths
are files, in the CloudFront KeyValueStore that CloudFront's viewer-request function reads
(`infra/cloudfront/viewer-request.js`). The publisher keeps it; nothing else writes it but the
API's withdrawal of a page made private or audience-specific.

Keys and values:

    s/{ref}, hosts/{host}    a mount folder (`site.Mount.folder`) -> the page id
    p/{page_id}              the page's record, JSON: {"k": [...], "i": [...]}, the paths it
                             publishes beyond `ALWAYS` (variants such as
                             `history?quarter=2026-Q3`) and the ids of its incident pages;
                             or {"d": 1, "t": ms} for a page the app answers (private or
                             audience-specific; `t` when the API withdrew it)

The function answers a path from the bucket only when the record names it (or it is one of
`ALWAYS`); any other path of the page (an older quarter, an incident older than 15 days, a
page published a second ago, not yet here) goes to the app, which answers it as before. So the
store never names a file that is not in the bucket: a publish writes the files before the
store names them, and takes a path or a place out of the store before it deletes its files.

The store's API signs with SigV4A, which botocore does only with the `awscrt` package
(`botocore[crt]` in requirements.txt). Without `SITE_HOSTS_STORE` (under `make run`) nothing
here does anything: the local front reads the manifests instead.
"""

import json
import time
from collections.abc import Iterable
from functools import lru_cache

import boto3
from botocore.exceptions import ClientError

from chalicelib import config

# The paths every page the files answer publishes, the same for every page (the function
# knows them too: `ALWAYS` in viewer-request.js; tests/infra checks both against a publish).
ALWAYS = (
    "",
    "history",
    "history.rss",
    "history.atom",
    "embed/status.js",
    "favicon.ico",
    "subscribe",
    "api/v2/summary.json",
    "api/v2/status.json",
    "api/v2/components.json",
    "api/v2/incidents.json",
    "api/v2/incidents/unresolved.json",
    "api/v2/scheduled-maintenances.json",
    "api/v2/scheduled-maintenances/upcoming.json",
    "api/v2/scheduled-maintenances/active.json",
)
INCIDENTS = "incidents/"
PAGE_PREFIX = "p/"
# A value holds at most 1 KB: past that the oldest incidents are left out (the app answers
# their pages).
MAX_VALUE_BYTES = 1024
# UpdateKeys is conditional on the store's ETag: a writer that lost the race reads it again.
ATTEMPTS = 5


def enabled() -> bool:
    return bool(config.site_hosts_store())


@lru_cache(maxsize=1)
def _client():
    return boto3.client("cloudfront-keyvaluestore", region_name=config.region())


def page_key(page_id: str) -> str:
    return PAGE_PREFIX + page_id


def encode(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True)


def record_of(manifest: dict) -> dict:
    """The record of a page from one of its manifests (every mount has the same paths)."""
    if manifest.get("dynamic"):
        return {"d": 1}
    keys = list(manifest.get("files", {}))
    incidents = sorted(
        (key.removeprefix(INCIDENTS) for key in keys if key.startswith(INCIDENTS)),
        reverse=True,  # ids sort by time: the newest first, kept when the value is full
    )
    others = sorted(key for key in keys if key not in ALWAYS and not key.startswith(INCIDENTS))
    record = {"i": incidents, "k": others}
    while len(encode(record).encode()) > MAX_VALUE_BYTES and (record["i"] or record["k"]):
        (record["i"] or record["k"]).pop()
    return record


def routing_of(page_id: str, manifests: dict[str, dict]) -> dict:
    """What the store should say of a page published with `manifests` (by mount folder)."""
    own = manifests.get(f"s/{page_id}") or next(iter(manifests.values()), {})
    return {"mounts": sorted(manifests), "record": record_of(own)}


def _narrowed(old: dict, new: dict) -> dict:
    """What `old` and `new` both name: the record that holds while the files change."""
    if new.get("d") or old.get("d"):
        return new if new.get("d") else old
    return {name: [item for item in new.get(name, []) if item in old.get(name, [])] for name in new}


class Routing:
    """A publish's change of the store, around the writes of its files: `before_files` takes
    out of the store what is going (paths, places), `after_files` adds what came."""

    def __init__(self, page_id: str, old: dict | None, new: dict | None):
        self.page_id = page_id
        self.old = old
        self.new = new

    @classmethod
    def of(cls, page_id: str, manifests: dict[str, dict], old: dict | None) -> "Routing":
        return cls(page_id, old, routing_of(page_id, manifests) if enabled() else None)

    @property
    def changed(self) -> bool:
        return self.new is not None and self.new != self.old

    def before_files(self, started: float) -> None:
        """`started`: when the publish began reading the page (see `after_files`)."""
        if not self.changed or self.old is None:
            return
        gone = [folder for folder in self.old["mounts"] if folder not in self.new["mounts"]]
        narrowed = _narrowed(self.old["record"], self.new["record"])
        if gone or narrowed != self.old["record"]:
            HostsStore().route(self.page_id, gone=gone, record=narrowed, since=started)

    def after_files(self, started: float) -> dict | None:
        """The routing the store holds now (for the version marker), or None when it was
        left as it is: the page was withdrawn after this publish began reading it."""
        if not self.changed:
            return self.old if self.new is not None else None
        stored = HostsStore().route(
            self.page_id, mounts=self.new["mounts"], record=self.new["record"], since=started
        )
        return self.new if stored else None


class HostsStore:
    """The KeyValueStore named by `SITE_HOSTS_STORE`."""

    def __init__(self, arn: str = ""):
        self.arn = arn or config.site_hosts_store()
        if not self.arn:
            raise ValueError("no hosts store: SITE_HOSTS_STORE is not set")

    def get(self, key: str) -> str | None:
        try:
            return _client().get_key(KvsARN=self.arn, Key=key)["Value"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                return None
            raise

    def route(
        self,
        page_id: str,
        *,
        mounts: Iterable[str] = (),
        gone: Iterable[str] = (),
        record: dict | None = None,
        since: float | None = None,
        forget: bool = False,
    ) -> bool:
        """Point `mounts` at the page, take `gone` out (those still pointing at it: another
        page may have the host now) and store its `record` (or, `forget`, drop it), in one
        conditional update. With `since` (a publish's start, epoch seconds), a record of a page
        the files answer is not stored over a withdrawal made after it: False then."""
        mounts, gone = list(mounts), list(gone)
        for _ in range(ATTEMPTS):
            etag = _client().describe_key_value_store(KvsARN=self.arn)["ETag"]
            puts = {folder: page_id for folder in mounts}
            stored = True
            if record is not None:
                if (
                    since is not None
                    and not record.get("d")
                    and self._withdrawn_after(page_id, since)
                ):
                    stored = False
                else:
                    puts[page_key(page_id)] = encode(record)
            deletes = [folder for folder in gone if self.get(folder) == page_id]
            if forget:
                deletes.append(page_key(page_id))
            if not puts and not deletes:
                return stored
            try:
                _client().update_keys(
                    KvsARN=self.arn,
                    IfMatch=etag,
                    Puts=[{"Key": key, "Value": value} for key, value in puts.items()],
                    Deletes=[{"Key": key} for key in deletes],
                )
                return stored
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != "ConflictException":
                    raise
        raise RuntimeError(f"the hosts store kept changing under page {page_id}'s update")

    def _withdrawn_after(self, page_id: str, since: float) -> bool:
        value = self.get(page_key(page_id))
        if value is None:
            return False
        try:
            record = json.loads(value)
        except ValueError:
            return False
        return bool(record.get("d")) and record.get("t", 0) >= int(since * 1000)

    def forget(self, page_id: str, mounts: Iterable[str]) -> None:
        """A page that is gone: its places (those still its own) and its record."""
        self.route(page_id, gone=mounts, forget=True)


def withdraw(page_id: str) -> None:
    """A page just made private or audience-specific: every path of it goes to the app from
    now on (within the store's propagation, seconds), before its files are removed by the
    publish function. The API may not write the bucket; it may say this."""
    if enabled():
        record = {"d": 1, "t": int(time.time() * 1000)}
        HostsStore().route(page_id, record=record)


def forget(page_id: str, mounts: Iterable[str]) -> None:
    if enabled():
        HostsStore().forget(page_id, mounts)
