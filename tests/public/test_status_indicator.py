"""The overall status of CONTRACT.md: the worst of component statuses and open incidents'
impact; `maintenance` only when nothing else is wrong."""

import pytest

from tests.public.conftest import make_component, make_incident, publish

WINDOW = {"scheduled_for": "2099-01-01T00:00:00Z", "scheduled_until": "2099-01-01T02:00:00Z"}


def status_of(visitor) -> dict:
    return visitor.get("/api/v2/status.json").json["status"]


def set_status(world, component, status):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{component['id']}",
        {"component": {"status": status}},
    )
    assert answer.status == 200, answer.text


def test_every_component_operational_and_nothing_open_is_none(world, visitor):
    make_component(world, "API")
    make_incident(world, "Over", status="resolved")
    publish(world)
    assert status_of(visitor) == {"indicator": "none", "description": "All Systems Operational"}


@pytest.mark.parametrize(
    ("status", "indicator", "description"),
    [
        ("degraded_performance", "minor", "Minor Service Outage"),
        ("partial_outage", "major", "Partial System Outage"),
        ("major_outage", "critical", "Major System Outage"),
        ("under_maintenance", "maintenance", "Service Under Maintenance"),
    ],
)
def test_component_status_sets_indicator(world, visitor, status, indicator, description):
    component = make_component(world, "API")
    make_component(world, "Web")
    set_status(world, component, status)
    publish(world)
    assert status_of(visitor) == {"indicator": indicator, "description": description}


def test_worst_component_wins(world, visitor):
    first, second = make_component(world, "API"), make_component(world, "Web")
    set_status(world, first, "degraded_performance")
    set_status(world, second, "partial_outage")
    publish(world)
    assert status_of(visitor)["indicator"] == "major"


def test_open_incident_impact_counts(world, visitor):
    make_component(world, "API")
    make_incident(world, "Bad", impact_override="critical")
    publish(world)
    assert status_of(visitor)["indicator"] == "critical"


def test_open_incident_without_impact_is_minor(world, visitor):
    make_incident(world, "Something odd")
    publish(world)
    assert status_of(visitor)["indicator"] == "minor"


def test_maintenance_in_progress_when_nothing_else_is_wrong(world, visitor):
    make_incident(world, "Upgrade", status="in_progress", **WINDOW)
    publish(world)
    assert status_of(visitor) == {
        "indicator": "maintenance",
        "description": "Service Under Maintenance",
    }


def test_an_outage_outranks_maintenance(world, visitor):
    component = make_component(world, "API")
    make_incident(world, "Upgrade", status="in_progress", **WINDOW)
    set_status(world, component, "partial_outage")
    publish(world)
    assert status_of(visitor)["indicator"] == "major"


def test_upcoming_maintenance_changes_nothing(world, visitor):
    make_incident(world, "Later", status="scheduled", **WINDOW)
    publish(world)
    assert status_of(visitor)["indicator"] == "none"
