"""What time alone republishes (issue 49, part 2): an idle page once a day at most, a page
with an outage while its minutes grow; relative times are the reader's browser's, so the
published files stay as they are while time passes.

The every-minute function runs as EventBridge invokes it (`tick`), the publish function as
the queue does (`drain_publishes`), under a moved clock."""

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.api.test_metrics import add_point, make_metric
from tests.public.conftest import make_component, make_incident, published_file

# An ordinary morning, far from the pages' midnight (UTC).
MORNING = datetime(2030, 6, 3, 10, 0, 30, tzinfo=UTC)


@pytest.fixture
def publishes(monkeypatch):
    """The publishes that rendered a page's files, counted as they run."""
    from chalicelib.public import publish

    counted: list[str] = []
    build = publish.build

    def counting(page_id, store):
        counted.append(page_id)
        return build(page_id, store)

    monkeypatch.setattr(publish, "build", counting)
    return counted


def minutes_pass(freeze_clock, tick, drain_publishes, start: datetime, minutes: int) -> None:
    """The clock moves a minute at a time; the every-minute function runs at each."""
    for minute in range(1, minutes + 1):
        freeze_clock(start + timedelta(minutes=minute))
        tick()
        drain_publishes()


def page_of(world, name: str):
    """Another page of the world's organization, and the world seen from it."""
    from chalicelib.domain import pages

    page = pages.create_page(world.organization_id, pages.PageInput(name=name))
    return dataclasses.replace(world, page_id=page.id)


def test_twenty_idle_pages_are_not_republished_in_eleven_minutes(
    world, tick, drain_publishes, freeze_clock, publishes
):
    freeze_clock(MORNING)
    for number in range(20):
        shown = page_of(world, f"Idle {number}")
        make_component(shown, "API", showcase=True)
        if number % 2:  # half of them chart a metric, which had data before
            metric = make_metric(shown, name="Latency", display=True).json
            at = int(MORNING.timestamp()) - 600
            assert add_point(shown, metric["id"], at, 12).status == 201
    drain_publishes()
    publishes.clear()

    minutes_pass(freeze_clock, tick, drain_publishes, MORNING, 11)
    assert len(publishes) <= 2, publishes


def bar_card_of_today(page: bytes) -> str:
    cards = re.findall(rb'<p class="uptime-outage">([^<]*)</p>', page)
    return cards[-1].decode()


def test_a_page_in_outage_is_republished_while_its_minutes_grow_and_not_after(
    world, tick, drain_publishes, freeze_clock, publishes
):
    freeze_clock(MORNING)
    api = make_component(world, "API", showcase=True, status="major_outage")
    drain_publishes()
    publishes.clear()

    minutes_pass(freeze_clock, tick, drain_publishes, MORNING, 21)
    assert 2 <= len(publishes) <= 3  # every ten minutes
    _, page = published_file(world.page_id)
    assert bar_card_of_today(page) == "20 min major outage"

    ended = MORNING + timedelta(minutes=21)
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{api['id']}",
        {"component": {"status": "operational"}},
    )
    assert answer.status == 200, answer.text
    drain_publishes()
    publishes.clear()
    minutes_pass(freeze_clock, tick, drain_publishes, ended, 30)
    assert publishes == []  # today's minutes of outage no longer grow
    _, page = published_file(world.page_id)
    assert bar_card_of_today(page) == "21 min major outage"


def test_a_published_home_page_is_the_same_at_ten_and_at_ten_thirty_five(
    world, drain_publishes, freeze_clock
):
    from chalicelib.public import publish

    freeze_clock(MORNING - timedelta(hours=2))
    api = make_component(world, "API", showcase=True)
    incident = make_incident(world, "Slow logins", components={api["id"]: "degraded_performance"})
    freeze_clock(MORNING - timedelta(hours=1))
    world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
        {"incident": {"status": "monitoring", "body": "A fix is out."}},
    )
    make_incident(
        world,
        "Database upgrade",
        status="scheduled",
        scheduled_for="2030-06-03T14:00:00Z",
        scheduled_until="2030-06-03T15:00:00Z",
    )
    metric = make_metric(world, name="Latency", display=True, decimal_places=1).json
    freeze_clock(MORNING - timedelta(minutes=5))
    for minutes in (50, 30, 10):
        at = int(MORNING.timestamp()) - minutes * 60
        assert add_point(world, metric["id"], at, minutes).status == 201
    drain_publishes()

    freeze_clock(MORNING)
    publish.publish_page(world.page_id, force=True)
    _, at_ten = published_file(world.page_id)
    freeze_clock(MORNING + timedelta(minutes=35))
    publish.publish_page(world.page_id, force=True)
    _, later = published_file(world.page_id)
    assert at_ten == later
    # What time changes is told by absolute times the reader's browser counts from.
    text = at_ten.decode()
    assert 'Last updated <time class="moment" datetime="2030-06-03T09:00:30.000Z"' in text
    assert 'data-relative="countdown"' in text
