"""Page access users and groups through HTTP (SPEC 2.5, 2.6, 4.4, 4.5): both path styles,
both encodings, pagination, membership on both sides, grants of components and metrics."""

import pytest

from tests.api.test_components import make_component
from tests.api.test_metrics import make_metric
from tests.dynamodb_calls import recording

STYLES = ["", ".json"]


def users_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/page_access_users{suffix}"


def groups_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/page_access_groups{suffix}"


def make_user(world, form=False, style="", **fields):
    body = {"page_access_user": {"email": "viewer@example.com", **fields}}
    answer = world.api.post(users_path(world, style), body, form=form)
    assert answer.status == (200 if style else 201), answer.text
    return answer.json


def make_access_group(world, name="Customers", **fields):
    answer = world.api.post(groups_path(world), {"page_access_group": {"name": name, **fields}})
    assert answer.status == 201, answer.text
    return answer.json


def component_ids_of(world, user, style=""):
    answer = world.api.get(users_path(world, f"/{user['id']}/components{style}"))
    assert answer.status == 200, answer.text
    return [component["id"] for component in answer.json]


@pytest.mark.parametrize("form", [False, True])
@pytest.mark.parametrize("style", STYLES)
def test_create_get_update_a_user(world, form, style):
    login = "  email=a@b.c&uid=Ab12 "
    user = make_user(world, form=form, style=style, external_login=login)
    assert user["email"] == "viewer@example.com"
    assert user["external_login"] == login  # exactly as sent
    assert user["page_access_group_ids"] == [] and user["page_access_group_id"] is None
    assert set(user) == {
        "id",
        "page_id",
        "email",
        "external_login",
        "page_access_group_id",
        "page_access_group_ids",
        "created_at",
        "updated_at",
    }
    path = users_path(world, f"/{user['id']}{style}")
    assert world.api.get(path).json == user
    answer = world.api.patch(path, {"page_access_user": {"email": "other@example.com"}}, form=form)
    assert answer.status == 200, answer.text
    assert answer.json["email"] == "other@example.com"
    assert answer.json["external_login"] == login
    assert (
        world.api.put(path, {"page_access_user": {"external_login": "x"}}).json["external_login"]
        == "x"
    )


def test_create_needs_an_email_or_a_login_and_a_valid_email(world):
    empty = world.api.post(users_path(world), {"page_access_user": {}})
    assert empty.status == 422 and "email" in empty.json["errors"]
    bad = world.api.post(users_path(world), {"page_access_user": {"email": "nope"}})
    assert bad.status == 422 and "email" in bad.json["errors"]


def test_an_email_taken_on_the_page_is_a_conflict(world):
    make_user(world, email="dup@example.com")
    again = world.api.post(users_path(world), {"page_access_user": {"email": "DUP@example.com"}})
    assert again.status == 409
    assert again.json == {
        "error": "The request could not be processed due to a conflict in resource state"
    }


def test_an_email_freed_by_a_change_can_be_taken_again(world):
    user = make_user(world, email="first@example.com")
    world.api.patch(users_path(world, f"/{user['id']}"), {"email": "second@example.com"})
    assert make_user(world, email="first@example.com")["email"] == "first@example.com"


def test_delete_a_user_in_both_styles(world):
    first, second = make_user(world, email="a@example.com"), make_user(world, email="b@x.com")
    current = world.api.delete(users_path(world, f"/{first['id']}"))
    assert current.status == 200
    assert isinstance(current.json["message"], str)
    archived = world.api.delete(users_path(world, f"/{second['id']}.json"))
    assert archived.status == 200 and archived.json == second
    assert world.api.get(users_path(world, f"/{first['id']}")).status == 404
    assert world.api.get(users_path(world)).json == []
    # its email is free again
    make_user(world, email="a@example.com")


def test_list_users_paginates_always_and_filters_by_email(world):
    made = [make_user(world, email=f"u{n}@example.com") for n in range(5)]
    everyone = world.api.get(users_path(world)).json
    assert [user["id"] for user in everyone] == [user["id"] for user in made]
    second = world.api.get(users_path(world, "?page=2&per_page=2")).json
    assert [user["id"] for user in second] == [made[2]["id"], made[3]["id"]]
    assert world.api.get(users_path(world, ".json?page=3&per_page=2")).json == [made[4]]
    assert world.api.get(users_path(world, "?page=4&per_page=2")).json == []
    found = world.api.get(users_path(world, "?email=U3@example.com")).json
    assert [user["id"] for user in found] == [made[3]["id"]]
    assert world.api.get(users_path(world, "?per_page=101")).status == 200  # cut to 100
    assert world.api.get(users_path(world, "?page=0")).status == 400


def test_lists_read_at_most_what_the_page_asked_for(world):
    for n in range(4):
        make_user(world, email=f"u{n}@example.com")
    with recording() as calls:
        assert len(world.api.get(users_path(world, "?per_page=1&page=2")).json) == 1
    queried = [
        n
        for operation, n in zip(calls.operations, calls.items, strict=True)
        if operation == "Query"
    ]
    assert queried == [2]  # the first two users, not all four


def test_groups_crud_and_membership_on_both_sides(world):
    user = make_user(world)
    api = make_component(world, "API")
    group = make_access_group(
        world, page_access_user_ids=[user["id"]], component_ids=[api["id"]], external_identifier="x"
    )
    assert group["page_access_user_ids"] == [user["id"]]
    assert group["component_ids"] == [api["id"]]
    assert group["external_identifier"] == "x"
    assert group["metric_ids"] == []
    seen = world.api.get(users_path(world, f"/{user['id']}")).json
    assert seen["page_access_group_ids"] == [group["id"]]
    assert seen["page_access_group_id"] == group["id"]
    assert world.api.get(groups_path(world, f"/{group['id']}.json")).json == group
    # the user side moves the group side too
    other = make_access_group(world, "Partners")
    moved = world.api.patch(
        users_path(world, f"/{user['id']}"),
        {"page_access_user": {"page_access_group_ids": [other["id"]]}},
    )
    assert moved.json["page_access_group_ids"] == [other["id"]]
    assert world.api.get(groups_path(world, f"/{group['id']}")).json["page_access_user_ids"] == []
    assert world.api.get(groups_path(world, f"/{other['id']}")).json["page_access_user_ids"] == [
        user["id"]
    ]
    renamed = world.api.put(
        groups_path(world, f"/{other['id']}"), {"page_access_group": {"name": "P2"}}
    )
    assert renamed.json["name"] == "P2"
    deleted = world.api.delete(groups_path(world, f"/{other['id']}"))
    assert deleted.status == 200 and deleted.json["id"] == other["id"]
    assert world.api.get(users_path(world, f"/{user['id']}")).json["page_access_group_ids"] == []
    assert [g["id"] for g in world.api.get(groups_path(world)).json] == [group["id"]]


def test_group_lists_paginate(world):
    made = [make_access_group(world, f"G{n}")["id"] for n in range(3)]
    assert [g["id"] for g in world.api.get(groups_path(world, "?per_page=2&page=2")).json] == [
        made[2]
    ]
    assert [g["id"] for g in world.api.get(groups_path(world, ".json")).json] == made


def test_deleting_a_user_takes_it_out_of_its_groups(world):
    group = make_access_group(world)
    user = make_user(world, page_access_group_ids=[group["id"]])
    world.api.delete(users_path(world, f"/{user['id']}"))
    assert world.api.get(groups_path(world, f"/{group['id']}")).json["page_access_user_ids"] == []


def test_unknown_ids_are_422_naming_the_field(world):
    answer = world.api.post(
        users_path(world),
        {"page_access_user": {"email": "a@b.co", "page_access_group_ids": ["nope"]}},
    )
    assert answer.status == 422 and "page_access_group_ids" in answer.json["errors"]
    group = world.api.post(
        groups_path(world), {"page_access_group": {"name": "G", "component_ids": ["x"]}}
    )
    assert group.status == 422 and "component_ids" in group.json["errors"]
    unnamed = world.api.post(groups_path(world), {"page_access_group": {}})
    assert unnamed.status == 422 and "name" in unnamed.json["errors"]


@pytest.mark.parametrize("form", [False, True])
def test_user_components_replace_add_remove_current_style(world, form):
    user = make_user(world)
    a, b, c = (make_component(world, name) for name in "ABC")
    path = users_path(world, f"/{user['id']}/components")
    replaced = world.api.post(path, {"component_ids": [a["id"], b["id"]]}, form=form)
    assert replaced.status == 201 and replaced.json["id"] == user["id"]
    assert component_ids_of(world, user) == [a["id"], b["id"]]
    assert world.api.post(path, {"component_ids": [b["id"]]}, form=form).status == 201
    assert component_ids_of(world, user) == [b["id"]]
    for method in ("patch", "put"):
        added = getattr(world.api, method)(path, {"component_ids": [c["id"]]}, form=form)
        assert added.status == 200, added.text
    assert component_ids_of(world, user) == [b["id"], c["id"]]
    removed = world.api.delete(path, {"component_ids": [b["id"]]}, form=form)
    assert removed.status == 200 and removed.json["id"] == user["id"]
    assert component_ids_of(world, user) == [c["id"]]
    world.api.patch(path, {"component_ids": [a["id"]]})
    assert world.api.delete(path).status == 200  # none listed: all
    assert component_ids_of(world, user) == []


def test_user_components_archived_style(world):
    user = make_user(world)
    a, b = make_component(world, "A"), make_component(world, "B")
    path = users_path(world, f"/{user['id']}/components.json")
    replaced = world.api.post(path, {"component_ids": [a["id"]]}, form=True)
    assert replaced.status == 200 and replaced.json["id"] == user["id"]
    assert world.api.patch(path, {"component_ids": [b["id"]]}, form=True).status == 200
    assert component_ids_of(world, user, ".json") == [a["id"], b["id"]]
    one = users_path(world, f"/{user['id']}/components/{a['id']}.json")
    assert world.api.delete(one).json["id"] == user["id"]
    assert component_ids_of(world, user) == [b["id"]]
    world.api.patch(path, {"component_ids": [a["id"]]})
    # archived DELETE removes all, whatever is listed
    assert world.api.delete(path, {"component_ids": [a["id"]]}).status == 200
    assert component_ids_of(world, user) == []


def test_user_component_list_paginates(world):
    user = make_user(world)
    made = [make_component(world, f"C{n}")["id"] for n in range(3)]
    world.api.post(users_path(world, f"/{user['id']}/components"), {"component_ids": made})
    page = world.api.get(users_path(world, f"/{user['id']}/components?per_page=2&page=2")).json
    assert [component["id"] for component in page] == [made[2]]


def test_grants_name_only_the_pages_components(world, make_world):
    user = make_user(world)
    theirs = make_world("Theirs")
    foreign = make_component(theirs, "Foreign")
    answer = world.api.patch(
        users_path(world, f"/{user['id']}/components"), {"component_ids": [foreign["id"]]}
    )
    assert answer.status == 422 and "component_ids" in answer.json["errors"]
    missing = world.api.patch(users_path(world, f"/{user['id']}/components"), {})
    assert missing.status == 422 and "component_ids" in missing.json["errors"]


@pytest.mark.parametrize("style", STYLES)
def test_user_metrics_replace_add_remove(world, style):
    user = make_user(world)
    first = make_metric(world, name="Latency").json
    second = make_metric(world, name="Errors").json
    path = users_path(world, f"/{user['id']}/metrics{style}")
    replaced = world.api.post(path, {"metric_ids": [first["id"]]})
    assert replaced.status == (200 if style else 201), replaced.text
    assert world.api.put(path, {"metric_ids": [second["id"]]}).status == 200
    listed = world.api.get(path).json
    assert sorted(metric["id"] for metric in listed) == sorted([first["id"], second["id"]])
    one = users_path(world, f"/{user['id']}/metrics/{first['id']}{style}")
    assert world.api.delete(one).status == 200
    assert [metric["id"] for metric in world.api.get(path).json] == [second["id"]]
    assert world.api.delete(path).status == 200
    assert world.api.get(path).json == []
    bad = world.api.patch(path, {"metric_ids": ["nope"]})
    assert bad.status == 422 and "metric_ids" in bad.json["errors"]


def test_archived_user_create_takes_components_and_metrics(world):
    a = make_component(world, "A")
    metric = make_metric(world).json
    user = make_user(world, style=".json", component_ids=[a["id"]], metric_ids=[metric["id"]])
    assert component_ids_of(world, user) == [a["id"]]
    metrics = world.api.get(users_path(world, f"/{user['id']}/metrics")).json
    assert [m["id"] for m in metrics] == [metric["id"]]


def test_group_components_replace_add_remove(world):
    group = make_access_group(world)
    a, b = make_component(world, "A"), make_component(world, "B")
    path = groups_path(world, f"/{group['id']}/components")
    assert world.api.post(path, {"component_ids": [a["id"]]}).status == 201
    assert world.api.patch(path, {"component_ids": [b["id"]]}).json["component_ids"] == sorted(
        [a["id"], b["id"]]
    )
    listed = world.api.get(path + "?per_page=1").json
    assert [component["id"] for component in listed] == [a["id"]]
    one = groups_path(world, f"/{group['id']}/components/{a['id']}")
    assert world.api.delete(one).json["component_ids"] == [b["id"]]
    assert world.api.delete(path).json["component_ids"] == []
    archived = world.api.post(path + ".json", {"component_ids": [a["id"]]}, form=True)
    assert archived.status == 200 and archived.json["component_ids"] == [a["id"]]


@pytest.mark.parametrize("style", STYLES)
def test_component_side_users_and_groups(world, style):
    component = make_component(world, "API")
    first, second = make_user(world, email="a@x.com"), make_user(world, email="b@x.com")
    group = make_access_group(world)
    base = f"/v1/pages/{world.page_id}/components/{component['id']}"
    added = world.api.post(
        f"{base}/page_access_users{style}",
        {"page_access_user_ids": [first["id"], second["id"]]},
        form=True,
    )
    assert added.status == (200 if style else 201), added.text
    assert added.json["id"] == component["id"]
    assert component_ids_of(world, first) == [component["id"]]
    assert component_ids_of(world, second) == [component["id"]]
    groups = world.api.post(
        f"{base}/page_access_groups{style}", {"page_access_group_ids": [group["id"]]}
    )
    assert groups.status == (200 if style else 201)
    assert world.api.get(groups_path(world, f"/{group['id']}")).json["component_ids"] == [
        component["id"]
    ]
    assert world.api.delete(f"{base}/page_access_users{style}").json["id"] == component["id"]
    assert component_ids_of(world, first) == [] and component_ids_of(world, second) == []
    assert world.api.delete(f"{base}/page_access_groups{style}").status == 200
    assert world.api.get(groups_path(world, f"/{group['id']}")).json["component_ids"] == []
    unknown = world.api.post(f"{base}/page_access_users", {"page_access_user_ids": ["nope"]})
    assert unknown.status == 422 and "page_access_user_ids" in unknown.json["errors"]
    gone = world.api.post(
        f"/v1/pages/{world.page_id}/components/nope/page_access_users",
        {"page_access_user_ids": [first["id"]]},
    )
    assert gone.status == 404


def test_a_users_view_follows_its_own_grants_and_its_groups(world):
    from chalicelib.store.page_access import PageAccessUser

    a, b, c = (make_component(world, name) for name in "ABC")
    group = make_access_group(world, component_ids=[b["id"]])
    user = make_user(world, component_ids=[a["id"]], page_access_group_ids=[group["id"]])

    def view():
        stored = PageAccessUser.get(world.page_id, user["id"], consistent_read=True)
        return set(stored.visible_component_ids or ())

    assert view() == {a["id"], b["id"]}
    world.api.patch(groups_path(world, f"/{group['id']}/components"), {"component_ids": [c["id"]]})
    assert view() == {a["id"], b["id"], c["id"]}
    world.api.delete(groups_path(world, f"/{group['id']}"))
    assert view() == {a["id"]}
