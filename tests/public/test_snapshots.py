"""The snapshot store: one item per name, never replaced by one built from older reads, and
small enough for one item however long the history."""

import json
from datetime import UTC, datetime, timedelta

from chalicelib.domain import page_snapshot
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


def test_a_long_history_is_summarized_to_fit(world, visitor, monkeypatch):
    monkeypatch.setattr(page_snapshot, "DETAILED_INCIDENTS", 2)
    monkeypatch.setattr(page_snapshot, "LISTED_INCIDENTS", 2)
    component = make_component(world, "API")
    made = [
        make_incident(world, f"Incident {n}", status="resolved", component_ids=[component["id"]])
        for n in range(6)
    ]
    content = page_snapshot.refresh(world.page_id).content
    kept = [entry["incident"]["name"] for entry in content["incidents"]]
    assert kept == ["Incident 5", "Incident 4", "Incident 3", "Incident 2"]
    assert [entry["detailed"] for entry in content["incidents"]] == [True, True, False, False]
    assert content["incomplete"] is True
    # An incident left out or summarized still has its page, for one Query more.
    oldest = visitor.get(f"/incidents/{made[0]['id']}")
    assert oldest.status == 200
    assert "Incident 0" in oldest.text


def test_snapshot_item_stays_small(world):
    for number in range(20):
        make_incident(world, f"Incident {number}", body="word " * 200)
    publish(world)
    item = PageSnapshot.get(key_of("page", world.page_id))
    assert len(item.body) < 20_000
