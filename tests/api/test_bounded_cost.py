"""What a request costs does not grow with the page's history: the same DynamoDB calls and
the same items read on a page with 10 incidents and on one with 2,000."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock, ids
from chalicelib.domain.incidents import brief
from chalicelib.store.incidents import IncidentRecord, incident_key, update_key

HISTORY_START = datetime(2020, 1, 1, tzinfo=UTC)


def write_history(page_id: str, count: int) -> None:
    """`count` resolved incidents of years ago, each with one update, written straight to the
    table in batches (the API would take minutes)."""
    with IncidentRecord.batch_write() as batch:
        for number in range(count):
            moment = HISTORY_START + timedelta(hours=number)
            try:
                clock.freeze(moment)
                incident_id, update_id = ids.new_id(), ids.new_id()
            finally:
                clock.freeze(None)
            update = IncidentRecord(
                page_id,
                update_key(incident_id, update_id),
                kind="update",
                incident_id=incident_id,
                id=update_id,
                status="resolved",
                body=f"Fixed {number}",
                created_at=moment,
                updated_at=moment,
                display_at=moment,
            )
            batch.save(update)
            batch.save(
                IncidentRecord(
                    page_id,
                    incident_key(incident_id),
                    kind="incident",
                    incident_id=incident_id,
                    id=incident_id,
                    name=f"Old trouble {number}",
                    status="resolved",
                    impact="minor",
                    metadata={},
                    component_ids=[],
                    components=[],
                    created_at=moment,
                    updated_at=moment,
                    resolved_at=moment,
                    incident_page=page_id,
                    started_at=moment,
                    last_update=brief(update),
                )
            )


def costs(world, dynamodb_calls) -> dict:
    """Calls and items read by each request a page's users make most."""
    api, page = world.api, world.page_id
    component = api.post(f"/v1/pages/{page}/components", {"component": {"name": "API"}}).json
    requests = {
        "incident create": lambda: api.post(
            f"/v1/pages/{page}/incidents", {"incident": {"name": "Down", "body": "Looking"}}
        ),
        "incident update": lambda: api.patch(
            f"/v1/pages/{page}/incidents/{incident_id}",
            {"incident": {"status": "identified", "body": "Found it"}},
        ),
        "component update": lambda: api.patch(
            f"/v1/pages/{page}/components/{component['id']}",
            {"component": {"status": "partial_outage"}},
        ),
        "public page view": lambda: api.as_key(None).get(f"/s/{page}"),
        "incident list, limit 1": lambda: api.get(f"/v1/pages/{page}/incidents?limit=1"),
    }
    measured = {}
    incident_id = None
    for name, request in requests.items():
        before_calls, before_items = len(dynamodb_calls.operations), dynamodb_calls.items_read()
        answer = request()
        assert answer.status < 300, answer.text
        if name == "incident create":
            incident_id = answer.json["id"]
        measured[name] = (
            sorted(dynamodb_calls.operations[before_calls:]),
            dynamodb_calls.items_read() - before_items,
        )
    return measured


@pytest.fixture
def small_and_large(make_world):
    small, large = make_world("Small"), make_world("Large")
    write_history(small.page_id, 10)
    write_history(large.page_id, 2000)
    return small, large


def test_requests_cost_the_same_with_10_and_2000_incidents(small_and_large, dynamodb_calls):
    small, large = small_and_large
    at_10 = costs(small, dynamodb_calls)
    at_2000 = costs(large, dynamodb_calls)
    for name in at_10:
        print(f"{name:24} calls {len(at_10[name][0]):3}  items read {at_10[name][1]:4}")
    assert at_10 == at_2000


def test_listing_one_incident_reads_a_handful_of_items(small_and_large, dynamodb_calls):
    _, large = small_and_large
    before = dynamodb_calls.items_read()
    answer = large.api.get(f"/v1/pages/{large.page_id}/incidents?limit=1")
    assert [incident["name"] for incident in answer.json] == ["Old trouble 1999"]
    assert dynamodb_calls.items_read() - before <= 15
    second = large.api.get(f"/v1/pages/{large.page_id}/incidents?limit=2&page=3").json
    assert [incident["name"] for incident in second] == ["Old trouble 1995", "Old trouble 1994"]
