"""The console's incident and component screens, over the app's own routes: each form does
what the API's write does, under the API's role checks."""

from tests.public.conftest import make_component


def _incident_id(location: str) -> str:
    return location.rsplit("/", 1)[-1]


def test_statuses_change_from_the_page_overview(console, make_user, world):
    api, db = make_component(world, "API"), make_component(world, "Database")
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}")
    answer = console.post(
        f"/manage/pages/{world.page_id}/components",
        {f"status[{api['id']}]": "partial_outage", f"status[{db['id']}]": "operational"},
    )
    assert answer.status == 303
    shown = console.get(answer.headers["location"])
    assert "1 component status changed" in shown.text
    statuses = {
        c["id"]: c["status"] for c in world.api.get(f"/v1/pages/{world.page_id}/components").json
    }
    assert statuses == {api["id"]: "partial_outage", db["id"]: "operational"}


def test_an_incident_is_opened_updated_and_resolved(console, make_user, world):
    api, db = make_component(world, "API"), make_component(world, "Database")
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/incidents/new")
    opened = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[name]": "Checkout <b>fails</b>",
            "incident[status]": "investigating",
            "incident[body]": "We are looking into it.",
            f"incident[components][{api['id']}]": "major_outage",
            f"incident[components][{db['id']}]": "degraded_performance",
            "incident[deliver_notifications]": "true",
        },
    )
    assert opened.status == 303
    incident_id = _incident_id(opened.headers["location"])
    screen = console.get(opened.headers["location"])
    assert "Checkout &lt;b&gt;fails&lt;/b&gt;" in screen.text  # what a user wrote is escaped
    console.post(
        opened.headers["location"],
        {"incident[status]": "identified", "incident[body]": "A bad deploy; rolling back."},
    )
    console.get(opened.headers["location"])
    resolved = console.post(
        opened.headers["location"],
        {
            "incident[status]": "resolved",
            "incident[body]": "Fixed.",
            f"incident[components][{api['id']}]": "operational",
            f"incident[components][{db['id']}]": "operational",
        },
    )
    assert resolved.status == 303
    incident = world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident_id}").json
    assert [u["status"] for u in incident["incident_updates"]] == [
        "resolved",
        "identified",
        "investigating",
    ]
    assert {c["id"] for c in incident["components"]} == {api["id"], db["id"]}
    assert incident["resolved_at"] is not None
    statuses = {
        c["id"]: c["status"] for c in world.api.get(f"/v1/pages/{world.page_id}/components").json
    }
    assert set(statuses.values()) == {"operational"}


def test_an_incident_from_a_template_takes_its_text(console, make_user, world):
    api = make_component(world, "API")
    template = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {
            "template": {
                "name": "API down",
                "title": "API unavailable",
                "body": "We know.",
                "component_ids": [api["id"]],
            }
        },
    ).json
    console.sign_in(make_user())
    form = console.get(f"/manage/pages/{world.page_id}/incidents/new?template_id={template['id']}")
    assert 'value="API unavailable"' in form.text
    opened = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[template_id]": template["id"],
            f"incident[components][{api['id']}]": "major_outage",
        },
    )
    incident = world.api.get(
        f"/v1/pages/{world.page_id}/incidents/{_incident_id(opened.headers['location'])}"
    ).json
    assert incident["name"] == "API unavailable"
    assert incident["incident_updates"][0]["body"] == "We know."


def test_a_maintenance_manager_schedules_but_may_not_open_an_incident(console, make_user, world):
    api = make_component(world, "API")
    console.sign_in(make_user({"maintenance_manager": True}))
    overview = console.get(f"/manage/pages/{world.page_id}")
    assert "Schedule a maintenance" in overview.text and "Open an incident" not in overview.text
    assert console.get(f"/manage/pages/{world.page_id}/incidents/new").status == 403
    console.get(f"/manage/pages/{world.page_id}/maintenances/new")
    scheduled = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[name]": "Database upgrade",
            "incident[status]": "scheduled",
            "incident[scheduled_for]": "2031-01-10T02:00",
            "incident[scheduled_until]": "2031-01-10T04:00",
            "incident[component_ids][]": api["id"],
            "incident[scheduled_remind_prior]": "true",
            "incident[scheduled_auto_in_progress]": "true",
            "incident[scheduled_auto_completed]": "true",
            "incident[auto_transition_deliver_notifications_at_end]": "false",
        },
    )
    assert scheduled.status == 303
    maintenance = world.api.get(
        f"/v1/pages/{world.page_id}/incidents/{_incident_id(scheduled.headers['location'])}"
    ).json
    assert maintenance["scheduled_for"] == "2031-01-10T02:00:00.000Z" or maintenance[
        "scheduled_for"
    ].startswith("2031-01-10T02:00")
    assert maintenance["scheduled_remind_prior"] and maintenance["scheduled_auto_completed"]
    assert maintenance["auto_transition_deliver_notifications_at_end"] is False
    console.get(f"/manage/pages/{world.page_id}")
    refused = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {"incident[name]": "Outage", "incident[status]": "investigating"},
    )
    assert refused.status == 403
    listed = world.api.get(f"/v1/pages/{world.page_id}/incidents").json
    assert [incident["name"] for incident in listed] == ["Database upgrade"]


def test_a_user_without_the_page_sees_it_as_missing(console, make_world, make_user):
    other = make_world("Other")
    console.sign_in(make_user())
    assert console.get(f"/manage/pages/{other.page_id}").status == 404


def test_an_invalid_form_says_the_problem_beside_the_field(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/incidents/new")
    answer = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {"incident[name]": "", "incident[status]": "investigating"},
    )
    assert answer.status == 422
    assert '<p class="problem" id="name-problem">The name cannot be empty</p>' in answer.text
    assert "<strong>name</strong>" not in answer.text
