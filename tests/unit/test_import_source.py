"""The importer's source client against a real local HTTP server that plays a Statuspage v1
API: its pace, its patience with throttling, its paging and its refusals."""

import json
import time
from urllib.parse import parse_qs, urlparse

import pytest

from chalicelib.importer.source import PAGE_SIZE, Source, SourceError
from tests.summary_source import SummarySource


def _query(path: str) -> dict:
    return {name: values[0] for name, values in parse_qs(urlparse(path).query).items()}


class FakeApi(SummarySource):
    """A Statuspage v1 API: answers `throttled` first (429/420 with `Retry-After`), then the
    list `items` a page at a time as the query asks."""

    def __init__(self, items=(), throttled=(), content_type="application/json", status=200):
        super().__init__()
        self.items, self.throttled = list(items), list(throttled)
        self.content_type, self.status = content_type, status

    @property
    def base_url(self) -> str:
        return self.url.split("/api/")[0]

    def respond(self, path: str) -> tuple[int, dict, bytes]:
        if self.throttled:
            return self.throttled.pop(0), {"Retry-After": "0.3"}, b"{}"
        if self.content_type != "application/json":
            return self.status, {"Content-Type": self.content_type}, b"<html>hello</html>"
        query = _query(path)
        size = int(query.get("limit") or query.get("per_page") or PAGE_SIZE)
        start = (int(query.get("page", 1)) - 1) * size
        body = json.dumps(self.items[start : start + size]).encode()
        return self.status, {"Content-Type": "application/json"}, body

    def seen(self, part: str) -> list:
        """What each request asked: its path, its query, or its Authorization header."""
        found = []
        for path, headers in self.requested:
            url = urlparse(path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            found.append(
                {"path": url.path, "query": query, "key": headers.get("Authorization")}[part]
            )
        return found


def test_requests_keep_to_the_rate_and_carry_the_key():
    with FakeApi(items=[{"id": "a"}]) as api:
        source = Source(api.base_url, "secret", rate=5)
        started = time.monotonic()
        for _ in range(3):
            source.get("/pages/p/components")
        assert time.monotonic() - started >= 0.4
        assert set(api.seen("key")) == {"OAuth secret"}
        assert set(api.seen("path")) == {"/v1/pages/p/components"}


def test_throttled_requests_wait_for_retry_after_and_try_again():
    with FakeApi(items=[{"id": "a"}], throttled=[429, 420]) as api:
        source = Source(api.base_url, "k", rate=100)
        started = time.monotonic()
        assert source.get("/pages/p/incidents") == [{"id": "a"}]
        assert time.monotonic() - started >= 0.6
        assert api.requests == 3


def test_every_page_of_a_list_is_read():
    items = [{"id": str(number)} for number in range(PAGE_SIZE * 2 + 5)]
    with FakeApi(items=items) as api:
        found = list(Source(api.base_url, "k", rate=100).pages("/pages/p/incidents"))
        assert found == items
        assert [query["page"] for query in api.seen("query")] == ["1", "2", "3"]


def test_a_web_page_is_not_taken_for_an_api():
    with FakeApi(content_type="text/html") as api:
        with pytest.raises(SourceError, match="Statuspage-compatible"):
            Source(api.base_url, "k", rate=100).get("/pages/p")


@pytest.mark.parametrize(("status", "said"), [(401, "refused the key"), (404, "not found")])
def test_refusals_are_told_without_the_key(status, said):
    with FakeApi(status=status) as api:
        with pytest.raises(SourceError, match=said) as raised:
            Source(api.base_url, "the-secret-key", rate=100).get("/pages/p")
        assert "the-secret-key" not in str(raised.value)
