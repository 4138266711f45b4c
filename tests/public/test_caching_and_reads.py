"""Public views are cheap: one DynamoDB read each, cacheable, revalidated by ETag."""

import pytest

from chalicelib.store.snapshots import PageSnapshot, key_of
from tests.public.conftest import make_component, make_group, make_incident, publish

# What the app's own views cost (audience-specific pages are answered by them); readers of
# other pages get files (test_published_site.py).
pytestmark = pytest.mark.usefixtures("app_views")

VIEWS = [
    "",
    "/api/v2/summary.json",
    "/api/v2/status.json",
    "/api/v2/components.json",
    "/api/v2/incidents.json",
    "/api/v2/scheduled-maintenances/upcoming.json",
    "/history.rss",
    "/history.atom",
    "/embed/status.js",
]


@pytest.fixture
def page_with_content(world):
    components = [make_component(world, f"Service {number}") for number in range(5)]
    make_group(world, "Core", [component["id"] for component in components[:2]])
    for number in range(3):
        make_incident(
            world, f"Incident {number}", components={components[number]["id"]: "partial_outage"}
        )
    publish(world)
    return world


@pytest.mark.parametrize("suffix", VIEWS)
def test_a_view_costs_one_get_item(page_with_content, visitor, dynamodb_calls, suffix):
    answer = visitor.get(suffix)
    assert answer.status == 200, answer.text
    assert dynamodb_calls.summary() == {"GetItem": 1}


def test_history_costs_one_get_item_and_one_bounded_query(
    page_with_content, visitor, dynamodb_calls
):
    # The period's incidents (an index by start time); the pager always goes back.
    answer = visitor.get("/history")
    assert answer.status == 200, answer.text
    assert dynamodb_calls.summary() == {"GetItem": 1, "Query": 1}


def test_incident_page_costs_one_get_item(page_with_content, visitor, dynamodb_calls):
    incident_id = visitor.get("/api/v2/incidents.json").json["incidents"][0]["id"]
    before = dynamodb_calls.count()
    assert visitor.get(f"/incidents/{incident_id}").status == 200
    assert dynamodb_calls.operations[before:] == ["GetItem"]


def test_views_carry_cache_headers(page_with_content, visitor):
    for suffix in [*VIEWS, "/history"]:
        answer = visitor.get(suffix)
        assert answer.headers["Cache-Control"] == "public, max-age=10"
        assert answer.headers["ETag"].startswith('"')


@pytest.mark.parametrize("suffix", ["", "/api/v2/summary.json", "/history.rss"])
def test_if_none_match_answers_304(page_with_content, visitor, suffix):
    etag = visitor.get(suffix).headers["ETag"]
    again = visitor.get(suffix, headers={"If-None-Match": etag})
    assert again.status == 304
    assert again.text == ""
    assert again.headers["ETag"] == etag
    other = visitor.get(suffix, headers={"If-None-Match": '"something-else"'})
    assert other.status == 200


def test_a_write_changes_the_etag(page_with_content, visitor):
    before = visitor.get("/api/v2/summary.json").headers["ETag"]
    make_component(page_with_content, "New service")
    publish(page_with_content)
    after = visitor.get("/api/v2/summary.json", headers={"If-None-Match": before})
    assert after.status == 200
    assert after.headers["ETag"] != before
    assert "New service" in after.text


def test_a_page_without_a_snapshot_is_built_on_its_first_view(world, visitor):
    make_component(world, "Fresh")
    PageSnapshot(key_of("page", world.page_id)).delete()
    assert "Fresh" in visitor.get("/api/v2/components.json").text
    assert PageSnapshot.get(key_of("page", world.page_id)).page_id == world.page_id


def test_cost_does_not_grow_with_the_page(world, visitor, dynamodb_calls):
    make_component(world, "First")
    publish(world)
    before = dynamodb_calls.count()
    visitor.get("")
    small = dynamodb_calls.operations[before:]
    for number in range(12):
        component = make_component(world, f"Component {number}")
        make_incident(world, f"Incident {number}", components={component["id"]: "major_outage"})
    publish(world)
    before = dynamodb_calls.count()
    visitor.get("")
    assert small == dynamodb_calls.operations[before:] == ["GetItem"]
