"""Component pickers by group (issue 50, item 15): the incident, maintenance and subscriber
forms list the components under their groups' headings, each group with a "whole group"
choice; without the forms' script, that choice still stands for all of the group's members."""

import re

from chalicelib.domain import subscribers
from tests.public.conftest import make_component, make_group


def _page_with_groups(world) -> dict:
    """Two groups of two and a component in none, in page order: Website, Core, Edge."""
    made = {name: make_component(world, name) for name in ("Website", "API", "Database")}
    made.update({name: make_component(world, name) for name in ("CDN", "DNS")})
    made["Core"] = make_group(world, "Core", [made["API"]["id"], made["Database"]["id"]])
    made["Edge"] = make_group(world, "Edge", [made["CDN"]["id"], made["DNS"]["id"]])
    return {name: component["id"] for name, component in made.items()}


def _incident(world, incident_id: str) -> dict:
    return world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident_id}").json


def _legends(text: str) -> list[str]:
    return re.findall(r'<fieldset class="group-choice" data-group-choice>\n<legend>([^<]+)', text)


def test_the_incident_form_lists_components_under_their_groups(console, make_user, world):
    ids = _page_with_groups(world)
    console.sign_in(make_user())
    form = console.get(f"/manage/pages/{world.page_id}/incidents/new").text
    headings = re.findall(r'<label for="group-(\w+)">([^<]+) <span class="hint">', form)
    assert headings == [(ids["Core"], "Core"), (ids["Edge"], "Edge")]
    assert f'name="group_statuses[{ids["Core"]}]" data-whole-group' in form
    rows = re.findall(r'<label for="component-(\w+)">', form)
    assert rows == [ids[name] for name in ("Website", "API", "Database", "CDN", "DNS")]


def test_a_group_given_a_status_gives_it_to_each_member_left_unset(console, make_user, world):
    ids = _page_with_groups(world)
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/incidents/new")
    opened = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[name]": "Core is down",
            "incident[status]": "investigating",
            "incident[body]": "Looking.",
            f"group_statuses[{ids['Core']}]": "major_outage",
            f"group_statuses[{ids['Edge']}]": "",
            f"incident[components][{ids['Database']}]": "degraded_performance",
            f"incident[components][{ids['Website']}]": "",
        },
    )
    assert opened.status == 303, opened.text
    incident = _incident(world, opened.headers["location"].rsplit("/", 1)[-1])
    statuses = {component["name"]: component["status"] for component in incident["components"]}
    # The member given its own status keeps it; the Edge group, left unset, is not touched.
    assert statuses == {"API": "major_outage", "Database": "degraded_performance"}


def test_a_maintenance_on_a_whole_group_names_each_member(console, make_user, world):
    ids = _page_with_groups(world)
    console.sign_in(make_user())
    form = console.get(f"/manage/pages/{world.page_id}/maintenances/new").text
    assert _legends(form) == ["Core", "Edge"]
    assert f'name="whole_groups[]" value="{ids["Edge"]}" data-whole-group' in form
    made = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        [
            ("incident[name]", "Edge move"),
            ("incident[status]", "scheduled"),
            ("incident[scheduled_for]", "2099-01-01T02:00"),
            ("incident[scheduled_until]", "2099-01-01T04:00"),
            ("incident[body]", "Moving the edge."),
            ("incident[component_ids][]", ids["Website"]),
            ("whole_groups[]", ids["Edge"]),
        ],
    )
    assert made.status == 303, made.text
    incident = _incident(world, made.headers["location"].rsplit("/", 1)[-1])
    assert [c["name"] for c in incident["components"]] == ["Website", "CDN", "DNS"]


def test_a_subscriber_of_a_whole_group_follows_each_member(console, make_user, world):
    ids = _page_with_groups(world)
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/subscribers"
    form = console.get(f"{screen}/new").text
    assert _legends(form)[:2] == ["Core", "Edge"]
    added = console.post(
        screen,
        [
            ("form", "email"),
            ("subscriber[email]", "jane@example.com"),
            ("scope", "components"),
            ("whole_groups[]", ids["Core"]),
        ],
    )
    assert added.status == 303, added.text
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed")
    assert list(subscriber.component_ids) == [ids["API"], ids["Database"]]
    # Its screen shows the group chosen whole, and saving another group there is read alike.
    detail = console.get(f"{screen}/{subscriber.id}").text
    assert f'value="{ids["Core"]}" data-whole-group checked' in detail
    console.post(
        f"{screen}/{subscriber.id}/components",
        [("scope", "components"), ("whole_groups[]", ids["Edge"])],
    )
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed")
    assert list(subscriber.component_ids) == [ids["CDN"], ids["DNS"]]
