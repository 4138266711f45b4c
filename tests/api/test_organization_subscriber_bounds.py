"""An organization's subscriber list (`GET /v1/organizations/{id}/subscribers.json`) is one
list across its pages, paged as a page's list is (`limit`, 0-based `page`), and reads the
page of results asked for: what it costs does not grow with the organization's subscribers
or, in calls, with its pages."""

import pytest

from chalicelib.domain import organizations, pages, subscribers
from chalicelib.domain.pages import PageInput
from chalicelib.store.models import Page
from chalicelib.store.subscriber_listings import SubscriberListing
from chalicelib.store.subscribers import Subscriber
from tests.api.conftest import Api


def subscribe(page_id: str, email: str, state: str) -> Subscriber:
    """An email subscriber in `state` (active, unconfirmed or quarantined), through the rules."""
    fields = subscribers.SubscriberInput(
        email=email, skip_confirmation_notification=state != subscribers.UNCONFIRMED
    )
    made = subscribers.create(Page.get(page_id), fields)
    if state == subscribers.QUARANTINED:
        subscribers.quarantine_by_id(page_id, made.id)
    return made


def organization_of(make_world, pages_count: int, per_page: int):
    """A world whose organization has `pages_count` pages of `per_page` subscribers each,
    a third in each listed state."""
    world = make_world()
    page_ids = [world.page_id]
    for number in range(1, pages_count):
        page_ids.append(pages.create_page(world.organization_id, PageInput(name=f"P{number}")).id)
    for index, page_id in enumerate(page_ids):
        for number in range(per_page):
            state = subscribers.LISTED_STATES[number % 3]
            subscribe(page_id, f"reader{number:03}-p{index}@example.com", state)
    return world, page_ids


def cost(world, query: str, dynamodb_calls) -> tuple[list[str], int, list[dict]]:
    path = f"/v1/organizations/{world.organization_id}/subscribers.json?{query}"
    before_calls, before_items = len(dynamodb_calls.operations), dynamodb_calls.items_read()
    answer = world.api.get(path)
    assert answer.status == 200, answer.text
    calls = sorted(dynamodb_calls.operations[before_calls:])
    return calls, dynamodb_calls.items_read() - before_items, answer.json


QUERIES = [
    "state=all&limit=5&page=1",
    "state=all&limit=5&page=1&sort_field=created_at&sort_direction=desc",
    "state=quarantined&limit=5&page=1",
    "limit=5&page=1&type=email",
]


def test_the_organizations_list_costs_the_same_with_30_and_240_subscribers(
    make_world, dynamodb_calls
):
    small, small_pages = organization_of(make_world, 2, 15)  # 10 in each state
    large, large_pages = organization_of(make_world, 6, 40)
    for query in QUERIES:
        small_calls, small_items, small_listed = cost(small, query, dynamodb_calls)
        large_calls, large_items, large_listed = cost(large, query, dynamodb_calls)
        print(f"{query:70} calls {len(large_calls):3}  items read {small_items} / {large_items}")
        assert small_calls == large_calls, query
        # The only more read: the organization's pages, to know which the caller reaches.
        assert large_items - small_items == len(large_pages) - len(small_pages), query
        assert len(small_listed) == len(large_listed) == 5, query


@pytest.fixture
def three_pages(make_world):
    """An organization of three pages, each with subscribers in every state, an unsubscribed
    one and an incident subscriber."""
    world, page_ids = organization_of(make_world, 3, 7)
    gone = subscribe(page_ids[1], "gone@example.com", subscribers.ACTIVE)
    subscribers.unsubscribe(gone)
    incident = world.api.post(
        f"/v1/pages/{page_ids[2]}/incidents", {"incident": {"name": "Outage"}}
    ).json
    world.api.post(
        f"/v1/pages/{page_ids[2]}/incidents/{incident['id']}/subscribers",
        {"subscriber": {"email": "incident@example.com", "skip_confirmation_notification": True}},
    )
    return world, page_ids


def every_page_of(api: Api, path: str, limit: int) -> list[dict]:
    """The whole list, read `limit` at a time."""
    found, page = [], 0
    while True:
        answer = api.get(f"{path}&limit={limit}&page={page}")
        assert answer.status == 200, answer.text
        found += answer.json
        if len(answer.json) < limit:
            return found
        page += 1


def page_level(api: Api, page_ids: list[str], query: str) -> list[dict]:
    found = []
    for page_id in page_ids:
        found += every_page_of(api, f"/v1/pages/{page_id}/subscribers?{query}", 100)
    return found


def by_address(listed: list[dict]) -> list[str]:
    return [s["id"] for s in sorted(listed, key=lambda s: f"{s['email'].lower()} {s['id']}")]


@pytest.mark.parametrize(
    "query",
    [
        "state=all",
        "",
        "state=active",
        "state=unconfirmed",
        "state=quarantined",
        "state=all&q=p1@",
        "state=all&type=webhook",
    ],
)
def test_one_list_across_the_pages_in_every_state(three_pages, query):
    world, page_ids = three_pages
    path = f"/v1/organizations/{world.organization_id}/subscribers.json?{query}"
    listed = every_page_of(world.api, path, 4)
    assert [s["id"] for s in listed] == by_address(page_level(world.api, page_ids, query))
    assert "gone@example.com" not in {s["email"] for s in listed}
    if query == "state=all":
        assert len(listed) == 3 * 7 + 1  # the incident subscriber too
        assert {s["state"] for s in listed} == set(subscribers.LISTED_STATES)


def test_a_page_of_the_list_is_at_most_its_limit(three_pages):
    world, _ = three_pages
    base = f"/v1/organizations/{world.organization_id}/subscribers.json?state=all"
    assert len(world.api.get(f"{base}&limit=2").json) == 2
    assert len(world.api.get(base).json) == 22  # at most 100
    assert world.api.get(f"{base}&limit=5&page=100000").json == []


def test_newest_first_across_the_pages(three_pages):
    world, _ = three_pages
    base = f"/v1/organizations/{world.organization_id}/subscribers.json?state=all"
    newest = every_page_of(world.api, f"{base}&sort_field=created_at&sort_direction=desc", 5)
    assert sorted(s["id"] for s in newest) == sorted(s["id"] for s in world.api.get(base).json)
    stamps = [s["created_at"] for s in newest]
    assert stamps == sorted(stamps, reverse=True)


def test_a_user_of_some_pages_lists_only_theirs(three_pages):
    world, page_ids = three_pages
    member = organizations.create_user(world.organization_id, "member@example.com")
    organizations.set_page_roles(member, {page_ids[1]: {}})
    api = world.api.as_key(organizations.create_api_key(member))
    path = f"/v1/organizations/{world.organization_id}/subscribers.json?state=all"
    listed = every_page_of(api, path, 3)
    assert [s["id"] for s in listed] == by_address(
        page_level(world.api, page_ids[1:2], "state=all")
    )


def test_a_deleted_pages_subscribers_are_not_listed(three_pages):
    world, page_ids = three_pages
    pages.delete_page(Page.get(page_ids[0]))
    path = f"/v1/organizations/{world.organization_id}/subscribers.json?state=all"
    listed = every_page_of(world.api, path, 4)
    assert [s["id"] for s in listed] == by_address(page_level(world.api, page_ids[1:], "state=all"))


def test_subscribers_stored_before_the_organizations_list_are_listed_once_indexed(make_world):
    world, (page_id,) = organization_of(make_world, 1, 3)
    path = f"/v1/organizations/{world.organization_id}/subscribers.json?state=all"
    assert len(world.api.get(path).json) == 3
    for state in subscribers.LISTED_STATES:  # as data of an earlier version has none
        listing = f"organization#{world.organization_id}#{state}"
        for entry in SubscriberListing.query(listing):
            entry.delete()
    assert world.api.get(path).json == []
    subscribers.index_recipients(Subscriber.query(page_id))
    assert len(world.api.get(path).json) == 3
