"""The uptime bars (issue 32, item 9): each day a button whose card names its outage minutes
and the incidents open that day, shown on hover, focus and tap; the phone's "30 days ago"; a
group's disclosure marker and member count."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock
from tests.public.conftest import make_component, make_group, make_incident, publish

T0 = datetime(2031, 5, 10, 0, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.fixture
def outage(world):
    """API in a major outage for an hour of its first day, named by an incident; looked at
    forty days later, when the incident is no longer among the page's recent ones."""
    clock.freeze(T0)
    api = make_component(world, "API", start_date="2031-05-10", showcase=True)
    clock.freeze(T0 + HOUR)
    incident = make_incident(world, "API down <b>", components={api["id"]: "major_outage"})
    clock.freeze(T0 + 2 * HOUR)
    resolved = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
        {"incident": {"status": "resolved", "components": {api["id"]: "operational"}}},
    )
    assert resolved.status == 200, resolved.text
    clock.freeze(T0 + timedelta(days=40))
    yield api, incident
    clock.freeze(None)


def day_of(page: str, label: str) -> tuple[str, str]:
    """The bar's button of the day `label` and what its card says."""
    found = re.search(
        rf'<div class="uptime-day">(<button [^>]*aria-label="{label}"[^>]*></button>)'
        r'<div class="uptime-card"><strong>[^<]*</strong><div id="([^"]+)">(.*?)</div></div></div>',
        page,
    )
    assert found, f"no bar for {label}"
    button, card_id, card = found.groups()
    assert f'aria-describedby="{card_id}"' in button
    return button, card


def test_a_day_card_names_its_outage_minutes_and_its_incidents(world, visitor, outage):
    api, incident = outage
    publish(world)
    page = visitor.get("").text
    button, card = day_of(page, "May 10, 2031")
    assert 'class="bar level-critical"' in button and 'type="button"' in button
    assert '<p class="uptime-outage">1 h 0 min major outage</p>' in card
    link = f'href="/s/{world.page_id}/incidents/{incident["id"]}">API down &lt;b&gt;</a>'
    assert link in card
    _, quiet = day_of(page, "May 11, 2031")
    assert '<p class="uptime-outage">No downtime recorded</p>' in quiet and "<a " not in quiet
    _, before = day_of(page, "May 9, 2031")
    assert '<p class="uptime-outage">No data</p>' in before


def test_the_bars_are_one_group_with_a_name_and_no_native_tooltip(world, visitor):
    make_component(world, "API", showcase=True)
    publish(world)
    page = visitor.get("").text
    assert re.search(
        r'<div class="bars" role="group" aria-label="Uptime of API over the past 90 days: 100.0 %">',
        page,
    )
    assert page.count('<button type="button" class="bar level-') == 90
    assert 'class="bar level-up" title=' not in page  # the card, not the browser's tooltip


def test_a_phone_reads_30_days_ago(world, visitor):
    make_component(world, "API", showcase=True)
    publish(world)
    legend = re.search(r'<div class="bars-legend">.*?</div>', visitor.get("").text).group(0)
    assert '<span class="window-wide">90 days ago</span>' in legend
    assert '<span class="window-phone">30 days ago</span>' in legend


def test_a_group_shows_a_disclosure_marker_and_how_many_it_holds(world, visitor):
    api, database = make_component(world, "API"), make_component(world, "Database")
    make_group(world, "Core", [api["id"], database["id"]])
    solo = make_component(world, "Solo")
    make_group(world, "Edge", [solo["id"]])
    publish(world)
    page = visitor.get("").text
    summaries = re.findall(r"<summary>(.*?)</summary>", page)
    assert len(summaries) == 2
    assert '<span class="disclosure" aria-hidden="true"></span>' in summaries[0]
    assert '<span class="member-count">2 components</span>' in summaries[0]
    assert '<span class="member-count">1 component</span>' in summaries[1]
    # The marker turns with the group: closed ▸, open ▾.
    assert '.disclosure::before { content: "\\25B8"' in page
    assert '.group[open] > summary .disclosure::before { content: "\\25BE"; }' in page


@pytest.mark.usefixtures("app_views")
def test_the_cards_cost_a_view_no_read(world, visitor, outage, dynamodb_calls):
    """What the cards name comes with the snapshot: a view still reads one item."""
    publish(world)
    before = dynamodb_calls.count()
    assert "API down" in visitor.get("").text
    assert dynamodb_calls.operations[before:] == ["GetItem"]


def test_the_snapshot_keeps_the_newest_older_incidents_only(world, visitor, monkeypatch):
    """The bars' older days are read with a bound: a busy quarter costs no more."""
    from chalicelib.views import snapshot

    monkeypatch.setattr(snapshot, "UPTIME_OLDER_INCIDENTS", 1)
    clock.freeze(T0)
    try:
        api = make_component(world, "API", start_date="2031-05-10", showcase=True)
        for day, name in ((1, "Older trouble"), (2, "Newer trouble")):
            clock.freeze(T0 + timedelta(days=day))
            make_incident(world, name, status="resolved", component_ids=[api["id"]])
        clock.freeze(T0 + timedelta(days=40))
        publish(world)
        page = visitor.get("").text
        assert "Newer trouble" in page and "Older trouble" not in page
    finally:
        clock.freeze(None)
