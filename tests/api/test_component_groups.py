"""Component groups through HTTP (SPEC 2.8, 4.7): both spellings, both styles, both encodings."""

import pytest


def make_component(world, name="API"):
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    assert answer.status == 201, answer.text
    return answer.json


GROUP_COLLECTIONS = ["component-groups", "component-groups.json", "components-groups.json"]


@pytest.mark.parametrize("collection", GROUP_COLLECTIONS)
@pytest.mark.parametrize("form", [False, True])
def test_create_group_in_every_spelling(world, collection, form):
    a, b = make_component(world, "A"), make_component(world, "B")
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/{collection}",
        {"component_group": {"name": "Backend", "components": [a["id"], b["id"]]}},
        form=form,
    )
    assert answer.status == 201, answer.text
    group = answer.json
    assert group["name"] == "Backend"
    assert sorted(group["components"]) == sorted([a["id"], b["id"]])
    listed = world.api.get(f"/v1/pages/{world.page_id}/{collection.replace('.json', '')}.json").json
    assert [g["id"] for g in listed] == [group["id"]]
    components = {c["id"]: c for c in world.api.get(f"/v1/pages/{world.page_id}/components").json}
    assert components[group["id"]]["group"] is True
    assert components[a["id"]]["group_id"] == group["id"]


def test_a_group_cannot_be_empty_or_hold_strangers(world):
    path = f"/v1/pages/{world.page_id}/component-groups"
    empty = world.api.post(path, {"component_group": {"name": "G", "components": []}})
    assert empty.status == 422 and "components" in empty.json["errors"]
    stranger = world.api.post(path, {"component_group": {"name": "G", "components": ["nosuch"]}})
    assert stranger.status == 422 and "components" in stranger.json["errors"]
    assert world.api.get(path).json == []


def test_groups_nest_one_level_only(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    path = f"/v1/pages/{world.page_id}/component-groups"
    group = world.api.post(path, {"component_group": {"name": "G", "components": [a["id"]]}}).json
    nested = world.api.post(path, {"component_group": {"name": "H", "components": [group["id"]]}})
    assert nested.status == 422
    other = world.api.post(path, {"component_group": {"name": "H", "components": [b["id"]]}}).json
    into_group = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{other['id']}",
        {"component": {"group_id": group["id"]}},
    )
    assert into_group.status == 422
    assert "group_id" in into_group.json["errors"]


@pytest.mark.parametrize("spelling", ["component-groups", "components-groups"])
@pytest.mark.parametrize("method", ["put", "patch"])
def test_update_group_members_in_archived_style(world, spelling, method):
    a, b, c = (make_component(world, name) for name in "ABC")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "G", "components": [a["id"], b["id"]]}},
    ).json
    answer = getattr(world.api, method)(
        f"/v1/pages/{world.page_id}/{spelling}/{group['id']}.json",
        [
            ("component_group[name]", "Renamed"),
            ("component_group[components][]", b["id"]),
            ("component_group[components][]", c["id"]),
        ],
        form=True,
    )
    assert answer.status == 200, answer.text
    assert answer.json["name"] == "Renamed"
    assert sorted(answer.json["components"]) == sorted([b["id"], c["id"]])
    components = {x["id"]: x for x in world.api.get(f"/v1/pages/{world.page_id}/components").json}
    assert components[a["id"]]["group_id"] is None


def test_deleting_a_group_orphans_its_children(world):
    a = make_component(world, "A")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "G", "components": [a["id"]]}},
    ).json
    answer = world.api.delete(f"/v1/pages/{world.page_id}/component-groups/{group['id']}")
    assert answer.status == 200
    assert answer.json["id"] == group["id"]
    assert world.api.get(f"/v1/pages/{world.page_id}/components/{a['id']}").json["group_id"] is None


@pytest.mark.parametrize("spelling", ["component-groups", "components-groups"])
def test_archived_group_delete_is_204(world, spelling):
    a = make_component(world, "A")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "G", "components": [a["id"]]}},
    ).json
    answer = world.api.delete(f"/v1/pages/{world.page_id}/{spelling}/{group['id']}.json")
    assert answer.status == 204
    assert answer.text == ""


def test_deleting_the_last_child_deletes_the_group(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "G", "components": [a["id"], b["id"]]}},
    ).json
    world.api.delete(f"/v1/pages/{world.page_id}/components/{a['id']}")
    assert world.api.get(f"/v1/pages/{world.page_id}/component-groups/{group['id']}").status == 200
    world.api.delete(f"/v1/pages/{world.page_id}/components/{b['id']}")
    assert world.api.get(f"/v1/pages/{world.page_id}/component-groups/{group['id']}").status == 404


def test_moving_the_last_child_away_deletes_the_old_group(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    path = f"/v1/pages/{world.page_id}/component-groups"
    first = world.api.post(path, {"component_group": {"name": "G1", "components": [a["id"]]}}).json
    second = world.api.post(path, {"component_group": {"name": "G2", "components": [b["id"]]}}).json
    moved = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{a['id']}", {"component": {"group_id": second["id"]}}
    )
    assert moved.json["group_id"] == second["id"]
    assert world.api.get(f"{path}/{first['id']}").status == 404


def test_another_organizations_group_is_404(make_world):
    mine, theirs = make_world(), make_world()
    a = make_component(theirs)
    group = theirs.api.post(
        f"/v1/pages/{theirs.page_id}/component-groups",
        {"component_group": {"name": "G", "components": [a["id"]]}},
    ).json
    assert mine.api.get(f"/v1/pages/{mine.page_id}/component-groups/{group['id']}").status == 404
    assert (
        mine.api.delete(f"/v1/pages/{theirs.page_id}/component-groups/{group['id']}").status == 404
    )
