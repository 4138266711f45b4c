"""Components and groups in the console: created, edited, moved and deleted through the
API's own rules, the order checked where readers see it (the API's list, the public page)."""

import re

import pytest


@pytest.fixture
def screens(world):
    return f"/manage/pages/{world.page_id}"


def _order(world) -> list[str]:
    return [c["name"] for c in world.api.get(f"/v1/pages/{world.page_id}/components").json]


def _ids(world) -> dict[str, str]:
    return {c["name"]: c["id"] for c in world.api.get(f"/v1/pages/{world.page_id}/components").json}


def _add(console, screens, name: str, **extra) -> None:
    console.get(f"{screens}/components")
    answer = console.post(f"{screens}/components/new", {"component[name]": name, **extra})
    assert answer.status == 303, answer.text


def test_components_are_created_edited_and_deleted(console, make_user, world, screens):
    console.sign_in(make_user())
    _add(console, screens, "API <script>")
    _add(console, screens, "Website", **{"component[showcase]": "false"})
    listed = console.get(f"{screens}/components").text
    assert "API &lt;script&gt;" in listed and "API <script>" not in listed
    ids = _ids(world)
    assert (
        world.api.get(f"/v1/pages/{world.page_id}/components/{ids['Website']}").json["showcase"]
        is False
    )

    console.get(f"{screens}/components/{ids['Website']}")
    answer = console.post(
        f"{screens}/components/{ids['Website']}",
        {
            "component[name]": "Web site",
            "component[description]": "The shop",
            "component[start_date]": "2024-01-31",
            "component[only_show_if_degraded]": "true",
        },
    )
    assert answer.status == 303
    shown = world.api.get(f"/v1/pages/{world.page_id}/components/{ids['Website']}").json
    assert (shown["name"], shown["description"], shown["start_date"]) == (
        "Web site",
        "The shop",
        "2024-01-31",
    )
    assert shown["only_show_if_degraded"] is True

    assert console.post(f"{screens}/components/{ids['Website']}/delete", {}).status == 303
    assert _order(world) == ["API <script>"]


def test_moves_reorder_the_page_and_groups_move_with_their_members(
    console, make_user, world, screens
):
    console.sign_in(make_user())
    for name in ("Alpha", "Beta", "Gamma"):
        _add(console, screens, name)
    ids = _ids(world)
    console.get(f"{screens}/components")
    moved = console.post(f"{screens}/components/{ids['Gamma']}/move", {"direction": "up"})
    assert moved.status == 303 and moved.headers["location"].endswith(f"#entry-{ids['Gamma']}")
    assert _order(world) == ["Alpha", "Gamma", "Beta"]

    answer = console.post(
        f"{screens}/groups/new",
        [
            ("component_group[name]", "Backend"),
            ("component_group[components][]", ""),
            ("component_group[components][]", ids["Beta"]),
            ("component_group[components][]", ids["Gamma"]),
        ],
    )
    assert answer.status == 303, answer.text
    group_id = _ids(world)["Backend"]
    console.post(f"{screens}/components/{group_id}/move", {"direction": "up"})
    console.post(f"{screens}/components/{group_id}/move", {"direction": "up"})  # first already
    console.post(f"{screens}/components/{ids['Beta']}/move", {"direction": "up"})
    public = console.get(f"/s/{world.page_id}").text
    names = re.findall(r"Backend|Alpha|Beta|Gamma", public)
    assert names.index("Backend") < names.index("Alpha")
    assert names.index("Beta") < names.index("Gamma")

    console.get(f"{screens}/groups/{group_id}")
    renamed = console.post(
        f"{screens}/groups/{group_id}",
        [
            ("component_group[name]", "Back end"),
            ("component_group[components][]", ""),
            ("component_group[components][]", ids["Beta"]),
        ],
    )
    assert renamed.status == 303
    group = world.api.get(f"/v1/pages/{world.page_id}/component-groups/{group_id}").json
    assert (group["name"], group["components"]) == ("Back end", [ids["Beta"]])

    emptied = console.post(
        f"{screens}/groups/{group_id}",
        [("component_group[name]", "Back end"), ("component_group[components][]", "")],
    )
    assert emptied.status == 422 and "a group cannot be empty" in emptied.text

    assert console.post(f"{screens}/components/{group_id}/delete", {}).status == 303
    assert "Back end" not in _order(world) and "Beta" in _order(world)


def test_bad_component_input_is_shown_as_a_form_problem(console, make_user, world, screens):
    console.sign_in(make_user())
    console.get(f"{screens}/components")
    blank = console.post(f"{screens}/components/new", {"component[name]": " "})
    assert blank.status == 422 and "Please check the form" in blank.text
    bad_date = console.post(
        f"{screens}/components/new", {"component[name]": "X", "component[start_date]": "soon"}
    )
    assert bad_date.status == 422
    assert console.post(f"{screens}/components/nope/move", {"direction": "up"}).status == 404
    _add(console, screens, "Only")
    only = _ids(world)["Only"]
    for direction in ({"direction": "sideways"}, {"direction[up]": "1"}):
        assert console.post(f"{screens}/components/{only}/move", direction).status == 422


def test_components_need_page_configuration_and_a_csrf_token(console, make_user, world, screens):
    _add_as_owner = make_user()
    console.sign_in(_add_as_owner)
    _add(console, screens, "API")
    component_id = _ids(world)["API"]
    refused = console.post(f"{screens}/components/new", {"component[name]": "X"}, csrf=False)
    assert refused.status == 403

    other = type(console)(console.client)
    other.sign_in(make_user({"incident_manager": True}))
    assert other.get(f"{screens}/components").status == 403
    assert other.post(f"{screens}/components/new", {"component[name]": "X"}).status == 403
    moved = other.post(f"{screens}/components/{component_id}/move", {"direction": "down"})
    assert moved.status == 403
    assert other.post(f"{screens}/components/{component_id}/delete", {}).status == 403
    assert _order(world) == ["API"]


def test_a_refused_component_is_shown_again_in_its_form_as_typed(console, make_user, world):
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}/components"
    console.get(screens)
    typed = {"component[name]": "", "component[description]": "Kept <b>words</b>"}
    refused = console.post(f"{screens}/new", typed)
    assert refused.status == 422 and "<h1>Components</h1>" in refused.text
    assert 'id="component-name-problem">The name ' in refused.text
    assert ">Kept &lt;b&gt;words&lt;/b&gt;</textarea>" in refused.text
