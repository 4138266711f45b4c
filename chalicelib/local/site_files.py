"""The published site folder, read as a static host reads it: which file answers a request,
and the whole answer, built once and kept in memory.

The publisher (`chalicelib/public/`) writes every public artifact of a page into a *mount*
under the site folder, and a manifest naming them last:

    site/s/{ref}/site.json        the page as served under /s/{ref} (ref: page id or subdomain)
    site/hosts/{host}/site.json   the page as served at the root of Host: {host}
    site/.../{file}[.gz|.br]      the files the manifest names, with precompressed siblings

A manifest maps each public path (relative to the mount, `""` for the page itself, `rel?k=v`
for a variant such as `history?quarter=2026-Q4`) to its file, status and headers; a page
answered by the app (private, audience-specific) says `"dynamic": true`.

`SiteFiles(root).answer(method, host, target, headers)` is the whole decision, with no
sockets: an `Answer` to send, or None when the app answers instead (another method, no
manifest, a dynamic page, a path or variant the manifest does not name). A path that tries
to leave the folder is a 404 here and never reaches the app: no public path has a `..`, an
encoded slash or a dotted segment in it.

Manifests and files are read once and kept, with every answer built from them, until the
manifest changes (looked at every `RECHECK_SECONDS`); then the mount starts anew. A file
newer than the manifest read is not served with it: a publish writes its files first, so
that file belongs to the manifest coming next, and until then the app answers its path.
"""

import email.utils
import http
import json
import logging
import os
import re
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qsl, unquote

from chalicelib.http import errors

log = logging.getLogger(__name__)

MANIFEST = "site.json"
# How often a mount's manifest is looked at again (a stat); a publish shows within this.
RECHECK_SECONDS = 0.05
_REF = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
# Empty segments, encoded separators and NUL: no public path has them, and a file system
# reads them as paths.
_UNSAFE_IN_PATH = re.compile(r"//|\\|%2f|%5c|%00|\x00", re.IGNORECASE)
# Headers this module writes itself; a manifest's own are left out.
_OWN_HEADERS = {
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "date",
    "etag",
    "last-modified",
}
_NOT_IN_304 = {"content-type", "content-length", "content-encoding"}
_SUFFIXES = {"br": ".br", "gzip": ".gz"}
# Bounds of the memos (distinct mounts looked up, requests, Accept-Encoding values).
_MAX_MOUNTS = 10_000
_MAX_REMEMBERED = 10_000
_MAX_ACCEPT_VALUES = 256


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


class Answer:
    """One whole HTTP answer: `status`, `headers` (without `Date`, which `wire` adds) and
    `body` (empty for HEAD and 304). Answers are built once and shared: do not change them."""

    __slots__ = ("status", "headers", "body", "_head", "_date", "_wire")

    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes):
        self.status = status
        self.headers = headers
        self.body = body
        lines = [f"HTTP/1.1 {status} {_reason(status)}"]
        lines += [f"{name}: {value}" for name, value in headers]
        self._head = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        self._date = b""
        self._wire = b""

    def header(self, name: str) -> str | None:
        """The value of header `name` (any case), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    def wire(self, date: bytes | None = None) -> bytes:
        """The answer's bytes as sent, with `Date: date` (an HTTP-date; now by default)."""
        date = date or http_date(time.time())
        if date != self._date:  # once a second per answer, not once a request
            self._wire = b"".join((self._head, b"Date: ", date, b"\r\n\r\n", self.body))
            self._date = date
        return self._wire


def http_date(seconds: float) -> bytes:
    return email.utils.formatdate(seconds, usegmt=True).encode()


class SiteFiles:
    """The site folder at `root`, its manifests and files read once and kept in memory."""

    def __init__(self, root: Path | str, recheck_seconds: float = RECHECK_SECONDS):
        self.root = os.path.realpath(root)
        self.recheck_seconds = recheck_seconds
        self._mounts: dict[tuple[str, str], _Mount] = {}
        # Requests answered before, with the mount and manifest (generation) that decided.
        self._remembered: dict[tuple, tuple[_Mount, int, Answer | None]] = {}
        self._accepted: dict[str, tuple[str, ...]] = {}

    def answer(
        self, method: str, host: str | None, target: str, headers: Mapping[str, str]
    ) -> "Answer | None":
        """What the files answer to `method target` on `Host: host`, or None: the app answers.

        `target` is the request-target as sent (`/s/abc/history?quarter=2026-Q4`); `headers`
        the request's fields (any case; only If-None-Match, If-Modified-Since and
        Accept-Encoding are read)."""
        lowered = {name.lower(): value for name, value in headers.items()}
        return self.answer_lowered(method, host, target, lowered)

    def answer_lowered(
        self, method: str, host: str | None, target: str, headers: Mapping[str, str]
    ) -> "Answer | None":
        """`answer`, with `headers` named in lower case already (the server's fast path)."""
        if method != "GET" and method != "HEAD":
            return None
        get = headers.get
        asked = (
            method,
            host,
            target,
            get("if-none-match"),
            get("if-modified-since"),
            get("accept-encoding"),
        )
        remembered = self._remembered.get(asked)
        if remembered is not None:
            mount, generation, answer = remembered
            now = time.monotonic()
            if now - mount.checked_at >= self.recheck_seconds:
                mount.refresh(now)
            if mount.generation == generation:
                return answer
        mount, answer = self._decide(method, host, target, headers)
        if mount is not None and answer is not PUBLISHING:
            if len(self._remembered) >= _MAX_REMEMBERED:
                self._remembered.clear()
            self._remembered[asked] = (mount, mount.generation, answer)
        return answer

    def _decide(
        self, method: str, host: str | None, target: str, headers: Mapping[str, str]
    ) -> "tuple[_Mount | None, Answer | None]":
        """The answer, and the mount it depends on (None: on none, not worth remembering)."""
        path, _, query = target.partition("?")
        if path.startswith("/s/"):
            if _unsafe(path):
                return None, _NOT_FOUND
            ref, _, rel = path[3:].partition("/")
            if not _REF.match(ref):
                return None, None
            mount = self._mount("s", ref)
        elif path.startswith("/"):
            name = _host_name(host)
            if name is None:
                return None, None
            mount = self._mount("hosts", name)
            rel = path
        else:
            return None, None  # absolute-form or `*`: the app's to answer
        if mount.files is None or mount.dynamic:
            return mount, None
        if mount.kind == "hosts" and _unsafe(path):
            return None, _NOT_FOUND
        key = unquote(rel).strip("/")
        if query and mount.variant_keys:
            chosen = [(k, v) for k, v in _query(query) if k in mount.variant_keys]
            if len(chosen) > 1:
                return mount, None  # both a quarter and a month, say: the app decides
            if chosen:
                key = f"{key}?{chosen[0][0]}={chosen[0][1]}"
        entry = mount.entry(key)
        if entry is None:
            return mount, None
        return mount, entry.answer(method == "HEAD", headers, self._accepted_encodings)

    def _mount(self, kind: str, name: str) -> "_Mount":
        mounts = self._mounts
        mount = mounts.get((kind, name))
        now = time.monotonic()
        if mount is None:
            if len(mounts) >= _MAX_MOUNTS:
                mounts.clear()  # random Host headers must not grow this without bound
            mount = mounts[(kind, name)] = _Mount(self.root, kind, name)
            mount.refresh(now)
        elif now - mount.checked_at >= self.recheck_seconds:
            mount.refresh(now)
        return mount

    def _accepted_encodings(self, accept_encoding: str | None) -> tuple[str, ...]:
        """The precompressed encodings `Accept-Encoding` allows, preferred first."""
        if not accept_encoding:
            return ()
        found = self._accepted.get(accept_encoding)
        if found is None:
            found = _accepted(accept_encoding)
            if len(self._accepted) >= _MAX_ACCEPT_VALUES:
                self._accepted.clear()
            self._accepted[accept_encoding] = found
        return found


class _Mount:
    """One mount folder: its manifest (read again when `site.json` changes) and the entries
    built from it; a new manifest starts from nothing, so no file outlives its manifest."""

    def __init__(self, root: str, kind: str, name: str):
        self.root = root
        self.kind = kind
        self.directory = os.path.join(root, kind, name)
        self.checked_at = 0.0
        self.signature: tuple | None = None
        self.generation = 0  # one more each time the manifest changes
        self.real = ""
        self.files: dict | None = None  # None: no readable manifest
        self.dynamic = False
        self.variant_keys: frozenset[str] = frozenset()
        self.entries: dict[str, _Entry | _Refused | None] = {}

    def refresh(self, now: float) -> None:
        self.checked_at = now
        try:
            found = _signature(os.stat(os.path.join(self.directory, MANIFEST)))
        except OSError:
            found = None
        if found == self.signature:
            return
        self.signature = found
        self.generation += 1
        self.files, self.dynamic, self.variant_keys, self.entries = None, False, frozenset(), {}
        if found is not None:
            self._load()

    def _load(self) -> None:
        real = os.path.realpath(self.directory)
        if not real.startswith(self.root + os.sep):
            log.warning("site mount %s leaves the site folder; not served", self.directory)
            return
        try:
            with open(os.path.join(real, MANIFEST), "rb") as manifest_file:
                # What was read, should another manifest have replaced it since the stat.
                self.signature = _signature(os.fstat(manifest_file.fileno()))
                manifest = json.loads(manifest_file.read())
            files = manifest["files"]
            variant_keys = manifest.get("variant_keys") or []
            if not isinstance(files, dict) or not isinstance(variant_keys, list):
                raise ValueError("files is not an object, or variant_keys not a list")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning("site manifest %s unreadable: %s", self.directory, error)
            return
        self.real = real
        self.files = files
        self.dynamic = manifest.get("dynamic") is True
        self.variant_keys = frozenset(k for k in variant_keys if isinstance(k, str))

    def entry(self, key: str) -> "_Entry | _Refused | None":
        try:
            return self.entries[key]
        except KeyError:
            pass
        described = self.files.get(key)
        if described is None:
            return None  # not remembered: any path may be asked for
        try:
            entry = _Entry(self.real, described, self.signature[2])
        except _Unpublished:
            return _IN_PUBLISH  # not kept: asked again until the next manifest is read
        except _Escapes as escape:
            log.warning("site file of %r in %s leaves its folder: %s", key, self.real, escape)
            entry = _REFUSED
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning("site file of %r in %s unusable: %s", key, self.real, error)
            entry = None
        self.entries[key] = entry
        return entry


class _Escapes(Exception):
    """A manifest names a file outside its mount (`..`, an absolute path, a symlink out)."""


class _Unpublished(Exception):
    """A file newer than the manifest read: a publish is under way, whose files come before
    its manifest. Served with the older manifest's headers it would be a mix of two versions
    (a body with another body's style hashes in its policy)."""


def _signature(status: os.stat_result) -> tuple[int, int, int, int]:
    """What changes when a manifest is replaced; `[2]` is its modification time."""
    return (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_size)


class _Entry:
    """One path of a manifest: its headers and its bodies, each answer built once."""

    def __init__(self, directory: str, described: dict, published_ns: int):
        status = described.get("status", 200)
        if not isinstance(status, int) or isinstance(status, bool) or not 200 <= status <= 599:
            raise ValueError(f"status {status!r}")
        self.status = status
        self.etag = described.get("etag") or None
        modified = described.get("modified")
        self.modified = _timestamp(modified) if modified else None
        encodings = described.get("encodings") or []
        listed = [e for e in encodings if e in _SUFFIXES]
        headers: list[tuple[str, str]] = []
        vary = "Accept-Encoding" if listed else None
        for name, value in (described.get("headers") or {}).items():
            value = str(value)
            if not _HEADER_NAME.match(name) or any(c in value for c in "\r\n\x00"):
                raise ValueError(f"header {name!r}")
            if name.lower() in _OWN_HEADERS:
                continue
            if name.lower() == "vary" and vary is not None:
                if "accept-encoding" not in value.lower().replace(" ", "").split(","):
                    value = f"{value}, {vary}"
                vary = None
            headers.append((name, value))
        if vary is not None:
            headers.append(("Vary", vary))
        if self.etag is not None:
            if any(c in self.etag for c in "\r\n\x00"):
                raise ValueError("etag")
            headers.append(("ETag", self.etag))
        if self.modified is not None:
            headers.append(("Last-Modified", http_date(self.modified).decode()))
        self.headers = headers
        file = described.get("file")
        # The body of each encoding offered: identity always, a sibling when it is there.
        self.bodies: dict[str | None, bytes] = {
            None: _read(directory, file, published_ns) if file else b""
        }
        for encoding in listed if file else ():
            try:
                self.bodies[encoding] = _read(directory, file + _SUFFIXES[encoding], published_ns)
            except FileNotFoundError:
                pass
        self.answers: dict[tuple, Answer] = {}

    def answer(self, head_only: bool, headers: Mapping[str, str], accepted) -> Answer:
        not_modified = False
        if self.status == 200:
            if_none_match = headers.get("if-none-match")
            if if_none_match is not None:
                not_modified = self.etag is not None and _matches(if_none_match, self.etag)
            elif self.modified is not None and "if-modified-since" in headers:
                since = _timestamp_of_http_date(headers["if-modified-since"])
                not_modified = since is not None and since >= int(self.modified)
        encoding = None
        if not not_modified and len(self.bodies) > 1:
            for offered in accepted(headers.get("accept-encoding")):
                if offered in self.bodies:
                    encoding = offered
                    break
        kind = (not_modified, head_only, encoding)
        answer = self.answers.get(kind)
        if answer is None:
            answer = self.answers[kind] = self._build(not_modified, head_only, encoding)
        return answer

    def _build(self, not_modified: bool, head_only: bool, encoding: str | None) -> Answer:
        if not_modified:
            headers = [(n, v) for n, v in self.headers if n.lower() not in _NOT_IN_304]
            return Answer(304, headers, b"")
        body = self.bodies[encoding]
        headers = list(self.headers)
        if encoding is not None:
            headers.append(("Content-Encoding", encoding))
        headers.append(("Content-Length", str(len(body))))
        return Answer(self.status, headers, b"" if head_only else body)


class _Refused:
    """The entry of a path whose file lies outside its mount: a 404, whatever is asked."""

    def answer(self, head_only: bool, headers: Mapping[str, str], accepted) -> Answer:
        return _NOT_FOUND


_REFUSED = _Refused()


class _InPublish:
    """The entry of a path whose file a publish under way has replaced, its manifest still
    to come: asked again shortly, never answered by the app (which may be down, the reason
    a reader gets files)."""

    def answer(self, head_only: bool, headers: Mapping[str, str], accepted) -> Answer:
        return PUBLISHING


_IN_PUBLISH = _InPublish()


def _refusal() -> Answer:
    body = json.dumps(errors.not_found().body()).encode()
    headers = [
        ("Content-Type", "application/json"),
        ("Cache-Control", "no-store"),
        ("Content-Length", str(len(body))),
    ]
    return Answer(404, headers, body)


_NOT_FOUND = _refusal()
# What `answer` says of a path whose new file is written and whose manifest is not yet: ask
# again in a moment (a publish writes its manifest milliseconds after its files).
PUBLISHING = Answer(503, [], b"")


def _read(directory: str, relative: str, published_ns: int) -> bytes:
    """The bytes of `relative` inside `directory`, never of a file outside it nor of one
    written after `published_ns` (its manifest's modification time)."""
    if not isinstance(relative, str) or "\x00" in relative or os.path.isabs(relative):
        raise _Escapes(repr(relative))
    path = os.path.realpath(os.path.join(directory, relative))
    if not path.startswith(directory + os.sep):
        raise _Escapes(f"{relative!r} is {path}")
    # The path is resolved: a symlink put in its place since is not followed.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as opened:
        if os.fstat(descriptor).st_mtime_ns > published_ns:
            raise _Unpublished(path)
        return opened.read()


def _unsafe(path: str) -> bool:
    """Whether `path` has an empty, dotted (`..`, `%2e%2e`, `.hidden`) or encoded separator
    segment, or a NUL: no public path has one."""
    if _UNSAFE_IN_PATH.search(path) is not None:
        return True
    decoded = unquote(path) if "%" in path else path
    return "/." in decoded or "\x00" in decoded


def _host_name(host: str | None) -> str | None:
    """`Host` as a mount's name (lower case, no port, no trailing dot), or None."""
    if not host:
        return None
    name = host.split(":", 1)[0].strip().lower().rstrip(".")
    return name if _HOST.match(name) else None


def _query(query: str) -> list[tuple[str, str]]:
    try:
        return parse_qsl(query, keep_blank_values=True, max_num_fields=100)
    except ValueError:
        return []


def _matches(if_none_match: str, etag: str) -> bool:
    """As `chalicelib.public.caching.matches`: `*`, or any tag of the list, weak or strong."""
    if if_none_match.strip() == "*":
        return True
    return etag in [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]


def _accepted(accept_encoding: str) -> tuple[str, ...]:
    """`br` then `gzip`, those of them `Accept-Encoding` allows (q=0 refuses; `*` stands for
    any not named)."""
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        coding, *parameters = (piece.strip() for piece in part.split(";"))
        weight = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if coding:
            weights[coding.lower()] = weight
    anything = weights.get("*", 0.0)
    return tuple(coding for coding in ("br", "gzip") if weights.get(coding, anything) > 0)


def _timestamp(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _timestamp_of_http_date(value: str) -> float | None:
    try:
        return email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
