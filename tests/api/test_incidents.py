"""Incidents through HTTP: SPEC 3.2's rows, both path styles, both encodings."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock


def incidents_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/incidents{suffix}"


def create(world, incident, *, archived=False, form=False):
    path = incidents_path(world, ".json" if archived else "")
    return world.api.post(path, {"incident": incident}, form=form)


def window(start_in=timedelta(hours=2), length=timedelta(hours=1)):
    start = datetime.now(UTC).replace(microsecond=0) + start_in
    return start.isoformat(), (start + length).isoformat()


@pytest.mark.parametrize("archived", [False, True])
@pytest.mark.parametrize("form", [False, True])
def test_realtime_incident_defaults_to_investigating(world, archived, form):
    answer = create(world, {"name": "API down", "body": "Looking"}, archived=archived, form=form)
    assert answer.status == 201, answer.text
    incident = answer.json
    assert incident["status"] == "investigating"
    assert incident["impact"] == "none"
    assert incident["components"] == []
    assert [update["body"] for update in incident["incident_updates"]] == ["Looking"]
    assert incident["incident_updates"][0]["status"] == "investigating"
    assert incident["shortlink"].endswith(incident["id"])
    assert incident["created_at"].endswith("Z")


@pytest.mark.parametrize("status", ["investigating", "identified", "monitoring", "resolved"])
def test_realtime_incident_takes_each_realtime_status(world, status):
    answer = create(world, {"name": "x", "status": status})
    assert answer.status == 201
    assert answer.json["status"] == status
    assert (answer.json["monitoring_at"] is not None) == (status == "monitoring")
    assert (answer.json["resolved_at"] is not None) == (status == "resolved")


@pytest.mark.parametrize("status", ["scheduled", "in_progress", "verifying", "completed"])
def test_scheduled_incident_takes_each_scheduled_status(world, status):
    start, end = window()
    answer = create(
        world, {"name": "Upgrade", "status": status, "scheduled_for": start, "scheduled_until": end}
    )
    assert answer.status == 201, answer.text
    assert answer.json["status"] == status
    assert answer.json["scheduled_for"].startswith(start[:19])


def test_deprecated_message_alias_is_the_body(world):
    answer = create(world, {"name": "x", "message": "old clients"})
    assert answer.json["incident_updates"][0]["body"] == "old clients"


@pytest.mark.parametrize(
    "incident, field",
    [
        ({"name": "x", "status": "sleeping"}, "status"),
        ({"name": "x", "status": "in_progress"}, "scheduled_for"),
        ({"status": "investigating"}, "name"),
        ({"name": "x", "metadata": {"jira": "ABC-1"}}, "metadata"),
        ({"name": "x", "impact_override": "catastrophic"}, "impact_override"),
        (
            {
                "name": "x",
                "status": "scheduled",
                "scheduled_for": "2030-01-02T00:00:00Z",
                "scheduled_until": "2030-01-01T00:00:00Z",
            },
            "scheduled_until",
        ),
        ({"name": "x", "scheduled_for": "soon", "scheduled_until": "later"}, "scheduled_for"),
    ],
)
def test_invalid_incidents_are_422_naming_the_field(world, incident, field):
    answer = create(world, incident)
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"]


def test_realtime_status_on_a_scheduled_incident_is_422(world):
    start, end = window()
    answer = create(
        world,
        {"name": "x", "status": "investigating", "scheduled_for": start, "scheduled_until": end},
    )
    assert answer.status == 422
    assert "status" in answer.json["errors"]


def test_metadata_of_objects_is_kept(world):
    answer = create(world, {"name": "x", "metadata": {"jira": {"issue": "ABC-1"}}})
    assert answer.json["metadata"] == {"jira": {"issue": "ABC-1"}}


def test_impact_override(world):
    answer = create(world, {"name": "x", "impact_override": "major"})
    assert (answer.json["impact"], answer.json["impact_override"]) == ("major", "major")


def test_update_with_status_appends_an_update_newest_first(world):
    incident = create(world, {"name": "x", "body": "first"}).json
    path = incidents_path(world, f"/{incident['id']}")
    answer = world.api.patch(path, {"incident": {"status": "monitoring", "body": "fixed?"}})
    assert answer.status == 200, answer.text
    assert answer.json["status"] == "monitoring"
    assert answer.json["monitoring_at"] is not None
    assert [u["body"] for u in answer.json["incident_updates"]] == ["fixed?", "first"]
    resolved = world.api.put(path + ".json", {"incident": {"status": "resolved"}}, form=True)
    assert resolved.json["resolved_at"] is not None
    assert len(resolved.json["incident_updates"]) == 3


def test_plain_field_edits_append_nothing(world):
    incident = create(world, {"name": "x"}).json
    path = incidents_path(world, f"/{incident['id']}")
    answer = world.api.patch(path, {"incident": {"name": "renamed", "impact_override": "minor"}})
    assert answer.json["name"] == "renamed"
    assert len(answer.json["incident_updates"]) == 1


def test_update_enforces_the_kinds_statuses(world):
    incident = create(world, {"name": "x"}).json
    answer = world.api.patch(
        incidents_path(world, f"/{incident['id']}"), {"incident": {"status": "completed"}}
    )
    assert answer.status == 422
    assert "status" in answer.json["errors"]


def test_get_and_delete_an_incident(world):
    incident = create(world, {"name": "x"}).json
    path = incidents_path(world, f"/{incident['id']}")
    assert world.api.get(path).json["id"] == incident["id"]
    assert world.api.get(path + ".json").status == 200
    deleted = world.api.delete(path)
    assert deleted.status == 200
    assert deleted.json["id"] == incident["id"]
    assert world.api.get(path).status == 404


def test_lists(world):
    start, end = window()
    realtime = create(world, {"name": "outage"}).json
    resolved = create(world, {"name": "old", "status": "resolved"}).json
    upcoming = create(
        world, {"name": "m1", "status": "scheduled", "scheduled_for": start, "scheduled_until": end}
    ).json
    active = create(
        world,
        {"name": "m2", "status": "in_progress", "scheduled_for": start, "scheduled_until": end},
    ).json

    def ids(suffix):
        answer = world.api.get(incidents_path(world, suffix))
        assert answer.status == 200, answer.text
        return [incident["id"] for incident in answer.json]

    assert ids("") == [active["id"], upcoming["id"], resolved["id"], realtime["id"]]
    assert ids(".json") == ids("")
    assert ids("/unresolved.json") == ids("/unresolved") == [realtime["id"]]
    assert ids("/scheduled.json") == [active["id"], upcoming["id"]]
    assert ids("/upcoming") == [upcoming["id"]]
    assert ids("/active_maintenance") == [active["id"]]
    assert ids("?per_page=1&page=2") == [upcoming["id"]]


def test_search_matches_names_and_update_bodies(world):
    create(world, {"name": "Database trouble", "body": "replica lag"})
    create(world, {"name": "CDN", "body": "edge errors"})
    assert [i["name"] for i in world.api.get(incidents_path(world, ".json?q=database")).json] == [
        "Database trouble"
    ]
    assert [i["name"] for i in world.api.get(incidents_path(world, "?q=EDGE")).json] == ["CDN"]


def test_edit_an_incident_update(world):
    incident = create(world, {"name": "x", "body": "typo"}).json
    update_id = incident["incident_updates"][0]["id"]
    path = incidents_path(world, f"/{incident['id']}/incident_updates/{update_id}")
    answer = world.api.patch(
        path, {"incident_update": {"body": "fixed", "wants_social_update": True}}
    )
    assert answer.status == 200, answer.text
    assert answer.json["body"] == "fixed"
    got = world.api.get(incidents_path(world, f"/{incident['id']}")).json
    assert got["incident_updates"][0]["body"] == "fixed"


def test_another_organizations_incident_is_404(make_world):
    mine, theirs = make_world(), make_world()
    incident = create(theirs, {"name": "x"}).json
    assert mine.api.get(f"/v1/pages/{theirs.page_id}/incidents/{incident['id']}").status == 404
    assert mine.api.get(f"/v1/pages/{mine.page_id}/incidents/{incident['id']}").status == 404


def test_reading_an_incident_is_one_query_however_many_updates(world, dynamodb_calls):
    incident = create(world, {"name": "x"}).json
    path = incidents_path(world, f"/{incident['id']}")
    for number in range(15):
        world.api.patch(path, {"incident": {"body": f"update {number}"}})
    before = dynamodb_calls.summary()
    answer = world.api.get(path)
    after = dynamodb_calls.summary()
    assert len(answer.json["incident_updates"]) == 16
    assert after["Query"] - before["Query"] == 1


def test_incident_create_writes_an_outbox_event_unless_told_not_to(world):
    from chalicelib.store.outbox import OutboxEvent

    def events_for(incident_id):
        return [e for e in OutboxEvent.scan() if e.payload.get("incident_id") == incident_id]

    told = create(world, {"name": "x"}).json
    silent = create(world, {"name": "y", "deliver_notifications": False}).json
    assert len(events_for(told["id"])) == 1
    assert events_for(silent["id"]) == []


def test_backfilled_incident_keeps_its_date(world):
    answer = create(
        world,
        {
            "name": "old",
            "status": "resolved",
            "backfilled": True,
            "backfill_date": "2024-03-01T10:00:00Z",
        },
    )
    assert answer.json["created_at"].startswith("2024-03-01")


def test_templates_fill_a_new_incident(world):
    template = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {
            "template": {
                "name": "DB",
                "title": "Database degraded",
                "body": "We are looking",
                "update_status": "identified",
            }
        },
    )
    assert template.status == 201, template.text
    listed = world.api.get(f"/v1/pages/{world.page_id}/incident_templates").json
    assert [t["id"] for t in listed] == [template.json["id"]]
    answer = create(world, {"template_id": template.json["id"]})
    assert answer.status == 201, answer.text
    assert answer.json["name"] == "Database degraded"
    assert answer.json["status"] == "identified"
    assert answer.json["incident_updates"][0]["body"] == "We are looking"


def test_what_a_new_incident_gives_wins_over_its_template_even_null(world):
    template = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {"template": {"name": "DB", "title": "Database degraded", "body": "We are looking"}},
    )
    answer = create(world, {"template_id": template.json["id"], "name": "Mine", "body": None})
    assert answer.status == 201, answer.text
    assert answer.json["name"] == "Mine"
    assert answer.json["incident_updates"][0]["body"] == ""


def test_clock_controls_timestamps(world):
    try:
        clock.freeze(datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC))
        answer = create(world, {"name": "x"})
    finally:
        clock.freeze(None)
    assert answer.json["created_at"] == "2031-05-06T07:08:09.000Z"


@pytest.fixture
def one_request_at_a_time(monkeypatch):
    """moto's in-process backend is not thread-safe; a real server answers each request
    atomically, so requests are made one at a time (the clients still interleave)."""
    import threading

    import botocore.client

    lock = threading.Lock()
    make_call = botocore.client.BaseClient._make_api_call

    def atomic_call(self, operation, params):
        with lock:
            return make_call(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", atomic_call)


def test_concurrent_appends_all_land(world, one_request_at_a_time):
    """8 clients appending 10 updates each to one incident at once: every append lands and
    none is refused (appends write only what they change, never on a version)."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.domain import incidents

    incident = create(world, {"name": "x", "body": "first"}).json

    def append(client: int) -> int:
        errors = 0
        for number in range(10):
            status = ("identified", "monitoring")[number % 2]
            try:
                incidents.update_incident(
                    world.page_id,
                    incident["id"],
                    incidents.IncidentInput(status=status, body=f"client {client} update {number}"),
                )
            except Exception:  # noqa: BLE001 (counted: the test wants none)
                errors += 1
        return errors

    with ThreadPoolExecutor(max_workers=8) as pool:
        failures = sum(pool.map(append, range(8)))
    stored = world.api.get(incidents_path(world, f"/{incident['id']}")).json
    assert failures == 0
    assert len(stored["incident_updates"]) == 81  # the first one and the 80 appended


def test_concurrent_appends_naming_components_keep_every_component(world, one_request_at_a_time):
    """8 clients each appending updates that name a component of their own, at once: the
    incident ends up affecting all 8 (the list grows by union, never by last writer)."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.domain import incidents

    component_ids = [
        world.api.post(
            f"/v1/pages/{world.page_id}/components", {"component": {"name": f"Part {n}"}}
        ).json["id"]
        for n in range(8)
    ]
    incident = create(world, {"name": "x", "body": "first"}).json

    def append(client: int) -> None:
        for number in range(3):
            incidents.update_incident(
                world.page_id,
                incident["id"],
                incidents.IncidentInput(
                    body=f"client {client} update {number}",
                    components={component_ids[client]: "degraded_performance"},
                ),
            )

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(append, range(8)))
    stored = world.api.get(incidents_path(world, f"/{incident['id']}")).json
    assert sorted(component["id"] for component in stored["components"]) == sorted(component_ids)
    assert len(stored["incident_updates"]) == 25


def test_component_in_both_component_ids_and_components_is_stored_once(world):
    component = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "REST API"}}
    ).json
    answer = create(
        world,
        {
            "name": "Errors",
            "component_ids": [component["id"]],
            "components": {component["id"]: "partial_outage"},
        },
    )
    assert answer.status == 201, answer.text
    assert [shown["name"] for shown in answer.json["components"]] == ["REST API"]
    assert answer.json["components"][0]["status"] == "partial_outage"
    read = world.api.get(incidents_path(world, f"/{answer.json['id']}")).json
    assert [shown["id"] for shown in read["components"]] == [component["id"]]
    page = world.api.get(f"/s/{world.page_id}").text
    assert "This incident affects: REST API</p>" in page
