"""The importer's source client against a real local HTTP server that plays a Statuspage v1
API: its pace, its patience with throttling, its paging and its refusals."""

import io
import json
import time
from urllib.parse import parse_qs, urlparse

import pytest

from chalicelib.importer.source import PAGE_SIZE, Source, SourceError, SourceMissing
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


class FakeSeries(FakeApi):
    """A metric's data read of ours: `{"data": [...]}` after the `after` cursor."""

    def respond(self, path: str) -> tuple[int, dict, bytes]:
        if self.status != 200:
            return self.status, {"Content-Type": "application/json"}, b'{"error": "no"}'
        query = _query(path)
        after = int(query.get("after", -1))
        found = [item for item in self.items if item["timestamp"] > after]
        body = json.dumps({"data": found[: int(query["limit"])]}).encode()
        return 200, {"Content-Type": "application/json"}, body


def test_a_series_is_read_by_its_cursor():
    points = [{"timestamp": 1000 + 30 * step, "value": step} for step in range(7)]
    with FakeSeries(items=points) as api:
        found = list(Source(api.base_url, "k", rate=100).after("/d", "data", "timestamp", 3))
        assert found == points
        assert [query.get("after") for query in api.seen("query")] == [None, "1060", "1150"]


@pytest.mark.parametrize("status", [404, 405])
def test_a_read_the_source_lacks_is_told_apart(status):
    with FakeApi(status=status) as api:
        with pytest.raises(SourceMissing):
            Source(api.base_url, "k", rate=100).get("/pages/p/metrics/m/data")


def test_metric_data_a_source_cannot_give_is_reported_and_the_import_goes_on():
    from chalicelib.importer import metric_data
    from chalicelib.importer.progress import Progress

    said = io.StringIO()
    found = [{"id": "m1", "name": "Latency"}]
    with FakeSeries(status=405) as api:
        metric_data.read(Source(api.base_url, "k", rate=100), "/pages/p", found, Progress(said))
    assert found[0]["data"] is None and metric_data.newest(found[0]) is None
    assert "'Latency' (m1): data not readable from this source" in said.getvalue()
    assert "read metric_data: 0" in said.getvalue()


def test_metric_data_keeps_the_last_point_of_an_interval_within_28_days():
    from chalicelib.importer import metric_data
    from chalicelib.importer.progress import Progress

    now = int(time.time()) // 30 * 30 - 600
    points = [
        {"timestamp": now - 29 * 86400, "value": 1},  # too old to be written
        {"timestamp": now + 1, "value": 2},
        {"timestamp": now + 2, "value": 3},  # the same interval: the last one stays
        {"timestamp": now + 30, "value": 4.5},
    ]
    found = [{"id": "m1", "name": "Latency"}]
    with FakeSeries(items=points) as api:
        metric_data.read(Source(api.base_url, "k", rate=100), "/p", found, Progress(io.StringIO()))
    assert found[0]["data"] == [(now, 3), (now + 30, 4.5)]
    assert metric_data.newest(found[0]).timestamp() == now + 30


class ListedSource:
    """The lists of a source as the importer asks for them, without HTTP."""

    def __init__(self, lists: dict[str, list]):
        self.lists, self.asked = lists, []

    def pages(self, path: str, style: str = "page", **query):
        self.asked.append(path)
        return iter(self.lists.get(path, []))


def test_subscribers_of_closed_incidents_are_read_under_their_incident():
    from chalicelib.importer.run import _incident_subscribers

    source = ListedSource(
        {
            "/p/incidents/old/subscribers": [{"id": "s1", "email": "a@x.io"}],
            "/p/incidents/new/subscribers": [{"id": "s2"}, {"id": "s0"}],
        }
    )
    found = {
        "subscribers": [{"id": "s0", "email": "page@x.io"}],
        "incidents": [{"id": "old", "status": "resolved"}, {"id": "new", "status": "identified"}],
    }
    more = _incident_subscribers(source, "/p", found)
    assert more == [
        {"id": "s1", "email": "a@x.io", "incident_id": "old"},
        {"id": "s2", "incident_id": "new"},
    ]


def test_a_source_that_lists_incident_subscribers_with_the_page_is_not_asked_again():
    from chalicelib.importer.run import _incident_subscribers

    source = ListedSource({})
    found = {
        "subscribers": [{"id": "s0", "incident_id": None}],
        "incidents": [{"id": "old", "status": "resolved"}],
    }
    assert _incident_subscribers(source, "/p", found) == []
    assert source.asked == []


@pytest.mark.parametrize(
    "base_url",
    ["http://169.254.169.254", "http://127.0.0.1:9", "http://192.168.1.10", "http://[::1]:9"],
)
def test_a_source_on_a_private_address_is_refused_without_the_setting(monkeypatch, base_url):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")
    with pytest.raises(SourceError, match="ALLOW_PRIVATE_TARGETS=1"):
        Source(base_url, "secret")
