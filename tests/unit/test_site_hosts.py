"""The CDN's routing in CloudFront's KeyValueStore: what a page's record says, and the
updates a publish makes around its files (the store's API stubbed: moto has no KeyValueStore)."""

import json
from datetime import UTC, datetime

import pytest
from botocore.stub import ANY, Stubber

from chalicelib.sitestore import hosts

ARN = "arn:aws:cloudfront::123456789012:key-value-store/01234567-89ab-cdef-0123-456789abcdef"
PAGE = "01hzy8k2m3n4p5q6"


@pytest.fixture
def kvs(monkeypatch):
    """The store's client, stubbed; every answer a test queues must be used."""
    monkeypatch.setenv("SITE_HOSTS_STORE", ARN)
    stubber = Stubber(hosts._client())
    with stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def described(stubber: Stubber, etag: str = "E1") -> None:
    answer = {"ItemCount": 1, "TotalSizeInBytes": 1, "KvsARN": ARN, "Created": datetime.now(UTC)}
    stubber.add_response("describe_key_value_store", {**answer, "ETag": etag}, {"KvsARN": ARN})


def value_of(stubber: Stubber, key: str, value: str | None) -> None:
    if value is None:
        stubber.add_client_error("get_key", "ResourceNotFoundException", http_status_code=404)
        return
    answer = {"Key": key, "Value": value, "ItemCount": 1, "TotalSizeInBytes": 1}
    stubber.add_response("get_key", answer, {"KvsARN": ARN, "Key": key})


def updated(stubber: Stubber, puts: dict[str, str], deletes: list[str], etag: str = "E1") -> None:
    answer = {"ItemCount": 1, "TotalSizeInBytes": 1, "ETag": "E2"}
    expected = {
        "KvsARN": ARN,
        "IfMatch": etag,
        "Puts": [{"Key": key, "Value": value} for key, value in puts.items()],
        "Deletes": [{"Key": key} for key in deletes],
    }
    stubber.add_response("update_keys", answer, expected)


def manifest(*keys: str, dynamic: bool = False) -> dict:
    return {"page_id": PAGE, "dynamic": dynamic, "files": {key: {} for key in keys}}


def test_a_record_names_what_a_page_publishes_beyond_what_every_page_does():
    keys = [*hosts.ALWAYS, "history?quarter=2026-Q3", "subscribe?via=sms"]
    keys += ["incidents/01hzy9aaaaaaaaaa", "incidents/01hzyaaaaaaaaaaa"]
    assert hosts.record_of(manifest(*keys)) == {
        "i": ["01hzyaaaaaaaaaaa", "01hzy9aaaaaaaaaa"],
        "k": ["history?quarter=2026-Q3", "subscribe?via=sms"],
    }
    assert hosts.record_of(manifest(dynamic=True)) == {"d": 1}


def test_a_record_keeps_to_a_kilobyte_by_leaving_the_oldest_incidents_to_the_app():
    incidents = [f"incidents/01hzy{number:011d}" for number in range(100)]
    record = hosts.record_of(manifest(*hosts.ALWAYS, "history?quarter=2026-Q3", *incidents))
    assert len(hosts.encode(record).encode()) <= hosts.MAX_VALUE_BYTES
    assert record["k"] == ["history?quarter=2026-Q3"]
    assert 40 <= len(record["i"]) < 100
    assert record["i"][0] == "01hzy00000000099"  # the newest are kept


def test_nothing_is_asked_without_a_store(monkeypatch):
    monkeypatch.delenv("SITE_HOSTS_STORE", raising=False)
    routing = hosts.Routing.of(PAGE, {f"s/{PAGE}": manifest("")}, None)
    routing.before_files(started=1.0)
    assert routing.after_files(0) is None
    hosts.withdraw(PAGE)
    hosts.forget(PAGE, [f"s/{PAGE}"])


def test_a_first_publish_names_its_places_and_record_after_its_files(kvs):
    manifests = {f"s/{PAGE}": manifest(""), "hosts/acme.example.com": manifest("")}
    routing = hosts.Routing.of(PAGE, manifests, None)
    routing.before_files(started=1.0)  # nothing to take out: no call
    described(kvs)
    value_of(kvs, f"p/{PAGE}", None)  # never withdrawn
    record = json.dumps({"i": [], "k": []}, separators=(",", ":"))
    updated(kvs, {"hosts/acme.example.com": PAGE, f"s/{PAGE}": PAGE, f"p/{PAGE}": record}, [])
    assert routing.after_files(started=1.0) == routing.new


def test_a_publish_that_changes_nothing_in_the_routing_asks_nothing(kvs):
    manifests = {f"s/{PAGE}": manifest("", "incidents/01hzy9aaaaaaaaaa")}
    old = hosts.routing_of(PAGE, manifests)
    routing = hosts.Routing.of(PAGE, manifests, old)
    routing.before_files(started=1.0)
    assert routing.after_files(started=1.0) == old


def test_paths_and_places_that_go_leave_the_store_before_their_files(kvs):
    old = hosts.routing_of(
        PAGE,
        {
            f"s/{PAGE}": manifest("", "incidents/01hzy0oldoldold0"),
            "hosts/old.example.com": manifest(""),
        },
    )
    new_manifests = {f"s/{PAGE}": manifest("", "incidents/01hzy9newnewnew0")}
    routing = hosts.Routing.of(PAGE, new_manifests, old)
    # Before: the old host (still this page's) and the old incident go; the new one waits.
    described(kvs)
    value_of(kvs, f"p/{PAGE}", '{"i":["01hzy0oldoldold0"],"k":[]}')  # not withdrawn since
    value_of(kvs, "hosts/old.example.com", PAGE)
    updated(kvs, {f"p/{PAGE}": '{"i":[],"k":[]}'}, ["hosts/old.example.com"])
    routing.before_files(started=1.0)
    # After: the new incident comes.
    described(kvs, "E2")
    value_of(kvs, f"p/{PAGE}", '{"i":[],"k":[]}')
    updated(kvs, {f"s/{PAGE}": PAGE, f"p/{PAGE}": '{"i":["01hzy9newnewnew0"],"k":[]}'}, [], "E2")
    routing.after_files(started=1.0)


def test_a_place_another_page_took_is_left_to_it(kvs):
    described(kvs)
    value_of(kvs, "hosts/old.example.com", "0another0page000")
    hosts.HostsStore().route(PAGE, gone=["hosts/old.example.com"])  # nothing to update


def test_a_race_with_another_writer_reads_the_store_again(kvs):
    described(kvs, "E1")
    kvs.add_client_error("update_keys", "ConflictException", http_status_code=409)
    described(kvs, "E9")
    updated(kvs, {f"s/{PAGE}": PAGE}, [], etag="E9")
    assert hosts.HostsStore().route(PAGE, mounts=[f"s/{PAGE}"])


def test_a_withdrawal_sends_the_page_to_the_app_and_an_older_publish_does_not_undo_it(kvs):
    described(kvs)
    kvs.add_response(
        "update_keys",
        {"ItemCount": 1, "TotalSizeInBytes": 1, "ETag": "E2"},
        {"KvsARN": ARN, "IfMatch": "E1", "Puts": ANY, "Deletes": []},
    )
    hosts.withdraw(PAGE)
    # A publish that began reading before the withdrawal: its places, not its record.
    withdrawn = json.dumps({"d": 1, "t": 2_000})
    described(kvs, "E2")
    value_of(kvs, f"p/{PAGE}", withdrawn)
    updated(kvs, {f"s/{PAGE}": PAGE}, [], etag="E2")
    routing = hosts.Routing.of(PAGE, {f"s/{PAGE}": manifest("")}, None)
    assert routing.after_files(started=1.0) is None  # the marker does not record it
    # One that began after it stores its record.
    described(kvs, "E3")
    value_of(kvs, f"p/{PAGE}", withdrawn)
    updated(kvs, {f"s/{PAGE}": PAGE, f"p/{PAGE}": '{"i":[],"k":[]}'}, [], etag="E3")
    assert routing.after_files(started=3.0) == routing.new


def test_a_page_made_private_leaves_the_store_before_its_files_go(kvs):
    old = hosts.routing_of(PAGE, {f"s/{PAGE}": manifest("")})
    routing = hosts.Routing.of(PAGE, {f"s/{PAGE}": manifest(dynamic=True)}, old)
    described(kvs)
    updated(kvs, {f"p/{PAGE}": '{"d":1}'}, [])
    routing.before_files(started=1.0)
    described(kvs, "E2")
    updated(kvs, {f"s/{PAGE}": PAGE, f"p/{PAGE}": '{"d":1}'}, [], etag="E2")
    routing.after_files(started=1.0)


def test_a_deleted_page_leaves_its_own_places_and_its_record(kvs):
    described(kvs)
    value_of(kvs, f"s/{PAGE}", PAGE)
    value_of(kvs, "s/acme", "0another0page000")
    updated(kvs, {}, [f"s/{PAGE}", f"p/{PAGE}"])
    hosts.forget(PAGE, [f"s/{PAGE}", "s/acme"])
