"""The snapshot store: one item per name, never replaced by one built from older reads, and
small enough for one item however long the history."""

import json
from datetime import UTC, datetime, timedelta

from chalicelib import clock
from chalicelib.public import snapshot as page_snapshot
from chalicelib.store import snapshots
from chalicelib.store.snapshots import PageSnapshot, key_of
from tests.public.conftest import make_component, make_incident, publish


def test_refresh_writes_the_page_under_each_name(world):
    page = world.api.get(f"/v1/pages/{world.page_id}").json
    built = page_snapshot.refresh(world.page_id)
    for key in (key_of("page", world.page_id), key_of("subdomain", page["subdomain"])):
        item = snapshots.read(key)
        assert item.page_id == world.page_id
        assert item.etag == built.etag
    assert json.loads(snapshots.decompress(item.body))["page"]["id"] == world.page_id


def test_an_older_build_never_replaces_a_newer_one(world):
    built = page_snapshot.refresh(world.page_id)
    key = key_of("page", world.page_id)
    stored = snapshots.read(key)
    earlier = stored.built_at - timedelta(seconds=5)
    assert not snapshots.write(world.page_id, [key], b"old", "old-etag", earlier)
    assert snapshots.read(key).etag == built.etag
    later = stored.built_at + timedelta(seconds=5)
    assert snapshots.write(world.page_id, [key], stored.body, "newer-etag", later)
    assert snapshots.read(key).etag == "newer-etag"


def test_a_name_another_page_holds_now_is_not_removed(world, make_world):
    other = make_world("Other")
    key = key_of("subdomain", f"shared-{world.page_id}")
    now = datetime.now(UTC)
    assert snapshots.write(other.page_id, [key], b"x", "etag", now)
    snapshots.remove(world.page_id, [key])
    assert snapshots.read(key).page_id == other.page_id


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
