"""The fields Statuspage's v1 documents for incidents, their updates and pages (issue 13,
item 10): served, accepted on create and update, and the ones with behaviour behave."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.jobs import maintenance, reminders
from chalicelib.notify import fanout, queues
from chalicelib.store.outbox import OutboxEvent

START = datetime(2032, 5, 1, 12, 0, tzinfo=UTC)
END = START + timedelta(hours=1)
AUTO_FLAGS = (
    "auto_transition_to_maintenance_state",
    "auto_transition_to_operational_state",
    "auto_transition_deliver_notifications_at_start",
    "auto_transition_deliver_notifications_at_end",
)


@pytest.fixture
def frozen(freeze_clock):
    freeze_clock(START - timedelta(hours=3))
    return freeze_clock


def incidents_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/incidents{suffix}"


def create(world, **incident):
    answer = world.api.post(incidents_path(world), {"incident": incident})
    assert answer.status == 201, answer.text
    return answer.json


def events_of(incident, kind):
    return [
        event
        for event in OutboxEvent.scan()
        if event.kind == kind and event.payload["incident_id"] == incident["id"]
    ]


def test_documented_incident_and_update_fields_are_served(world):
    incident = create(world, name="Errors", body="Looking", wants_twitter_update=True)
    for flag in AUTO_FLAGS:
        assert incident[flag] is True  # the automatic steps' effects are on unless turned off
    assert incident["reminder_intervals"] is None  # Statuspage's default, [3, 6, 12, 24]
    assert incident["incident_impacts"] == []
    assert incident["postmortem_notified_twitter"] is False
    update = incident["incident_updates"][0]
    assert update["wants_twitter_update"] is True and update["wants_social_update"] is True
    assert update["tweet_id"] is None
    assert update["custom_tweet"] is None
    assert update["twitter_updated_at"] is None
    read = world.api.get(incidents_path(world, f"/{incident['id']}.json")).json
    assert read["reminder_intervals"] is None and read["incident_impacts"] == []


def test_page_serves_twitter_username_and_logo(world):
    for path in (f"/v1/pages/{world.page_id}", f"/v1/pages/{world.page_id}.json"):
        page = world.api.get(path).json
        assert "twitter_username" in page and "twitter_logo" in page
        assert page["twitter_username"] == page["social_username"]
        assert page["twitter_logo"] == page["social_logo"]


@pytest.mark.parametrize("form", [False, True])
def test_the_new_fields_are_accepted_on_create_and_update(world, form):
    answer = world.api.post(
        incidents_path(world),
        {
            "incident": {
                "name": "Upgrade",
                "status": "scheduled",
                "scheduled_for": "2099-01-01T02:00:00Z",
                "scheduled_until": "2099-01-01T03:00:00Z",
                "auto_transition_to_maintenance_state": False,
                "auto_transition_deliver_notifications_at_start": False,
                "reminder_intervals": "[1, 5, 7, 10]",
            }
        },
        form=form,
    )
    assert answer.status == 201, answer.text
    created = answer.json
    assert created["auto_transition_to_maintenance_state"] is False
    assert created["auto_transition_deliver_notifications_at_start"] is False
    assert created["auto_transition_to_operational_state"] is True
    assert created["reminder_intervals"] == "[1, 5, 7, 10]"
    changed = world.api.patch(
        incidents_path(world, f"/{created['id']}"),
        {
            "incident": {
                "auto_transition_to_operational_state": False,
                "auto_transition_deliver_notifications_at_end": False,
                "reminder_intervals": "4",
            }
        },
        form=form,
    ).json
    assert changed["auto_transition_to_maintenance_state"] is False
    assert changed["auto_transition_to_operational_state"] is False
    assert changed["auto_transition_deliver_notifications_at_end"] is False
    assert changed["reminder_intervals"] == "4"
    cleared = world.api.patch(
        incidents_path(world, f"/{created['id']}"), {"incident": {"reminder_intervals": ""}}
    ).json
    assert cleared["reminder_intervals"] is None


@pytest.mark.parametrize("intervals", ["[3, 2]", "[0, 5]", "[25]", "30", "soon", "[1.5]"])
def test_malformed_reminder_intervals_are_422(world, intervals):
    answer = world.api.post(
        incidents_path(world), {"incident": {"name": "x", "reminder_intervals": intervals}}
    )
    assert answer.status == 422
    assert answer.json["error"] == "Unprocessable entity"
    assert "reminder_intervals" in answer.json["errors"]


def test_auto_transition_flags_decide_components_and_notifications(world, frozen):
    component = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "DB"}}
    ).json
    incident = create(
        world,
        name="DB upgrade",
        status="scheduled",
        scheduled_for=START.isoformat(),
        scheduled_until=END.isoformat(),
        component_ids=[component["id"]],
        scheduled_auto_in_progress=True,
        scheduled_auto_completed=True,
        auto_transition_to_maintenance_state=False,
        auto_transition_deliver_notifications_at_start=False,
    )
    component_path = f"/v1/pages/{world.page_id}/components/{component['id']}"
    announced = len(events_of(incident, "incident_update"))

    maintenance.run(frozen(START + timedelta(seconds=5)))
    started = world.api.get(incidents_path(world, f"/{incident['id']}")).json
    assert started["status"] == "in_progress"
    assert started["incident_updates"][0]["deliver_notifications"] is False
    assert world.api.get(component_path).json["status"] == "operational"
    assert len(events_of(incident, "incident_update")) == announced  # the start is silent

    world.api.patch(component_path, {"component": {"status": "under_maintenance"}})
    world.api.patch(
        incidents_path(world, f"/{incident['id']}"),
        {"incident": {"auto_transition_to_operational_state": False}},
    )
    maintenance.run(frozen(END + timedelta(seconds=5)))
    done = world.api.get(incidents_path(world, f"/{incident['id']}")).json
    assert done["status"] == "completed"
    assert world.api.get(component_path).json["status"] == "under_maintenance"
    assert len(events_of(incident, "incident_update")) == announced + 1  # the end is announced


def test_an_open_incident_reminds_the_team_at_its_intervals(world, frozen, monkeypatch):
    incident = create(world, name="Checkout errors", reminder_intervals="[1, 2]")

    reminders.run(frozen(START - timedelta(hours=2, minutes=1)))  # 59 minutes on
    assert events_of(incident, "incident_reminder") == []
    reminders.run(frozen(START - timedelta(hours=1, minutes=59)))
    reminders.run(frozen(START - timedelta(hours=1, minutes=58)))  # an overlapping tick
    assert [e.payload["hours"] for e in events_of(incident, "incident_reminder")] == [1]

    sent = []
    monkeypatch.setattr(queues, "send_batch", lambda queue, messages: sent.extend(messages))
    assert fanout.fan_out(events_of(incident, "incident_reminder")[0].id) == 1
    (message,) = sent
    assert [r["email"] for r in message["recipients"]] == ["owner@example.com"]
    assert "Checkout errors" in message["content"]["subject"]
    assert "no update for 1 hours" in message["content"]["text"]

    # An update starts the count again: the next reminder is an hour after it.
    moment = frozen(START - timedelta(hours=1, minutes=30))
    world.api.patch(
        incidents_path(world, f"/{incident['id']}"),
        {"incident": {"status": "identified", "body": "Found it"}},
    )
    reminders.run(frozen(moment + timedelta(minutes=59)))
    assert len(events_of(incident, "incident_reminder")) == 1
    reminders.run(frozen(moment + timedelta(minutes=61)))
    assert len(events_of(incident, "incident_reminder")) == 2

    world.api.patch(
        incidents_path(world, f"/{incident['id']}"), {"incident": {"status": "resolved"}}
    )
    reminders.run(frozen(moment + timedelta(hours=30)))
    assert len(events_of(incident, "incident_reminder")) == 2


def test_every_n_hours_and_none(world, frozen):
    every = create(world, name="Every four", reminder_intervals="4")
    never = create(world, name="Never", reminder_intervals="[]")
    for hours in range(1, 26):
        reminders.run(frozen(START - timedelta(hours=3) + timedelta(hours=hours, minutes=1)))
    assert [e.payload["hours"] for e in events_of(every, "incident_reminder")] == [
        4,
        8,
        12,
        16,
        20,
        24,
    ]
    assert events_of(never, "incident_reminder") == []
