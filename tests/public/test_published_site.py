"""The published site: what a write publishes, in what order, and what time alone republishes.

The publish function runs as the queue runs it (`drain_publishes`); files are read from the
site folder as the static server reads them.
"""

import json
import threading
from datetime import UTC, datetime, timedelta

from tests.public.conftest import make_component, published_file, update_page


def summary_of(page_id: str, mount: str | None = None) -> dict:
    _, body = published_file(page_id, "api/v2/summary.json", mount)
    return json.loads(body)


def statuses(page_id: str) -> dict[str, str]:
    return {c["name"]: c["status"] for c in summary_of(page_id)["components"]}


def test_a_write_asks_for_a_publish_and_the_files_show_it(world, drain_publishes):
    make_component(world, "API")
    assert drain_publishes() >= 1
    assert statuses(world.page_id) == {"API": "operational"}
    entry, body = published_file(world.page_id)
    assert entry["status"] == 200 and b"API" in body
    assert entry["headers"]["Content-Type"] == "text/html; charset=utf-8"
    assert "style-src 'sha256-" in entry["headers"]["Content-Security-Policy"]
    summary, _ = published_file(world.page_id, "api/v2/summary.json")
    assert summary["headers"]["Access-Control-Allow-Origin"] == "*"


def test_a_burst_of_100_writes_ends_with_the_last_state_published(world, drain_publishes):
    from chalicelib.public import publish

    component = make_component(world, "API")
    drain_publishes()
    cycle = ["degraded_performance", "partial_outage", "major_outage", "operational"]
    outcomes = []
    for number in range(100):
        status = cycle[number % 4] if number < 99 else "partial_outage"
        answer = world.api.patch(
            f"/v1/pages/{world.page_id}/components/{component['id']}",
            {"component": {"status": status}},
        )
        assert answer.status == 200
        if number % 10 == 9:  # the queue hands over messages as they come, a batch at a time
            outcomes.append(publish.publish_page(world.page_id))
    drain_publishes()
    assert statuses(world.page_id) == {"API": "partial_outage"}
    assert outcomes.count("published") == 10
    # Every message the burst left behind found the files current: none published again.
    assert publish.publish_page(world.page_id) == "current"


def test_an_older_publish_that_finishes_last_never_overwrites_a_newer_one(world, drain_publishes):
    from chalicelib.public import publish
    from chalicelib.sitestore import current

    component = make_component(world, "API")
    drain_publishes()
    path = f"/v1/pages/{world.page_id}/components/{component['id']}"
    world.api.patch(path, {"component": {"status": "major_outage"}})
    older = publish.build(world.page_id, current())
    world.api.patch(path, {"component": {"status": "partial_outage"}})
    newer = publish.build(world.page_id, current())
    assert older.changes < newer.changes

    assert publish.save(newer, current())
    assert not publish.save(older, current())  # the older one finishes last
    assert statuses(world.page_id) == {"API": "partial_outage"}


def test_two_publishes_at_once_leave_the_newest_state(world, drain_publishes):
    from chalicelib.public import publish
    from chalicelib.sitestore import current

    component = make_component(world, "API")
    drain_publishes()
    path = f"/v1/pages/{world.page_id}/components/{component['id']}"
    world.api.patch(path, {"component": {"status": "major_outage"}})
    builds = [publish.build(world.page_id, current())]
    world.api.patch(path, {"component": {"status": "degraded_performance"}})
    builds.append(publish.build(world.page_id, current()))
    for _ in range(5):
        racers = [threading.Thread(target=publish.save, args=(b, current())) for b in builds]
        for racer in reversed(racers):
            racer.start()
        for racer in racers:
            racer.join()
        assert statuses(world.page_id) == {"API": "degraded_performance"}


def test_a_renamed_subdomain_stops_being_served_at_the_old_one(world, drain_publishes):
    from chalicelib.sitestore import site_dir

    make_component(world, "API")
    drain_publishes()
    old = summary_of(world.page_id)
    subdomain = json.loads(world.api.get(f"/v1/pages/{world.page_id}").text)["subdomain"]
    assert (site_dir() / f"s/{subdomain}/site.json").exists()
    assert (site_dir() / f"hosts/{subdomain}.localhost/site.json").exists()

    update_page(world, subdomain=f"renamed-{world.page_id}")
    drain_publishes()
    assert not (site_dir() / f"s/{subdomain}").exists()
    assert not (site_dir() / f"hosts/{subdomain}.localhost").exists()
    renamed = summary_of(world.page_id, f"s/renamed-{world.page_id}")
    assert renamed["page"]["id"] == old["page"]["id"]
    assert summary_of(world.page_id, f"hosts/renamed-{world.page_id}.localhost")["components"]


def test_an_audience_specific_page_is_answered_by_the_app_not_from_files(world, drain_publishes):
    from chalicelib.sitestore import site_dir

    make_component(world, "API")
    drain_publishes()
    assert (site_dir() / f"s/{world.page_id}/index.html").exists()
    update_page(world, audience_specific=True)
    drain_publishes()
    manifest = json.loads((site_dir() / f"s/{world.page_id}/site.json").read_text())
    assert manifest["dynamic"] is True and manifest["files"] == {}
    assert not (site_dir() / f"s/{world.page_id}/index.html").exists()


def test_a_deleted_page_has_its_published_files_and_uploaded_images_removed(world, drain_publishes):
    from chalicelib.domain import pages
    from chalicelib.sitestore import branding, site_dir

    make_component(world, "API")
    drain_publishes()
    subdomain = pages.get_page(world.page_id).subdomain
    published = [
        site_dir() / f"s/{world.page_id}",
        site_dir() / f"s/{subdomain}",
        site_dir() / f"hosts/{subdomain}.localhost",
        site_dir() / "published" / f"{world.page_id}.json",
    ]
    logo = branding.store(world.page_id, b"\x89PNG\r\n\x1a\n", "png", "image/png")
    assert branding.read(world.page_id, logo) is not None
    assert all(path.exists() for path in published)
    pages.delete_page(pages.get_page(world.page_id))
    assert drain_publishes() == 1
    assert not any(path.exists() for path in published)
    assert branding.read(world.page_id, logo) is None  # its uploaded images go with it
    assert not (site_dir() / f"branding/{world.page_id}").exists()


def test_the_clock_republishes_across_a_day_boundary_in_the_pages_time_zone(
    world, drain_publishes, tick, freeze_clock
):
    from zoneinfo import ZoneInfo

    from chalicelib.web import times

    zone = ZoneInfo("America/Los_Angeles")
    update_page(world, time_zone="America/Los_Angeles")
    # 23:50 in Los Angeles is 07:50 UTC the next day: a UTC day boundary would be wrong.
    evening = datetime(2026, 11, 20, 23, 50, tzinfo=zone)
    freeze_clock(evening.astimezone(UTC))
    make_component(world, "API")
    drain_publishes()
    _, before = published_file(world.page_id)
    tomorrow = times.label((evening + timedelta(days=1)).date())
    assert tomorrow.encode() not in before

    freeze_clock((evening + timedelta(minutes=5)).astimezone(UTC))
    tick()
    drain_publishes()
    _, still = published_file(world.page_id)
    assert tomorrow.encode() not in still  # nothing is due before midnight

    freeze_clock((evening + timedelta(minutes=11)).astimezone(UTC))  # 00:01 local
    tick()
    assert drain_publishes() >= 1
    _, after = published_file(world.page_id)
    assert tomorrow.encode() in after


def test_a_reader_of_the_published_site_costs_no_database_read(
    world, visitor, drain_publishes, dynamodb_calls
):
    make_component(world, "API")
    drain_publishes()
    before = dynamodb_calls.count()
    for path in ("", "/api/v2/summary.json", "/history", "/history.rss", "/subscribe?via=email"):
        assert visitor.get(path).status == 200, path
    assert dynamodb_calls.operations[before:] == []


def test_a_publish_that_fails_is_logged_and_raised_for_the_queue_to_try_again(
    world, drain_publishes, caplog
):
    import pytest

    from chalicelib.public import publish
    from chalicelib.sitestore import site_dir

    component = make_component(world, "API")
    drain_publishes()
    before = summary_of(world.page_id)
    # The store cannot take the page's version marker: a folder stands where it goes.
    marker = site_dir() / "published" / f"{world.page_id}.json"
    marker.unlink()
    marker.mkdir()
    try:
        world.api.patch(
            f"/v1/pages/{world.page_id}/components/{component['id']}",
            {"component": {"status": "major_outage"}},
        )
        with pytest.raises(RuntimeError, match=world.page_id):
            publish.publish_pages([world.page_id])
        assert f"publish of page {world.page_id} failed" in caplog.text
    finally:
        marker.rmdir()
    assert before["components"]
    # Not marked published: the queue's next try (or the minute's) publishes it.
    assert publish.publish_page(world.page_id) == "published"
    assert statuses(world.page_id) == {"API": "major_outage"}
