"""Past uptime (issue 50, item 4): backfilled incidents count toward the uptime bars by their
impact (critical: major outage, major: partial outage) from when they began until resolved, on
the components they named or all of them; the owner may keep one out, and may set a past day's
minutes of outage, which replace what was computed. A day card never says "No downtime
recorded" beside a downtime incident."""

from datetime import UTC, date, datetime, timedelta

import pytest

from chalicelib import clock
from chalicelib.domain import incidents, uptime
from chalicelib.domain.pages import find_page
from tests.public.conftest import make_component, make_group, make_incident, publish
from tests.public.test_uptime_bars import day_of

T0 = datetime(2031, 5, 10, 0, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.fixture
def quarter(world):
    """API and Web, showcased since May 1st, looked at on May 30th."""
    clock.freeze(T0 - timedelta(days=9))
    api = make_component(world, "API", start_date="2031-05-01", showcase=True)
    web = make_component(world, "Web", start_date="2031-05-01", showcase=True)
    clock.freeze(T0 + timedelta(days=20))
    yield api, web
    clock.freeze(None)


def backfill(world, name: str, impact: str, began: datetime, lasted: timedelta, **fields):
    """A past incident as an API client backfills it: begun at `began`, resolved afterwards,
    its resolving update dated to when it was resolved."""
    created = make_incident(
        world,
        name,
        backfilled=True,
        backfill_date=began.isoformat(),
        impact_override=impact,
        deliver_notifications=False,
        **fields,
    )
    path = f"/v1/pages/{world.page_id}/incidents/{created['id']}"
    resolved = world.api.patch(path, {"incident": {"status": "resolved", "body": "Fixed."}})
    assert resolved.status == 200, resolved.text
    update_id = resolved.json["incident_updates"][0]["id"]
    dated = world.api.patch(
        f"{path}/incident_updates/{update_id}",
        {"incident_update": {"display_at": (began + lasted).isoformat()}},
    )
    assert dated.status == 200, dated.text
    return created


def uptime_of(world, component: dict) -> dict:
    answer = world.api.get(
        f"/v1/pages/{world.page_id}/components/{component['id']}/uptime?start=2031-05-01"
    )
    assert answer.status == 200, answer.text
    return answer.json


def test_a_backfilled_critical_incident_is_a_major_outage_for_its_duration(world, visitor, quarter):
    api, web = quarter
    backfill(
        world,
        "Database down",
        "critical",
        T0 + HOUR,
        90 * timedelta(minutes=1),
        component_ids=[api["id"]],
    )
    publish(world)
    page = visitor.get("").text
    button, card = day_of(page, "May 10, 2031")
    assert "level-critical" in button
    assert '<p class="uptime-outage">1 h 30 min major outage</p>' in card
    assert "Database down" in card
    assert "Uptime of API over the past 90 days: 99.78 %" in page
    assert "Uptime of Web over the past 90 days: 100.0 %" in page
    assert uptime_of(world, api)["major_outage"] == 90 * 60
    assert uptime_of(world, web)["major_outage"] == 0


def test_one_naming_no_component_counts_on_every_one(world, visitor, quarter):
    backfill(world, "Everything slow", "major", T0 + HOUR, 2 * HOUR)
    publish(world)
    page = visitor.get("").text
    for name in ("API", "Web"):
        assert f"Uptime of {name} over the past 90 days: 99.91 %" in page
    bars = page.split('aria-label="Uptime of Web')[1]
    button, card = day_of(bars, "May 10, 2031")
    assert "level-major" in button and "2 h 0 min partial outage" in card
    assert "Everything slow" in card  # named on every bar's card, not only on named ones


def test_a_minor_one_is_no_downtime(world, visitor, quarter):
    api, _ = quarter
    backfill(world, "Slow pages", "minor", T0 + HOUR, HOUR, component_ids=[api["id"]])
    publish(world)
    _, card = day_of(visitor.get("").text, "May 10, 2031")
    assert '<p class="uptime-outage">No downtime recorded</p>' in card and "Slow pages" in card


def test_one_the_owner_keeps_out_counts_nothing_and_the_card_says_so(world, visitor, quarter):
    api, _ = quarter
    incidents.create_incident(
        world.page_id,
        incidents.IncidentInput(
            name="Full outage",
            impact_override="critical",
            component_ids=[api["id"]],
            backfilled=True,
            backfill_date=T0 + HOUR,
        ),
        resolved_at=T0 + 3 * HOUR,
        in_uptime=False,
    )
    publish(world)
    page = visitor.get("").text
    _, card = day_of(page, "May 10, 2031")
    assert "Full outage" in card
    assert "No downtime recorded" not in card
    assert '<p class="uptime-outage">No downtime counted in uptime</p>' in card
    assert "Uptime of API over the past 90 days: 100.0 %" in page


def test_an_edited_day_replaces_what_was_computed(world, visitor, quarter):
    api, _ = quarter
    backfill(world, "Database down", "critical", T0 + HOUR, HOUR, component_ids=[api["id"]])
    page_record = find_page(world.page_id)
    uptime.edit_day(page_record, api["id"], date(2031, 5, 10), 0, 0)
    uptime.edit_day(page_record, api["id"], date(2031, 5, 12), 30, 60)
    publish(world)
    page = visitor.get("").text
    button, card = day_of(page, "May 10, 2031")
    assert "level-up" in button
    assert '<p class="uptime-outage">No downtime (set by the team)</p>' in card
    button, card = day_of(page, "May 12, 2031")
    assert "level-critical" in button
    assert "30 min major outage, 1 h 0 min partial outage (set by the team)" in card
    measured = uptime_of(world, api)
    assert (measured["major_outage"], measured["partial_outage"]) == (30 * 60, 60 * 60)
    # Both cleared: the day is as computed again.
    uptime.edit_day(page_record, api["id"], date(2031, 5, 10), None, None)
    assert uptime_of(world, api)["major_outage"] == 30 * 60 + 60 * 60


def test_a_day_is_edited_only_from_the_component_start_to_today(world, quarter):
    from chalicelib.domain import errors

    api, _ = quarter
    page_record = find_page(world.page_id)
    for day, minutes in ((date(2031, 4, 30), 10), (date(2031, 5, 31), 10), (T0.date(), 1441)):
        with pytest.raises(errors.Invalid):
            uptime.edit_day(page_record, api["id"], day, minutes, 0)


def test_a_group_counts_its_members_past_outages_and_edited_days(world, quarter):
    api, web = quarter
    group = make_group(world, "Core", [api["id"], web["id"]])
    backfill(world, "Web down", "critical", T0 + HOUR, HOUR, component_ids=[web["id"]])
    uptime.edit_day(find_page(world.page_id), api["id"], date(2031, 5, 12), 30, 0)
    answer = world.api.get(
        f"/v1/pages/{world.page_id}/component-groups/{group['id']}/uptime?start=2031-05-01"
    )
    assert answer.status == 200, answer.text
    assert answer.json["major_outage"] == 60 * 60 + 30 * 60
