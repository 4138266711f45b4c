"""The status API v2 documents: Statuspage's shapes, from one snapshot."""

import pytest

from chalicelib.schemas.public import (
    ComponentsDocument,
    IncidentsDocument,
    PublicComponent,
    ScheduledMaintenancesDocument,
    StatusDocument,
    SummaryDocument,
)
from tests.public.conftest import (
    MAINTENANCE_WINDOW,
    make_component,
    make_group,
    make_incident,
    publish,
)


@pytest.fixture
def busy_page(world):
    """A group of two components, a lone one, an open incident, a resolved one, and
    maintenances upcoming, in progress and completed."""
    api, db = make_component(world, "API"), make_component(world, "Database")
    web = make_component(world, "Website")
    group = make_group(world, "Core", [api["id"], db["id"]])
    open_incident = make_incident(
        world, "API down", body="Looking into it", components={api["id"]: "major_outage"}
    )
    resolved = make_incident(world, "Old blip", status="resolved")
    upcoming = make_incident(world, "Upgrade", status="scheduled", **MAINTENANCE_WINDOW)
    active = make_incident(world, "Migration", status="in_progress", **MAINTENANCE_WINDOW)
    completed = make_incident(world, "Cleanup", status="completed", **MAINTENANCE_WINDOW)
    publish(world)
    return {
        "components": (api, db, web, group),
        "open": open_incident,
        "resolved": resolved,
        "upcoming": upcoming,
        "active": active,
        "completed": completed,
    }


def v2(visitor, document: str):
    answer = visitor.get(f"/api/v2/{document}")
    assert answer.status == 200, answer.text
    assert answer.headers["Content-Type"] == "application/json"
    return answer.json


def test_summary_has_statuspage_shape_and_contents(visitor, world, busy_page):
    summary = v2(visitor, "summary.json")
    SummaryDocument.model_validate(summary)
    assert set(summary) == {"page", "status", "components", "incidents", "scheduled_maintenances"}
    assert set(summary["page"]) == {"id", "name", "url", "time_zone", "updated_at"}
    assert summary["page"]["id"] == world.page_id
    assert summary["page"]["name"] == "Acme"
    assert summary["status"] == {"indicator": "critical", "description": "Major System Outage"}
    assert [incident["name"] for incident in summary["incidents"]] == ["API down"]
    assert {m["name"] for m in summary["scheduled_maintenances"]} == {"Upgrade", "Migration"}


def test_summary_components_carry_group_membership(visitor, busy_page):
    api, db, web, group = busy_page["components"]
    components = {c["id"]: c for c in v2(visitor, "summary.json")["components"]}
    for component in components.values():
        PublicComponent.model_validate(component)
        assert {"id", "name", "status", "position", "group_id", "group"} <= set(component)
        assert "automation_email" not in component
    assert components[group["id"]]["group"] is True
    assert set(components[group["id"]]["components"]) == {api["id"], db["id"]}
    assert components[api["id"]]["group_id"] == group["id"]
    assert components[api["id"]]["status"] == "major_outage"
    assert components[web["id"]]["group_id"] is None
    assert "components" not in components[web["id"]]


def test_incidents_carry_public_fields_only(visitor, busy_page):
    incident = v2(visitor, "incidents/unresolved.json")["incidents"][0]
    assert incident["shortlink"].endswith(f"/incidents/{incident['id']}")
    assert incident["started_at"] == incident["created_at"]
    assert incident["incident_updates"][0]["body"] == "Looking into it"
    assert incident["components"][0]["name"] == "API"
    for private in ("metadata", "postmortem_body", "scheduled_remind_prior"):
        assert private not in incident


def test_status_document(visitor, busy_page):
    status = v2(visitor, "status.json")
    StatusDocument.model_validate(status)
    assert set(status) == {"page", "status"}


def test_components_document(visitor, busy_page):
    components = v2(visitor, "components.json")
    ComponentsDocument.model_validate(components)
    assert len(components["components"]) == 4


def test_incident_lists(visitor, busy_page):
    every = v2(visitor, "incidents.json")
    IncidentsDocument.model_validate(every)
    assert [i["name"] for i in every["incidents"]] == ["Old blip", "API down"]
    unresolved = v2(visitor, "incidents/unresolved.json")
    IncidentsDocument.model_validate(unresolved)
    assert [i["name"] for i in unresolved["incidents"]] == ["API down"]


@pytest.mark.parametrize(
    ("document", "names"),
    [
        ("scheduled-maintenances.json", {"Upgrade", "Migration", "Cleanup"}),
        ("scheduled-maintenances/upcoming.json", {"Upgrade"}),
        ("scheduled-maintenances/active.json", {"Migration"}),
    ],
)
def test_maintenance_lists(visitor, busy_page, document, names):
    listed = v2(visitor, document)
    ScheduledMaintenancesDocument.model_validate(listed)
    assert {m["name"] for m in listed["scheduled_maintenances"]} == names
    for maintenance in listed["scheduled_maintenances"]:
        assert maintenance["scheduled_for"] == "2099-01-01T00:00:00.000Z"


def test_v2_answers_other_sites(visitor, busy_page):
    assert visitor.get("/api/v2/status.json").headers["Access-Control-Allow-Origin"] == "*"


def test_page_is_found_by_subdomain_too(visitor, world, busy_page):
    subdomain = world.api.get(f"/v1/pages/{world.page_id}").json["subdomain"]
    by_subdomain = visitor.api.get(f"/s/{subdomain}/api/v2/status.json")
    assert by_subdomain.status == 200
    assert by_subdomain.json["page"]["id"] == world.page_id


def test_unknown_page_is_404(visitor):
    answer = visitor.api.get("/s/no-such-page/api/v2/summary.json")
    assert answer.status == 404
    assert answer.json == {"error": "The requested resource could not be found"}
