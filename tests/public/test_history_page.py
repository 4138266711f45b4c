"""The incident history (issue 32, item 8): a pager to the quarter before and after, a filter
by component (the page's script: the published file is the same for every reader), and
maintenances from when they are scheduled."""

import re
from datetime import UTC, datetime

import pytest

from chalicelib import clock
from tests.public.conftest import make_component, make_group, make_incident, publish


@pytest.fixture
def frozen_clock():
    def at(moment: datetime) -> datetime:
        clock.freeze(moment)
        return moment

    yield at
    clock.freeze(None)


def pager_of(page: str) -> str:
    return re.search(r'<nav class="pager".*?</nav>', page, re.DOTALL).group(0)


def test_the_pager_goes_to_the_quarter_before_and_back(world, visitor, frozen_clock):
    frozen_clock(datetime(2030, 5, 2, tzinfo=UTC))
    make_incident(world, "May trouble", status="resolved")  # nothing before this quarter
    publish(world)
    current = pager_of(visitor.get("/history").text)
    base = f"/s/{world.page_id}/history"
    assert f'href="{base}?quarter=2030-Q1" rel="prev"' in current
    assert "January - March 2030" in current
    assert 'aria-current="page">April - June 2030<' in current
    assert 'rel="next"' not in current  # the next quarter has not begun
    before = visitor.get("/history?quarter=2030-Q1")
    assert before.status == 200
    assert "No incidents reported this month." in before.text
    earlier = pager_of(before.text)
    assert f'href="{base}?quarter=2030-Q2" rel="next"' in earlier
    assert f'href="{base}?quarter=2029-Q4" rel="prev"' in earlier


def test_the_pager_of_a_month_goes_by_months(world, visitor, frozen_clock):
    frozen_clock(datetime(2030, 5, 2, tzinfo=UTC))
    publish(world)
    pager = pager_of(visitor.get("/history?month=2030-04").text)
    assert "?month=2030-03" in pager and "?month=2030-05" in pager


def test_the_filter_lists_the_components_and_each_incident_names_its_own(world, visitor):
    api, database = make_component(world, "API"), make_component(world, "Database")
    group = make_group(world, "Core", [api["id"], database["id"]])
    web = make_component(world, "Website")
    make_incident(world, "API down", status="resolved", components={api["id"]: "major_outage"})
    make_incident(world, "Web slow", status="resolved", component_ids=[web["id"]])
    publish(world)
    page = visitor.get("/history").text
    form = re.search(r'<form class="history-filter".*?</form>', page, re.DOTALL).group(0)
    assert " hidden>" in form.split("\n")[0]  # shown by the page's script only
    options = re.findall(r'<option value="([^"]*)" data-ids="([^"]*)">([^<]*)</option>', form)
    assert options == [
        ("", "", "All components"),
        (group["id"], f"{group['id']} {api['id']} {database['id']}", "Core"),
        (api["id"], api["id"], "Core / API"),
        (database["id"], database["id"], "Core / Database"),
        (web["id"], web["id"], "Website"),
    ]
    cards = dict(
        (name, ids)
        for ids, name in re.findall(
            r'data-component-ids="([^"]*)">\s*<h3><a href="[^"]+">([^<]+)</a>', page
        )
    )
    assert cards == {"API down": api["id"], "Web slow": web["id"]}
    assert "<script>" in page  # the filter's, allowed by its hash


def test_maintenances_show_from_when_they_are_scheduled(world, visitor, frozen_clock):
    frozen_clock(datetime(2030, 5, 2, tzinfo=UTC))
    make_incident(
        world,
        "Later this month",
        status="scheduled",
        scheduled_for="2030-05-20T02:00:00Z",
        scheduled_until="2030-05-20T04:00:00Z",
    )
    make_incident(
        world,
        "Next month",
        status="scheduled",
        scheduled_for="2030-06-03T02:00:00Z",
        scheduled_until="2030-06-03T04:00:00Z",
    )
    make_incident(
        world,
        "Under way",
        status="in_progress",
        scheduled_for="2030-05-01T22:00:00Z",
        scheduled_until="2030-05-02T06:00:00Z",
    )
    publish(world)
    page = visitor.get("/history").text
    for name in ("Later this month", "Next month", "Under way"):
        assert name in page
    # Newest month first: June is listed for its maintenance, though it has not begun.
    assert page.index("June 2030") < page.index("Next month") < page.index("May 2030")
    assert "Scheduled for May 20, 2030 - 02:00 UTC" in re.sub("<[^>]+>", "", page)
