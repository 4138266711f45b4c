"""Uptime from the component status history: the rule, and the v1 `uptime` endpoints."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock
from chalicelib.domain import uptime
from tests.public.conftest import make_component, make_group, make_incident, publish

T0 = datetime(2031, 5, 10, 0, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_major_counts_fully_and_partial_counts_three_tenths():
    segments = [
        (T0, "operational"),
        (T0 + HOUR, "major_outage"),
        (T0 + 2 * HOUR, "partial_outage"),
        (T0 + 4 * HOUR, "degraded_performance"),
        (T0 + 5 * HOUR, "under_maintenance"),
    ]
    measured = uptime.outage(segments, T0, T0 + 10 * HOUR)
    assert measured == uptime.Outage(major_seconds=3600, partial_seconds=7200)
    assert measured.weighted_seconds == pytest.approx(3600 + 0.3 * 7200)
    assert uptime.percentage(measured, 10 * 3600) == pytest.approx(100 * (1 - 5760 / 36000))


def test_outage_is_clipped_to_the_range():
    segments = [(T0, "major_outage"), (T0 + 2 * HOUR, "operational")]
    assert uptime.outage(segments, T0 + HOUR, T0 + 10 * HOUR).major_seconds == 3600


def test_a_group_is_as_down_as_its_worst_member():
    first = [(T0, "operational"), (T0 + HOUR, "partial_outage"), (T0 + 3 * HOUR, "operational")]
    second = [(T0, "operational"), (T0 + 2 * HOUR, "major_outage"), (T0 + 4 * HOUR, "operational")]
    merged = uptime.worst([first, second])
    assert merged == [
        (T0, "operational"),
        (T0 + HOUR, "partial_outage"),
        (T0 + 2 * HOUR, "major_outage"),
        (T0 + 4 * HOUR, "operational"),
    ]


def test_partial_dates_fill_in_as_statuspage_does():
    today = datetime(2031, 12, 31).date()
    dates = uptime.resolve_range("2031-02", "2031-03", datetime(2020, 1, 1).date(), today)
    assert (dates.start.isoformat(), dates.end.isoformat()) == ("2031-02-01", "2031-03-31")
    dates = uptime.resolve_range("2031", None, datetime(2031, 8, 1).date(), today)
    assert dates.start.isoformat() == "2031-08-01"
    assert dates.warnings == [uptime.START_ADJUSTED]


@pytest.fixture
def timeline(world):
    """A component down 1 h (major) and 2 h (partial) on its first day; asked a day later."""
    clock.freeze(T0)
    component = make_component(world, "API", start_date="2031-05-10")
    path = f"/v1/pages/{world.page_id}/components/{component['id']}"
    for offset, status in ((1, "major_outage"), (2, "partial_outage"), (4, "operational")):
        clock.freeze(T0 + offset * HOUR)
        assert world.api.patch(path, {"component": {"status": status}}).status == 200
    clock.freeze(T0 + timedelta(days=2))
    yield component
    clock.freeze(None)


def test_component_uptime(world, timeline):
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime"
    answer = world.api.get(path + "?start=2031-05-10&end=2031-05-10")
    assert answer.status == 200, answer.text
    body = answer.json
    assert body["id"] == timeline["id"] and body["name"] == "API"
    assert (body["range_start"], body["range_end"]) == ("2031-05-10", "2031-05-10")
    assert body["major_outage"] == 3600
    assert body["partial_outage"] == 7200
    assert body["uptime_percentage"] == round(100 * (1 - (3600 + 0.3 * 7200) / 86400), 2)
    assert body["warnings"] == []
    assert body["related_events"] == []


def test_component_uptime_defaults_and_archived_style(world, timeline):
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime.json"
    body = world.api.get(path + "?end=2040-01-01").json
    assert body["range_start"] == "2031-05-10"  # the component's start, later than 90 days ago
    assert body["range_end"] == "2031-05-12"
    assert body["warnings"] == [uptime.END_ADJUSTED]
    assert body["major_outage"] == 3600


def test_related_events_name_incidents_of_the_component(world, timeline):
    incident = make_incident(world, "API trouble", component_ids=[timeline["id"]])
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime"
    assert world.api.get(path).json["related_events"] == [{"id": incident["id"]}]
    assert world.api.get(path + "?skip_related_events=true").json["related_events"] is None


def test_group_uptime_follows_the_worst_member(world, timeline):
    clock.freeze(T0)
    other = make_component(world, "Web", start_date="2031-05-10")
    group = make_group(world, "Core", [timeline["id"], other["id"]])
    clock.freeze(T0 + timedelta(days=2))
    path = f"/v1/pages/{world.page_id}/component-groups/{group['id']}/uptime"
    answer = world.api.get(path + "?start=2031-05-10&end=2031-05-10")
    assert answer.status == 200, answer.text
    body = answer.json
    assert body["id"] == group["id"]
    assert (body["major_outage"], body["partial_outage"]) == (3600, 7200)
    assert {event["component_id"] for event in body["related_events"]} == {
        timeline["id"],
        other["id"],
    }


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("start=yesterday", "start"),
        ("end=2031-13", "end"),
        ("start=2031-05-12&end=2031-05-11", "start"),
    ],
)
def test_bad_ranges_are_422(world, timeline, query, field):
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime?{query}"
    answer = world.api.get(path)
    assert answer.status == 422
    assert field in answer.json["errors"]


def test_a_range_longer_than_six_months_is_422(world, timeline):
    clock.freeze(datetime(2032, 12, 1, tzinfo=UTC))
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime"
    assert world.api.get(path + "?start=2031-06-01&end=2032-06-01").status == 422


def test_uptime_needs_a_key_and_a_showcased_component(world, timeline):
    path = f"/v1/pages/{world.page_id}/components/{timeline['id']}/uptime"
    assert world.api.as_key(None).get(path).status == 401
    hidden = make_component(world, "Hidden", showcase=False)
    answer = world.api.get(f"/v1/pages/{world.page_id}/components/{hidden['id']}/uptime")
    assert answer.status == 422
    assert (
        world.api.get(f"/v1/pages/{world.page_id}/components/nosuchcomponent1/uptime").status == 404
    )


def test_the_public_page_draws_the_day_of_the_outage(world, timeline, visitor):
    publish(world)
    bars = visitor.get("").text.split('class="bar level-')[1:]
    levels = [bar.split('"')[0] for bar in bars]
    assert levels[-3:] == ["critical", "up", "up"]  # its worst: a major outage
    assert levels[0] == "nodata"


def test_a_day_of_many_changes_fills_several_items_and_uptime_counts_them_all(world, monkeypatch):
    from chalicelib.store import components as component_store
    from chalicelib.store.components import ComponentStatusDay

    monkeypatch.setattr(component_store, "MAX_CHANGES_PER_ITEM", 3)
    clock.freeze(T0)
    component = make_component(world, "Flaky", start_date="2031-05-10")
    path = f"/v1/pages/{world.page_id}/components/{component['id']}"
    try:
        # Eight changes in the day, alternating each hour: four hours of major outage.
        for hour in range(1, 9):
            clock.freeze(T0 + hour * HOUR)
            status = "major_outage" if hour % 2 else "operational"
            assert world.api.patch(path, {"component": {"status": status}}).status == 200
        clock.freeze(T0 + timedelta(days=1, hours=1))
        assert world.api.patch(path, {"component": {"status": "major_outage"}}).status == 200
        clock.freeze(T0 + timedelta(days=2))
        items = {day.day: len(day.changes) for day in ComponentStatusDay.query(component["id"])}
        assert items == {
            "2031-05-10": 3,
            "2031-05-10#0001": 3,
            "2031-05-10#0002": 2,
            "2031-05-11": 1,
        }
        body = world.api.get(f"{path}/uptime?start=2031-05-10&end=2031-05-10").json
        assert body["major_outage"] == 4 * 3600
    finally:
        clock.freeze(None)


def test_history_is_read_again_only_after_a_change(world, dynamodb_calls):
    """A process keeps a component's status history until its next change: a rebuild after a
    write to something else reads no status day, and the next change is in the next read."""
    from chalicelib.domain import components

    component = make_component(world, "API")
    world.api.patch(
        f"/v1/pages/{world.page_id}/components/{component['id']}",
        {"component": {"status": "major_outage"}},
    )

    def history() -> list:
        record = next(r for r in components.components_of(world.page_id) if r.id == component["id"])
        return [status for _, status in uptime.history(record, clock.now() - timedelta(days=1))]

    assert history()[-1] == "major_outage"
    before = dynamodb_calls.count("Query")
    assert history()[-1] == "major_outage"
    assert dynamodb_calls.count("Query") - before == 1  # the components, not the status days
    world.api.patch(
        f"/v1/pages/{world.page_id}/components/{component['id']}",
        {"component": {"status": "operational"}},
    )
    assert history()[-2:] == ["major_outage", "operational"]
