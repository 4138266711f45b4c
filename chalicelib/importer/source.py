"""The source: a Statuspage-compatible v1 API, read at a polite pace.

Requests start at most `rate` a second (Statuspage allows about one); a 420 or 429 waits for
its `Retry-After` and tries again. Every failure becomes a `SourceError` whose message says
what is wrong in words a user can act on. The key goes into the `Authorization` header and
nowhere else: no message, log or exception carries it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import urllib3

from chalicelib import net

THROTTLED = (420, 429)
# Server faults and throttling are retried this many times before giving up.
ATTEMPTS = 6
LONGEST_WAIT_SECONDS = 120
PAGE_SIZE = 100


class SourceError(Exception):
    """The source cannot be read as asked; the message says why."""


class SourceMissing(SourceError):
    """The source has no such thing (404) or does not serve this read (405): fatal for what
    an import needs, a plain answer for a read only some sources have."""


class Reader:
    """A reader of a Statuspage-compatible v1 API: `get` one path; the lists read with it."""

    requests = 0

    def get(self, path: str, **query) -> object:
        """The decoded JSON body of `GET path?query`."""
        raise NotImplementedError

    def pages(self, path: str, style: str = "page", **query) -> Iterator[dict]:
        """Every item of a list, a page at a time, in the source's paging `style`:
        `page` (1-based `page` and `per_page`, also sent as `limit`) or `subscribers`
        (`limit` and a 0-based `page`)."""
        number = 0 if style == "subscribers" else 1
        while True:
            if style == "subscribers":
                batch = self.get(path, **query, limit=PAGE_SIZE, page=number)
            else:
                batch = self.get(path, **query, page=number, per_page=PAGE_SIZE, limit=PAGE_SIZE)
            if not isinstance(batch, list):
                raise SourceError(f"{path}: expected a JSON list, got {type(batch).__name__}")
            yield from batch
            if len(batch) < PAGE_SIZE:
                return
            number += 1

    def after(self, path: str, wrapper: str, key: str, size: int) -> Iterator[dict]:
        """Every item of a series read by a cursor (`after` the `key` of the last item read,
        `limit` a page), each page wrapped in `{wrapper: [...]}`."""
        cursor = None
        while True:
            query = {"limit": size} if cursor is None else {"limit": size, "after": cursor}
            body = self.get(path, **query)
            batch = body.get(wrapper) if isinstance(body, dict) else None
            if not isinstance(batch, list) or any(
                not isinstance(item, dict) or key not in item for item in batch
            ):
                raise SourceError(f"{path}: expected {{{wrapper!r}: [...]}} of items with {key}")
            yield from batch
            if len(batch) < size:
                return
            cursor = batch[-1][key]


class Source(Reader):
    """The source over HTTP, at its pace."""

    def __init__(self, base_url: str, key: str, rate: float = 1.0, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        if not net.may_call(self.base_url):
            raise SourceError(
                f"{self.base_url} is not a public address (loopback and private networks are"
                f" called only with {net.ALLOW_PRIVATE_TARGETS}=1)"
            )
        self._headers = {"Authorization": f"OAuth {key}", "Accept": "application/json"}
        self._interval = 1.0 / rate if rate > 0 else 0.0
        self._next_start = 0.0
        self._http = urllib3.PoolManager(
            timeout=urllib3.Timeout(total=timeout), retries=False, maxsize=1
        )
        self.requests = 0

    def _pace(self) -> None:
        wait = self._next_start - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._next_start = time.monotonic() + self._interval

    def get(self, path: str, **query) -> object:
        """The decoded JSON body of `GET path?query`."""
        url = self.base_url + path + (f"?{urlencode(query)}" if query else "")
        for attempt in range(ATTEMPTS):
            self._pace()
            self.requests += 1
            try:
                answer = self._http.request("GET", url, headers=self._headers)
            except urllib3.exceptions.HTTPError as error:
                if attempt + 1 == ATTEMPTS:
                    raise SourceError(f"cannot reach {self.base_url}: {error}") from None
                time.sleep(min(2**attempt, LONGEST_WAIT_SECONDS))
                continue
            if answer.status in THROTTLED or answer.status >= 500:
                if attempt + 1 == ATTEMPTS:
                    raise SourceError(f"{path}: the source kept answering {answer.status}")
                time.sleep(_retry_after(answer, attempt))
                continue
            return decoded(path, answer)
        raise SourceError(f"{path}: no answer")  # not reached: the loop returns or raises


def _retry_after(answer, attempt: int) -> float:
    value = answer.headers.get("Retry-After")
    try:
        return min(max(float(value), 0.0), LONGEST_WAIT_SECONDS)
    except (TypeError, ValueError):
        return min(2**attempt, LONGEST_WAIT_SECONDS)


def decoded(path: str, answer) -> object:
    """The JSON body of `answer` (its `status`, `headers` and `data`), or the `SourceError`
    its status or content says."""
    if answer.status == 401:
        raise SourceError("the source refused the key (401): check --from-key")
    if answer.status == 403:
        raise SourceError(f"{path}: the key may not read this (403)")
    if answer.status == 404:
        raise SourceMissing(f"{path}: not found (404): check --page and --from-url")
    if answer.status == 405:
        raise SourceMissing(f"{path}: the source does not serve this read (405)")
    if answer.status >= 400:
        raise SourceError(f"{path}: the source answered {answer.status}")
    kind = answer.headers.get("Content-Type", "")
    try:
        body = json.loads(answer.data)
    except ValueError:
        body = None
    if "json" not in kind or body is None:
        raise SourceError(
            f"{path}: the answer is not JSON ({kind or 'no content type'}): "
            "is --from-url a Statuspage-compatible API?"
        )
    return body
