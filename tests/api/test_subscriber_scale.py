"""Subscriber lists, counts and writes cost the same on a page with 30 subscribers and on one
with 500: they read the page of results asked for, never the page's whole list."""

import pytest

from chalicelib.domain import subscribers
from chalicelib.store.models import Page
from chalicelib.store.subscribers import Subscriber


def subscribe_many(page_id: str, count: int) -> None:
    """`count` active email subscribers, through the rules (as the API makes them)."""
    page = Page.get(page_id)
    for number in range(count):
        fields = subscribers.SubscriberInput(
            email=f"reader{number:05}@example.com", skip_confirmation_notification=True
        )
        subscribers.create(page, fields)


@pytest.fixture
def small_and_large(make_world):
    small, large = make_world("Small"), make_world("Large")
    subscribe_many(small.page_id, 30)
    subscribe_many(large.page_id, 500)
    return small, large


def costs(world, dynamodb_calls) -> dict:
    api, base = world.api, f"/v1/pages/{world.page_id}/subscribers"
    made = {}
    requests = {
        "create": lambda: api.post(
            base,
            {"subscriber": {"email": "new@example.com", "skip_confirmation_notification": True}},
        ),
        "create again (422)": lambda: api.post(base, {"subscriber": {"email": "new@example.com"}}),
        "list, limit 10": lambda: api.get(f"{base}?limit=10"),
        "list by creation, page 2": lambda: api.get(
            f"{base}?limit=10&page=1&sort_field=created_at&sort_direction=desc"
        ),
        "list, all states": lambda: api.get(f"{base}?limit=10&state=all"),
        "count": lambda: api.get(f"{base}/count"),
        "histogram": lambda: api.get(f"{base}/histogram_by_state"),
        "unsubscribe": lambda: api.delete(f"{base}/{made['create']}"),
        "unsubscribed list": lambda: api.get(f"{base}/unsubscribed?per_page=5"),
    }
    measured = {}
    for name, send in requests.items():
        before_calls, before_items = len(dynamodb_calls.operations), dynamodb_calls.items_read()
        answer = send()
        assert answer.status < 300 or name.endswith("(422)"), answer.text
        if name == "create":
            made["create"] = answer.json["id"]
        measured[name] = (
            sorted(dynamodb_calls.operations[before_calls:]),
            dynamodb_calls.items_read() - before_items,
        )
    return measured


def test_subscriber_requests_cost_the_same_with_30_and_500(small_and_large, dynamodb_calls):
    small, large = small_and_large
    at_30, at_500 = costs(small, dynamodb_calls), costs(large, dynamodb_calls)
    for name in at_30:
        print(f"{name:26} calls {len(at_30[name][0]):3}  items read {at_30[name][1]:4}")
    assert at_30 == at_500

    # A list without `limit` is a page of 100, in address order.
    listed = large.api.get(f"/v1/pages/{large.page_id}/subscribers").json
    assert [s["email"] for s in listed] == [f"reader{n:05}@example.com" for n in range(100)]
    last = large.api.get(f"/v1/pages/{large.page_id}/subscribers.json?limit=30&page=16").json
    assert [s["email"] for s in last] == [f"reader{n:05}@example.com" for n in range(480, 500)]


def test_counts_follow_every_change_of_state(world):
    base = f"/v1/pages/{world.page_id}/subscribers"
    made = [
        world.api.post(base, {"subscriber": {"email": f"c{n}@example.com"}}).json for n in range(3)
    ]
    webhook = world.api.post(
        base, {"subscriber": {"endpoint": "https://hooks.example.com/x", "email": "o@example.com"}}
    ).json
    assert world.api.get(f"{base}/count?state=all").json["email"] == 3
    assert world.api.get(f"{base}/count").json["email"] == 0  # unconfirmed until they confirm
    subscribers.confirm(Subscriber.get(world.page_id, made[0]["id"]))
    subscribers.quarantine_by_id(world.page_id, webhook["id"])
    histogram = world.api.get(f"{base}/histogram_by_state").json
    assert histogram["email"] == {"active": 1, "unconfirmed": 2, "quarantined": 0, "total": 3}
    assert histogram["webhook"] == {"active": 0, "unconfirmed": 0, "quarantined": 1, "total": 1}
    assert world.api.delete(f"{base}/{made[1]['id']}").status == 200
    counted = world.api.get(f"{base}/count?state=all").json
    assert (counted["email"], counted["webhook"]) == (2, 1)
    assert world.api.get(f"{base}/count?state=all&q=C2@EXAMPLE").json["email"] == 1
    assert world.api.get(f"{base}/count?state=all&type=webhook").json["email"] == 0


def test_orders_filters_and_search(world, freeze_clock):
    from datetime import UTC, datetime, timedelta

    base = f"/v1/pages/{world.page_id}/subscribers"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    made = {}
    for hour, email in enumerate(["carol@example.com", "alice@example.com", "bob@example.com"]):
        freeze_clock(start + timedelta(hours=hour))
        made[email] = world.api.post(
            base, {"subscriber": {"email": email, "skip_confirmation_notification": True}}
        ).json["id"]
    freeze_clock(start + timedelta(hours=5))
    subscribers.quarantine_by_id(world.page_id, made["carol@example.com"])

    def emails(query):
        return [s["email"] for s in world.api.get(f"{base}?{query}").json]

    assert emails("") == ["alice@example.com", "bob@example.com"]
    assert emails("state=all") == ["alice@example.com", "bob@example.com", "carol@example.com"]
    assert emails("state=all&sort_direction=desc") == [
        "carol@example.com",
        "bob@example.com",
        "alice@example.com",
    ]
    assert emails("state=all&sort_field=created_at") == [
        "carol@example.com",
        "alice@example.com",
        "bob@example.com",
    ]
    # Not quarantined first (no time), then by when they were quarantined.
    assert emails("state=all&sort_field=quarantined_at&sort_direction=desc")[0] == (
        "carol@example.com"
    )
    assert emails("state=quarantined") == ["carol@example.com"]
    assert emails("q=BO&state=all") == ["bob@example.com"]
    assert emails("type=sms&state=all") == []
    assert emails("state=all&limit=1&page=2") == ["carol@example.com"]


def test_an_address_is_free_again_once_unsubscribed(world):
    base = f"/v1/pages/{world.page_id}/subscribers"
    body = {"subscriber": {"email": "back@example.com", "skip_confirmation_notification": True}}
    first = world.api.post(base, body).json
    again = world.api.post(base, body)
    assert again.status == 422
    assert again.json["errors"] == {"email": ["is already subscribed"]}
    assert world.api.delete(f"{base}/{first['id']}").status == 200
    assert world.api.post(base, body).status == 201
    # The same address may follow one incident besides the page.
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}}
    ).json
    path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/subscribers"
    assert world.api.post(path, body).status == 201
    assert world.api.post(path, body).status == 422


def test_subscribers_stored_before_the_listings_are_listed_after_indexing(world):
    from chalicelib import clock, ids

    moment = clock.now()
    old = Subscriber(
        world.page_id,
        ids.new_id(),
        kind="email",
        email="old@example.com",
        component_ids=[],
        state="active",
        created_at=moment,
        updated_at=moment,
    )
    old.save()
    base = f"/v1/pages/{world.page_id}/subscribers"
    assert world.api.get(base).json == []
    subscribers.index_recipients(iter([old]))
    assert [s["id"] for s in world.api.get(base).json] == [old.id]
    assert world.api.get(f"{base}/count").json["email"] == 1
    duplicate = world.api.post(base, {"subscriber": {"email": "old@example.com"}})
    assert duplicate.status == 422
    subscribers.index_recipients(iter([old]))  # a second run changes nothing
    assert world.api.get(f"{base}/count").json["email"] == 1
