"""Scheduled maintenances move themselves (issue 8), driven with a controlled clock."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock
from chalicelib.jobs import maintenance
from chalicelib.store.outbox import OutboxEvent

START = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)
END = START + timedelta(hours=1)


@pytest.fixture
def frozen(freeze_clock):
    freeze_clock(START - timedelta(hours=3))
    return freeze_clock


def make_maintenance(world, **flags):
    component = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "DB"}}
    ).json
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "DB upgrade",
                "status": "scheduled",
                "scheduled_for": START.isoformat(),
                "scheduled_until": END.isoformat(),
                "component_ids": [component["id"]],
                **flags,
            }
        },
    )
    assert answer.status == 201, answer.text
    return answer.json, component


def read(world, incident):
    return world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident['id']}").json


def component_status(world, component):
    return world.api.get(f"/v1/pages/{world.page_id}/components/{component['id']}").json["status"]


def reminders_for(incident):
    return [
        e
        for e in OutboxEvent.scan()
        if e.kind == "maintenance_reminder" and e.payload["incident_id"] == incident["id"]
    ]


def test_auto_in_progress_then_completed(world, frozen):
    incident, component = make_maintenance(
        world, scheduled_auto_in_progress=True, scheduled_auto_completed=True
    )
    maintenance.run(frozen(START - timedelta(minutes=1)))
    assert read(world, incident)["status"] == "scheduled"

    maintenance.run(frozen(START + timedelta(seconds=5)))
    started = read(world, incident)
    assert started["status"] == "in_progress"
    assert len(started["incident_updates"]) == 2
    assert component_status(world, component) == "under_maintenance"

    maintenance.run(frozen(END + timedelta(seconds=5)))
    done = read(world, incident)
    assert done["status"] == "completed"
    assert done["resolved_at"] is not None
    assert [u["status"] for u in done["incident_updates"]] == [
        "completed",
        "in_progress",
        "scheduled",
    ]
    assert component_status(world, component) == "operational"


def test_without_the_flags_nothing_moves(world, frozen):
    incident, _ = make_maintenance(world)
    maintenance.run(frozen(END + timedelta(minutes=5)))
    assert read(world, incident)["status"] == "scheduled"


def test_reminder_sent_once_an_hour_before(world, frozen):
    incident, _ = make_maintenance(world, scheduled_remind_prior=True)
    maintenance.run(frozen(START - timedelta(minutes=61)))
    assert reminders_for(incident) == []
    maintenance.run(frozen(START - timedelta(minutes=59)))
    maintenance.run(frozen(START - timedelta(minutes=58)))
    assert len(reminders_for(incident)) == 1
    assert read(world, incident)["scheduled_reminded_at"] is not None


def test_overlapping_ticks_move_once(world, frozen):
    incident, _ = make_maintenance(
        world, scheduled_auto_in_progress=True, scheduled_remind_prior=True
    )
    moment = frozen(START + timedelta(seconds=1))
    # Both ticks read the same due items before either writes.
    first_batch = maintenance.due_maintenances(moment)
    second_batch = maintenance.due_maintenances(moment)
    for record in first_batch:
        maintenance.advance(record, moment)
    for record in second_batch:
        try:
            maintenance.advance(record, moment)
        except Exception:  # noqa: BLE001 - the second tick may lose the race; it must not write
            pass
    got = read(world, incident)
    assert got["status"] == "in_progress"
    assert len(got["incident_updates"]) == 2
    assert len(reminders_for(incident)) == 1
    maintenance.run(moment)
    assert len(read(world, incident)["incident_updates"]) == 2


def test_a_window_edited_after_creation_moves_the_step(world, frozen):
    incident, _ = make_maintenance(world, scheduled_auto_in_progress=True)
    later = START + timedelta(hours=2)
    world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
        {
            "incident": {
                "scheduled_for": later.isoformat(),
                "scheduled_until": (later + timedelta(hours=1)).isoformat(),
            }
        },
    )
    maintenance.run(frozen(START + timedelta(minutes=1)))
    assert read(world, incident)["status"] == "scheduled"
    maintenance.run(frozen(later + timedelta(minutes=1)))
    assert read(world, incident)["status"] == "in_progress"


def test_a_cancelled_maintenance_is_left_alone(world, frozen):
    deleted, _ = make_maintenance(world, scheduled_auto_in_progress=True)
    completed, _ = make_maintenance(
        world, scheduled_auto_in_progress=True, scheduled_auto_completed=True
    )
    world.api.delete(f"/v1/pages/{world.page_id}/incidents/{deleted['id']}")
    world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{completed['id']}",
        {"incident": {"status": "completed"}},
    )
    assert maintenance.run(frozen(END + timedelta(minutes=1))) == 0
    assert read(world, completed)["status"] == "completed"
    assert len(read(world, completed)["incident_updates"]) == 2


def test_a_tick_reads_the_same_however_many_incidents_are_not_due(world, frozen, dynamodb_calls):
    from chalicelib import ids
    from chalicelib.store.incidents import IncidentRecord, incident_key

    def tick_calls():
        before = dynamodb_calls.count()
        maintenance.run(frozen(START - timedelta(hours=2)))
        return dynamodb_calls.count() - before

    def add_incidents(count):
        moment = clock.now()
        with IncidentRecord.batch_write() as batch:
            for _ in range(count):
                incident_id = ids.new_id()
                batch.save(
                    IncidentRecord(
                        world.page_id,
                        incident_key(incident_id),
                        kind="incident",
                        incident_id=incident_id,
                        id=incident_id,
                        name="old",
                        status="resolved",
                        created_at=moment,
                        updated_at=moment,
                    )
                )

    make_maintenance(world, scheduled_auto_in_progress=True)
    add_incidents(10)
    with_ten = tick_calls()
    add_incidents(4990)
    with_five_thousand = tick_calls()
    assert with_ten == with_five_thousand


def test_a_maintenance_whose_component_was_deleted_still_starts_and_completes(world, frozen):
    incident, component = make_maintenance(
        world, scheduled_auto_in_progress=True, scheduled_auto_completed=True
    )
    kept = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "Cache"}}
    ).json
    world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
        {"incident": {"component_ids": [kept["id"]]}},
    )
    assert world.api.delete(f"/v1/pages/{world.page_id}/components/{component['id']}").status == 204

    maintenance.run(frozen(START + timedelta(seconds=5)))
    assert read(world, incident)["status"] == "in_progress"
    assert component_status(world, kept) == "under_maintenance"
    maintenance.run(frozen(END + timedelta(seconds=5)))
    assert read(world, incident)["status"] == "completed"
    assert component_status(world, kept) == "operational"


def test_an_unexpected_failure_of_a_step_is_an_error_naming_the_incident(
    world, frozen, monkeypatch, caplog
):
    from chalicelib.domain import errors, incidents

    incident, _ = make_maintenance(world, scheduled_auto_in_progress=True)

    def broken(*args, **kwargs):
        raise errors.invalid("components", "something no step expects")

    monkeypatch.setattr(incidents, "update_incident", broken)
    with caplog.at_level("INFO", logger="chalicelib.jobs.maintenance"):
        maintenance.run(frozen(START + timedelta(seconds=5)))
    mine = [r for r in caplog.records if incident["id"] in r.getMessage()]
    assert [r.levelname for r in mine] == ["ERROR"]
    assert "changed under this tick" not in mine[0].getMessage()


def test_a_completed_maintenance_leaves_a_component_an_open_incident_holds(world, frozen):
    incident, component = make_maintenance(
        world, scheduled_auto_in_progress=True, scheduled_auto_completed=True
    )
    maintenance.run(frozen(START + timedelta(seconds=5)))
    outage = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "DB down", "components": {component["id"]: "major_outage"}}},
    )
    assert outage.status == 201, outage.text

    maintenance.run(frozen(END + timedelta(seconds=5)))
    assert read(world, incident)["status"] == "completed"
    assert component_status(world, component) == "major_outage"
