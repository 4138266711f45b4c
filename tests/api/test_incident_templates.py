"""Incident templates: only the page's own components, shown as component objects."""

from tests.public.conftest import make_component, make_group


def templates_path(world):
    return f"/v1/pages/{world.page_id}/incident_templates"


def make_template(world, **fields):
    body = {"template": {"name": "DB", "title": "Database degraded", "body": "x", **fields}}
    return world.api.post(templates_path(world), body)


def test_templates_refuse_another_organizations_components_and_groups(make_world):
    mine, theirs = make_world(), make_world()
    their_component = make_component(theirs, "Their API")
    their_group = make_group(theirs, "Their group", [their_component["id"]])

    answer = make_template(mine, component_ids=[their_component["id"]])
    assert answer.status == 422
    assert list(answer.json["errors"]) == ["component_ids"]
    answer = make_template(mine, group_id=their_group["id"])
    assert answer.status == 422
    assert list(answer.json["errors"]) == ["group_id"]
    assert mine.api.get(templates_path(mine)).json == []


def test_templates_take_the_pages_own_components_and_group(world):
    component = make_component(world, "API")
    group = make_group(world, "Backend", [component["id"]])
    answer = make_template(world, component_ids=[component["id"]], group_id=group["id"])
    assert answer.status == 201, answer.text
    assert make_template(world, group_id=component["id"]).status == 422  # not a group


def test_templates_show_their_components_as_component_objects(world):
    first = make_component(world, "API")
    second = make_component(world, "Web")
    created = make_template(world, component_ids=[second["id"], first["id"]])
    assert created.status == 201, created.text
    shown = created.json["components"]
    assert [c["id"] for c in shown] == [second["id"], first["id"]]
    assert shown[0]["name"] == "Web"
    assert {"id", "page_id", "name", "status", "position", "group", "group_id"} <= set(shown[0])
    listed = world.api.get(templates_path(world)).json
    assert listed[0]["components"] == shown
