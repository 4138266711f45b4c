"""The snapshot store: one item per name, never replaced by one built from older reads, and
small enough for one item however long the history."""

import json
import threading
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock
from chalicelib.store import snapshots
from chalicelib.store.snapshots import PageSnapshot, key_of
from chalicelib.views import snapshot as page_snapshot
from tests.public.conftest import make_component, make_incident, publish

# What the app's own views cost (audience-specific pages are answered by them); readers of
# other pages get files (test_published_site.py).
pytestmark = pytest.mark.usefixtures("app_views")


def test_a_write_marks_the_snapshot_and_the_next_view_rebuilds_it(world, visitor):
    assert visitor.get("/api/v2/components.json").status == 200
    assert snapshots.read(world.page_id).current
    make_component(world, "Checkout")
    # The write counted one change in its own transaction and rebuilt nothing.
    marked = snapshots.read(world.page_id)
    assert not marked.current
    assert "Checkout" not in snapshots.decompress(marked.body)
    assert "Checkout" in visitor.get("/api/v2/components.json").text
    rebuilt = snapshots.read(world.page_id)
    assert rebuilt.current
    assert rebuilt.built_changes == marked.changes
    assert json.loads(snapshots.decompress(rebuilt.body))["page"]["id"] == world.page_id


def test_a_body_built_before_the_indexes_settle_is_built_again(world, visitor, monkeypatch):
    monkeypatch.setenv("INDEX_SETTLE_SECONDS", "60")
    visitor.get("/api/v2/components.json")
    make_component(world, "Checkout")
    # Built at once after the write: it may lack what the indexes had not shown yet.
    assert "Checkout" in visitor.get("/api/v2/components.json").text
    assert not snapshots.read(world.page_id).current
    monkeypatch.setenv("INDEX_SETTLE_SECONDS", "0")
    visitor.get("/api/v2/components.json")
    assert snapshots.read(world.page_id).current


def test_a_quiet_write_leaves_the_snapshot_current(world, visitor):
    visitor.get("/api/v2/components.json")
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers", {"subscriber": {"email": "a@example.com"}}
    )
    assert answer.status == 201, answer.text
    assert snapshots.read(world.page_id).current


def test_an_older_build_never_replaces_a_newer_one(world):
    built = page_snapshot.refresh(world.page_id)
    stored = snapshots.read(world.page_id)
    changes = int(stored.built_changes)
    assert not snapshots.write(world.page_id, b"old", "old-etag", changes - 1, stored.built_at)
    earlier = stored.built_at - timedelta(seconds=5)
    assert not snapshots.write(world.page_id, b"old", "old-etag", changes, earlier)
    assert snapshots.read(world.page_id).etag == built.etag
    later = stored.built_at + timedelta(seconds=5)
    assert snapshots.write(world.page_id, stored.body, "newer-etag", changes, later)
    assert snapshots.write(world.page_id, stored.body, "newest-etag", changes + 1, earlier)
    assert snapshots.read(world.page_id).etag == "newest-etag"


def test_refresh_of_a_missing_page_is_none(world):
    assert page_snapshot.refresh("nosuchpage000000") is None


def test_past_incidents_are_kept_in_brief_and_older_ones_left_to_their_page(world, visitor):
    component = make_component(world, "API")
    try:
        clock.freeze(datetime.now(UTC) - timedelta(days=20))
        old = make_incident(world, "Long ago", status="resolved")
    finally:
        clock.freeze(None)
    made = [
        make_incident(world, f"Incident {n}", status="resolved", component_ids=[component["id"]])
        for n in range(3)
    ]
    make_incident(world, "Open", body="still on it")
    content = page_snapshot.refresh(world.page_id).content
    kept = [entry["incident"]["name"] for entry in content["incidents"]]
    assert kept == ["Open", "Incident 2", "Incident 1", "Incident 0"]
    assert [entry["detailed"] for entry in content["incidents"]] == [True, False, False, False]
    assert [len(e["incident"]["incident_updates"]) for e in content["incidents"]] == [1, 1, 1, 1]
    # A past incident, or one older than the page lists, still has its page (one Query more).
    for incident in (made[0], old):
        page = visitor.get(f"/incidents/{incident['id']}")
        assert page.status == 200
        assert incident["name"] in page.text


def test_snapshot_item_stays_small(world):
    for number in range(20):
        make_incident(world, f"Incident {number}", body="word " * 200)
    publish(world)
    item = PageSnapshot.get(key_of("page", world.page_id))
    assert len(item.body) < 20_000


def test_a_view_during_a_rebuild_waits_for_it_and_shows_the_write(world, visitor):

    visitor.get("/api/v2/components.json")
    make_component(world, "Checkout")
    # Another view of this process is rebuilding, for a moment.
    lock = page_snapshot._rebuild_lock(world.page_id)
    lock.acquire()
    threading.Timer(0.3, lock.release).start()
    assert "Checkout" in visitor.get("/api/v2/components.json").text


def start_views(visitor, count: int) -> tuple[list[threading.Thread], list]:
    """`count` views of the page at once, a thread each (started, not joined), and the list
    their answers land in."""
    answers: list = []

    def view() -> None:
        answers.append(visitor.get("/api/v2/components.json"))

    threads = [threading.Thread(target=view) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads, answers


def join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join()


def test_views_that_waited_for_a_rebuild_share_it(world, visitor, dynamodb_calls):
    """Views that arrive during a rebuild take the body it built: none reads the page again
    or builds it once more (a write landing while they waited is the next views' to show)."""

    visitor.get("/api/v2/components.json")
    make_component(world, "Search")
    before = dynamodb_calls.count("GetItem")
    visitor.get("/api/v2/components.json")  # one view that rebuilds, alone
    one_rebuild = dynamodb_calls.count("GetItem") - before

    make_component(world, "Checkout")
    lock = page_snapshot._rebuild_lock(world.page_id)
    before = dynamodb_calls.count("GetItem"), dynamodb_calls.count("UpdateItem")
    with lock:  # they all arrive while a rebuild is under way
        threads, answers = start_views(visitor, 6)
    join(threads)
    assert all(answer.status == 200 and "Checkout" in answer.text for answer in answers)
    assert dynamodb_calls.count("UpdateItem") - before[1] == 1  # one body stored
    # The one that rebuilt read what a rebuild reads; the others their snapshot item only.
    assert dynamodb_calls.count("GetItem") - before[0] == one_rebuild + 5


def test_views_during_a_long_rebuild_are_shown_the_last_body_and_the_next_view_is_current(
    world, visitor, monkeypatch
):
    visitor.get("/api/v2/components.json")
    make_component(world, "Checkout")
    monkeypatch.setattr(page_snapshot, "REBUILD_WAIT_SECONDS", 0.05)
    # Another view of this process is rebuilding, longer than a view waits.
    lock = page_snapshot._rebuild_lock(world.page_id)
    with lock:
        during = visitor.get("/api/v2/components.json")
        assert during.status == 200
        assert "Checkout" not in during.text
        assert not snapshots.read(world.page_id).current
    assert "Checkout" in visitor.get("/api/v2/components.json").text
    assert snapshots.read(world.page_id).current


def test_concurrent_first_views_build_the_page_once(world, visitor, dynamodb_calls):

    make_component(world, "Checkout")
    before = dynamodb_calls.count("UpdateItem")
    threads, answers = start_views(visitor, 6)
    join(threads)
    assert all(answer.status == 200 and "Checkout" in answer.text for answer in answers)
    assert dynamodb_calls.count("UpdateItem") - before == 1  # one body stored
