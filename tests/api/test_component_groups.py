"""Component groups through HTTP (SPEC 2.8, 4.7): both spellings, both styles, both encodings."""

import pytest

NOT_FOUND = {"error": "The requested resource could not be found"}
GROUP_FIELDS = {
    "id",
    "page_id",
    "name",
    "description",
    "position",
    "components",
    "created_at",
    "updated_at",
}
# Every collection path a group is created and listed at.
GROUP_COLLECTIONS = ["component-groups", "component-groups.json", "components-groups.json"]
ARCHIVED_SPELLINGS = ["component-groups", "components-groups"]


def make_component(world, name="API"):
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    assert answer.status == 201, answer.text
    return answer.json


def groups_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/component-groups{suffix}"


def make_group(world, name, members, **fields):
    answer = world.api.post(
        groups_path(world),
        {"component_group": {"name": name, "components": [m["id"] for m in members], **fields}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def components_by_id(world):
    return {c["id"]: c for c in world.api.get(f"/v1/pages/{world.page_id}/components").json}


@pytest.mark.parametrize("collection", GROUP_COLLECTIONS)
@pytest.mark.parametrize("form", [False, True])
def test_create_group_in_every_spelling(world, collection, form):
    a, b = make_component(world, "A"), make_component(world, "B")
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/{collection}",
        {
            "component_group": {
                "name": "Backend",
                "description": "Servers",
                "components": [a["id"], b["id"]],
            }
        },
        form=form,
    )
    assert answer.status == 201, answer.text
    group = answer.json
    assert set(group) == GROUP_FIELDS
    assert (group["name"], group["description"], group["page_id"]) == (
        "Backend",
        "Servers",
        world.page_id,
    )
    assert sorted(group["components"]) == sorted([a["id"], b["id"]])
    assert group["position"] == 3
    for listing in ("component-groups", "component-groups.json", "components-groups.json"):
        listed = world.api.get(f"/v1/pages/{world.page_id}/{listing}").json
        assert listed == [group], listing
    components = components_by_id(world)
    assert components[group["id"]]["group"] is True
    assert components[a["id"]]["group_id"] == components[b["id"]]["group_id"] == group["id"]


def test_get_one_group_in_both_styles_and_spellings(world):
    group = make_group(world, "G", [make_component(world)])
    for path in (
        groups_path(world, f"/{group['id']}"),
        groups_path(world, f"/{group['id']}.json"),
        f"/v1/pages/{world.page_id}/components-groups/{group['id']}.json",
    ):
        answer = world.api.get(path)
        assert (answer.status, answer.json) == (200, group), path


def test_description_may_sit_beside_the_group_as_in_statuspages_reference(world):
    a = make_component(world)
    answer = world.api.post(
        groups_path(world),
        {"description": "Beside", "component_group": {"name": "G", "components": [a["id"]]}},
    )
    assert answer.status == 201, answer.text
    assert answer.json["description"] == "Beside"


def test_a_group_can_be_placed_first(world):
    make_component(world, "A")
    group = make_group(world, "G", [make_component(world, "B")], position=1)
    assert group["position"] == 1
    order = [c["name"] for c in world.api.get(f"/v1/pages/{world.page_id}/components").json]
    assert order == ["G", "A", "B"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"component_group": {"name": "G", "components": []}}, "components"),
        ({"component_group": {"name": "G", "components": ["nosuch"]}}, "components"),
        ({"component_group": {"name": "G"}}, "components"),
        ({"component_group": {"components": ["x"]}}, "name"),
        ({"component_group": {"name": " ", "components": ["x"]}}, "name"),
        ({}, "name"),
    ],
)
def test_invalid_groups_are_422_naming_the_field(world, body, field):
    answer = world.api.post(groups_path(world), body)
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"], answer.json
    assert world.api.get(groups_path(world)).json == []


def test_an_empty_form_list_is_an_empty_group(world):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components-groups.json",
        [("component_group[name]", "G"), ("component_group[components][]", "")],
        form=True,
    )
    assert answer.status == 422
    assert answer.json["errors"]["components"] == ["a group cannot be empty"]


def test_members_must_be_components_of_the_page(world, make_world):
    elsewhere = make_world()
    foreign = make_component(elsewhere)
    answer = world.api.post(
        groups_path(world), {"component_group": {"name": "G", "components": [foreign["id"]]}}
    )
    assert answer.status == 422 and "components" in answer.json["errors"]
    assert components_by_id(elsewhere)[foreign["id"]]["group_id"] is None


def test_groups_nest_one_level_only(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    group = make_group(world, "G", [a])
    nested = world.api.post(
        groups_path(world), {"component_group": {"name": "H", "components": [group["id"]]}}
    )
    assert nested.status == 422 and "components" in nested.json["errors"]
    # The refused group left nothing behind.
    assert [g["id"] for g in world.api.get(groups_path(world)).json] == [group["id"]]
    other = make_group(world, "H", [b])
    into_group = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{other['id']}",
        {"component": {"group_id": group["id"]}},
    )
    assert into_group.status == 422 and "group_id" in into_group.json["errors"]
    group_as_member = world.api.patch(
        groups_path(world, f"/{group['id']}"),
        {"component_group": {"components": [a["id"], other["id"]]}},
    )
    assert group_as_member.status == 422 and "components" in group_as_member.json["errors"]


@pytest.mark.parametrize("spelling", ARCHIVED_SPELLINGS)
@pytest.mark.parametrize("method", ["put", "patch"])
def test_update_group_in_archived_style_with_a_form(world, spelling, method):
    a, b, c = (make_component(world, name) for name in "ABC")
    group = make_group(world, "G", [a, b])
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
    assert components_by_id(world)[a["id"]]["group_id"] is None


@pytest.mark.parametrize("method", ["put", "patch"])
def test_update_group_in_current_style_with_json(world, method):
    a, b = make_component(world, "A"), make_component(world, "B")
    group = make_group(world, "G", [a])
    answer = getattr(world.api, method)(
        groups_path(world, f"/{group['id']}"),
        {"component_group": {"description": "Now described", "components": [a["id"], b["id"]]}},
    )
    assert answer.status == 200, answer.text
    assert (answer.json["name"], answer.json["description"]) == ("G", "Now described")
    assert sorted(answer.json["components"]) == sorted([a["id"], b["id"]])
    assert answer.json["updated_at"] >= group["updated_at"]
    renamed = world.api.patch(groups_path(world, f"/{group['id']}"), {"name": "Bare body"})
    assert renamed.json["name"] == "Bare body"
    assert sorted(renamed.json["components"]) == sorted([a["id"], b["id"]])


def test_an_update_cannot_empty_a_group(world):
    group = make_group(world, "G", [make_component(world)])
    answer = world.api.put(
        groups_path(world, f"/{group['id']}"), {"component_group": {"components": []}}
    )
    assert answer.status == 422 and "components" in answer.json["errors"]


def test_a_component_is_in_at_most_one_group(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    first = make_group(world, "First", [a, b])
    second = make_group(world, "Second", [b])
    assert second["components"] == [b["id"]]
    first_now = world.api.get(groups_path(world, f"/{first['id']}")).json
    assert first_now["components"] == [a["id"]]
    # Taking its last member deletes the first group.
    world.api.patch(
        groups_path(world, f"/{second['id']}"), {"component_group": {"components": [a["id"]]}}
    )
    assert world.api.get(groups_path(world, f"/{first['id']}")).status == 404
    components = components_by_id(world)
    assert components[a["id"]]["group_id"] == second["id"]
    assert components[b["id"]]["group_id"] is None


def test_current_style_delete_answers_the_deleted_group_and_orphans_its_members(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    group = make_group(world, "G", [a, b])
    answer = world.api.delete(groups_path(world, f"/{group['id']}"))
    assert answer.status == 200
    assert answer.json == {**group, "updated_at": answer.json["updated_at"]}
    components = components_by_id(world)
    assert [components[x["id"]]["group_id"] for x in (a, b)] == [None, None]
    assert [c["position"] for c in components.values()] == [1, 2]
    assert world.api.get(groups_path(world, f"/{group['id']}")).status == 404


@pytest.mark.parametrize("spelling", ARCHIVED_SPELLINGS)
def test_archived_group_delete_is_204(world, spelling):
    a = make_component(world, "A")
    group = make_group(world, "G", [a])
    answer = world.api.delete(f"/v1/pages/{world.page_id}/{spelling}/{group['id']}.json")
    assert (answer.status, answer.text) == (204, "")
    assert components_by_id(world)[a["id"]]["group_id"] is None


def test_deleting_the_last_child_deletes_the_group(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    group = make_group(world, "G", [a, b])
    world.api.delete(f"/v1/pages/{world.page_id}/components/{a['id']}")
    assert world.api.get(groups_path(world, f"/{group['id']}")).json["components"] == [b["id"]]
    world.api.delete(f"/v1/pages/{world.page_id}/components/{b['id']}.json")
    assert world.api.get(groups_path(world, f"/{group['id']}")).status == 404
    assert world.api.get(f"/v1/pages/{world.page_id}/components").json == []


def test_moving_the_last_child_away_deletes_the_old_group(world):
    a, b = make_component(world, "A"), make_component(world, "B")
    first, second = make_group(world, "G1", [a]), make_group(world, "G2", [b])
    moved = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{a['id']}", {"component": {"group_id": second["id"]}}
    )
    assert moved.json["group_id"] == second["id"]
    assert world.api.get(groups_path(world, f"/{first['id']}")).status == 404


def test_a_non_group_id_is_404_on_group_paths(world):
    a = make_component(world)
    make_group(world, "G", [a])
    assert world.api.get(groups_path(world, f"/{a['id']}")).json == NOT_FOUND
    assert world.api.delete(groups_path(world, f"/{a['id']}")).status == 404
    assert world.api.get(groups_path(world, "/nosuch.json")).status == 404


def test_another_organizations_group_is_404(make_world):
    mine, theirs = make_world(), make_world()
    group = make_group(theirs, "G", [make_component(theirs)])
    theirs_path = f"/v1/pages/{theirs.page_id}/component-groups"
    for answer in (
        mine.api.get(theirs_path),
        mine.api.get(f"/v1/pages/{theirs.page_id}/components-groups.json"),
        mine.api.get(f"{theirs_path}/{group['id']}"),
        mine.api.put(f"{theirs_path}/{group['id']}.json", {"component_group": {"name": "x"}}),
        mine.api.delete(f"{theirs_path}/{group['id']}"),
        mine.api.get(f"/v1/pages/{mine.page_id}/component-groups/{group['id']}"),
    ):
        assert (answer.status, answer.json) == (404, NOT_FOUND)
    assert theirs.api.get(f"{theirs_path}/{group['id']}").json == group


def test_listing_groups_costs_one_query(world, dynamodb_calls):
    make_group(world, "G", [make_component(world)])
    before = dynamodb_calls.summary()
    assert len(world.api.get(groups_path(world)).json) == 1
    assert (dynamodb_calls.summary() - before)["Query"] == 1


def test_racing_deletes_of_the_last_two_members_still_delete_the_group(world):
    from chalicelib.domain import components

    a, b = make_component(world, "A"), make_component(world, "B")
    group = make_group(world, "G", [a, b])
    attempts = []

    def delete_a(edit):
        attempts.append(edit.find(group["id"]).version)
        if len(attempts) == 1:
            components.delete_component(world.page_id, b["id"])
        return components.remove(edit, edit.find(a["id"]))

    components.edit_components(world.page_id, delete_a)
    assert len(attempts) == 2
    assert world.api.get(f"/v1/pages/{world.page_id}/components").json == []


def test_more_writes_than_one_transaction_holds_are_split(world, monkeypatch, dynamodb_calls):
    from chalicelib.domain import unit_of_work

    members = [make_component(world, f"C{n}") for n in range(5)]
    monkeypatch.setattr(unit_of_work, "MAX_TRANSACTION_ITEMS", 2)
    before = dynamodb_calls.summary()
    group = make_group(world, "Big", members)
    assert (dynamodb_calls.summary() - before)["TransactWriteItems"] >= 3
    assert sorted(group["components"]) == sorted(m["id"] for m in members)
    assert world.api.get(groups_path(world, f"/{group['id']}")).json == group


def test_the_openapi_document_lists_every_group_route():
    from chalicelib.schemas.openapi import document

    openapi = document()
    paths = openapi["paths"]
    assert set(paths["/v1/pages/{page_id}/component-groups"]) == {"get", "post"}
    assert set(paths["/v1/pages/{page_id}/component-groups/{id}"]) == {
        "get",
        "patch",
        "put",
        "delete",
    }
    assert set(paths["/v1/pages/{page_id}/components-groups.json"]) == {"get", "post"}
    assert set(paths["/v1/pages/{page_id}/components-groups/{id}"]) == {
        "get",
        "patch",
        "put",
        "delete",
    }
    schemas = openapi["components"]["schemas"]
    assert {"ComponentGroupCreate", "ComponentGroupUpdate", "ComponentGroupOut"} <= set(schemas)
    assert schemas["ComponentGroupOut"]["properties"]["components"]["type"] == "array"
