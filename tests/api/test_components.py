"""Components through HTTP (SPEC 2.7, 3.1, 4.6): both path styles, both encodings."""

from datetime import UTC, datetime, timedelta

import pytest

NOT_FOUND = {"error": "The requested resource could not be found"}


def components_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/components{suffix}"


def make_component(world, name="API", **fields):
    answer = world.api.post(components_path(world), {"component": {"name": name, **fields}})
    assert answer.status == 201, answer.text
    return answer.json


def make_group(world, name, members):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": name, "components": [m["id"] for m in members]}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def listed(world):
    return world.api.get(components_path(world)).json


def history_of(component_id):
    from chalicelib.store.components import ComponentStatusDay

    days = ComponentStatusDay.query(component_id)
    return [(old, new) for day in days for _, old, new in day.changes]


@pytest.fixture
def frozen_clock():
    from chalicelib import clock

    moments = iter(datetime(2024, 5, 1, 12, tzinfo=UTC) + timedelta(minutes=n) for n in range(99))

    def tick():
        moment = next(moments)
        clock.freeze(moment)
        return clock.iso(moment)

    yield tick
    clock.freeze(None)


@pytest.mark.parametrize("archived", [False, True])
@pytest.mark.parametrize("form", [False, True])
def test_create_component_starts_operational(world, archived, form):
    make_component(world, "Existing")
    answer = world.api.post(
        components_path(world, ".json" if archived else ""),
        {
            "component": {
                "name": "Web",
                "description": "Site",
                "showcase": False,
                "only_show_if_degraded": True,
                "start_date": "2024-01-31",
            }
        },
        form=form,
    )
    assert answer.status == 201, answer.text
    component = answer.json
    assert set(component) == {
        "id",
        "page_id",
        "group_id",
        "created_at",
        "updated_at",
        "group",
        "name",
        "description",
        "position",
        "status",
        "showcase",
        "only_show_if_degraded",
        "automation_email",
        "start_date",
        "third_party",
    }
    assert component["status"] == "operational"
    assert (component["name"], component["description"]) == ("Web", "Site")
    assert component["showcase"] is False and component["only_show_if_degraded"] is True
    assert component["start_date"] == "2024-01-31"
    assert component["group"] is False and component["group_id"] is None
    assert component["page_id"] == world.page_id
    assert component["position"] == 2
    assert component["automation_email"].startswith(f"component+{component['id']}@")
    assert history_of(component["id"]) == []


def test_archived_form_booleans_take_t_and_f(world):
    answer = world.api.post(
        components_path(world, ".json"),
        [("component[name]", "Web"), ("component[showcase]", "f")],
        form=True,
    )
    assert answer.status == 201, answer.text
    assert answer.json["showcase"] is False


def test_a_status_given_at_creation_is_recorded_as_a_change(world):
    component = make_component(world, status="under_maintenance")
    assert component["status"] == "under_maintenance"
    assert history_of(component["id"]) == [("operational", "under_maintenance")]


def test_list_is_in_page_order_and_costs_one_query(world, dynamodb_calls):
    first, second = make_component(world, "A"), make_component(world, "B")
    before = dynamodb_calls.summary()
    answer = world.api.get(components_path(world))
    spent = dynamodb_calls.summary() - before
    assert [c["id"] for c in answer.json] == [first["id"], second["id"]]
    assert [c["position"] for c in answer.json] == [1, 2]
    assert spent["Query"] == 1 and spent["Scan"] == 0
    assert world.api.get(components_path(world, ".json")).json == answer.json


def test_get_one_in_both_styles(world, dynamodb_calls):
    component = make_component(world)
    before = dynamodb_calls.summary()
    current = world.api.get(components_path(world, f"/{component['id']}"))
    assert (dynamodb_calls.summary() - before)["Query"] == 1
    archived = world.api.get(components_path(world, f"/{component['id']}.json"))
    assert current.status == archived.status == 200
    assert current.json == archived.json == component


def test_list_is_paginated(world):
    names = [make_component(world, name)["name"] for name in "ABC"]
    page_two = world.api.get(components_path(world, "?page=2&per_page=2")).json
    assert [c["name"] for c in page_two] == names[2:]
    assert [c["position"] for c in page_two] == [3]


@pytest.mark.parametrize("method", ["patch", "put"])
@pytest.mark.parametrize("suffix", ["", ".json"])
@pytest.mark.parametrize("form", [False, True])
def test_update_status_records_the_change(world, frozen_clock, method, suffix, form):
    created_at = frozen_clock()
    component = make_component(world)
    updated_at = frozen_clock()
    answer = getattr(world.api, method)(
        components_path(world, f"/{component['id']}{suffix}"),
        {"component": {"status": "major_outage", "name": "Renamed"}},
        form=form,
    )
    assert answer.status == 200, answer.text
    assert (answer.json["status"], answer.json["name"]) == ("major_outage", "Renamed")
    assert answer.json["created_at"] == created_at
    assert answer.json["updated_at"] == updated_at
    assert history_of(component["id"]) == [("operational", "major_outage")]


def test_every_change_moves_updated_at_but_only_status_changes_are_history(world, frozen_clock):
    frozen_clock()
    component = make_component(world)
    path = components_path(world, f"/{component['id']}")
    for change in (
        {"description": "Now described"},
        {"showcase": False},
        {"only_show_if_degraded": True},
        {"start_date": "2023-12-01"},
        {"automation_email": "ops@example.com"},
        {"status": "operational"},
    ):
        moment = frozen_clock()
        answer = world.api.patch(path, {"component": change})
        assert answer.status == 200, answer.text
        assert answer.json["updated_at"] == moment
        field, value = next(iter(change.items()))
        assert answer.json[field] == value
    assert history_of(component["id"]) == []


def test_a_status_change_emits_a_component_update_event(world, monkeypatch):
    from chalicelib.notify import outbox

    published = []
    monkeypatch.setattr(outbox, "publish", published.extend)
    component = make_component(world)
    world.api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"status": "partial_outage"}}
    )
    world.api.patch(components_path(world, f"/{component['id']}"), {"component": {"name": "x"}})
    assert [(e.kind, e.page_id) for e in published] == [("component_update", world.page_id)]
    assert published[0].payload["component_id"] == component["id"]
    assert (published[0].payload["old_status"], published[0].payload["new_status"]) == (
        "operational",
        "partial_outage",
    )


def test_a_status_change_shows_on_the_public_page_at_once(world):
    component = make_component(world)
    visitor = world.api.as_key(None)
    summary = visitor.get(f"/s/{world.page_id}/api/v2/summary.json").json
    assert summary["status"]["indicator"] == "none"
    world.api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"status": "major_outage"}}
    )
    summary = visitor.get(f"/s/{world.page_id}/api/v2/summary.json").json
    assert summary["components"][0]["status"] == "major_outage"
    assert summary["status"]["indicator"] == "critical"


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"name": "x", "status": "on_fire"}, "status"),
        ({"description": "no name"}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x", "start_date": "31/01/2024"}, "start_date"),
        ({"name": "x", "start_date": "1706659200"}, "start_date"),
        ({"name": "x", "start_date": "2024-01-31T00:00:00Z"}, "start_date"),
        ({"name": "x", "start_date": "2024-02-30"}, "start_date"),
        ({"name": "x", "group_id": "nosuchgroup"}, "group_id"),
        ({"name": "x", "automation_email": "not-an-address"}, "automation_email"),
        ({"name": "x", "position": 0}, "position"),
        ({"name": "x", "showcase": "maybe"}, "showcase"),
    ],
)
@pytest.mark.parametrize("form", [False, True])
def test_invalid_components_are_422_naming_the_field(world, fields, field, form):
    answer = world.api.post(components_path(world), {"component": fields}, form=form)
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert field in answer.json["errors"], answer.json
    assert listed(world) == []


def test_an_empty_create_body_is_a_422_naming_name(world):
    answer = world.api.post(components_path(world))
    assert answer.status == 422
    assert "name" in answer.json["errors"]


def test_an_invalid_status_update_is_a_422_and_changes_nothing(world):
    component = make_component(world)
    answer = world.api.patch(
        components_path(world, f"/{component['id']}.json"),
        [("component[status]", "broken"), ("component[name]", "Renamed")],
        form=True,
    )
    assert answer.status == 422
    assert list(answer.json["errors"]) == ["status"]
    assert world.api.get(components_path(world, f"/{component['id']}")).json == component


def test_empty_status_leaves_an_ordinary_component_as_it_is(world):
    component = make_component(world, status="degraded_performance")
    answer = world.api.patch(
        components_path(world, f"/{component['id']}.json"),
        [("component[status]", "")],
        form=True,
    )
    assert answer.status == 200
    assert answer.json["status"] == "degraded_performance"


def test_empty_status_restores_a_third_party_components_official_status(world):
    from chalicelib.store.components import Component

    component = make_component(world, status="major_outage")
    Component.get(world.page_id, component["id"]).update(
        actions=[Component.third_party.set(True), Component.official_status.set("operational")]
    )
    answer = world.api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"status": ""}}
    )
    assert answer.json["status"] == "operational"
    assert history_of(component["id"])[-1] == ("major_outage", "operational")


def test_positions_stay_dense_on_insert_move_and_delete(world):
    a, b, c = (make_component(world, name) for name in "ABC")
    assert make_component(world, "First", position=1)["position"] == 1
    assert [x["name"] for x in listed(world)] == ["First", "A", "B", "C"]

    moved = world.api.patch(components_path(world, f"/{c['id']}"), {"component": {"position": 2}})
    assert moved.json["position"] == 2
    assert [x["name"] for x in listed(world)] == ["First", "C", "A", "B"]
    world.api.patch(
        components_path(world, f"/{a['id']}.json"), [("component[position]", "99")], form=True
    )
    assert [x["name"] for x in listed(world)] == ["First", "C", "B", "A"]

    assert world.api.delete(components_path(world, f"/{c['id']}")).status == 204
    assert [(x["name"], x["position"]) for x in listed(world)] == [
        ("First", 1),
        ("B", 2),
        ("A", 3),
    ]


def test_a_move_into_a_gap_too_small_renumbers_the_page(world):
    from chalicelib.store.components import Component

    a, b, c = (make_component(world, name) for name in "ABC")
    # Stored positions only order the page; these two leave no number between them.
    Component.get(world.page_id, b["id"]).update(
        actions=[Component.position.set(1.0000000000000002)]
    )
    answer = world.api.patch(components_path(world, f"/{c['id']}"), {"component": {"position": 2}})
    assert answer.json["position"] == 2
    assert [(x["name"], x["position"]) for x in listed(world)] == [("A", 1), ("C", 2), ("B", 3)]
    stored = {r.id: r.position for r in Component.query(world.page_id)}
    assert stored == {a["id"]: 1, c["id"]: 2, b["id"]: 3}


def test_delete_in_both_styles(world):
    first, second = make_component(world), make_component(world)
    assert world.api.delete(components_path(world, f"/{first['id']}")).status == 204
    answer = world.api.delete(components_path(world, f"/{second['id']}.json"))
    assert (answer.status, answer.text) == (204, "")
    assert world.api.get(components_path(world, f"/{first['id']}")).status == 404
    assert world.api.delete(components_path(world, f"/{first['id']}")).status == 404
    assert listed(world) == []


def test_a_component_joins_and_leaves_a_group_by_group_id(world):
    a, b, c = (make_component(world, name) for name in "ABC")
    group = make_group(world, "G", [a])
    created = make_component(world, "D", group_id=group["id"])
    assert created["group_id"] == group["id"]
    joined = world.api.patch(
        components_path(world, f"/{b['id']}.json"),
        [("component[group_id]", group["id"])],
        form=True,
    )
    assert joined.json["group_id"] == group["id"]
    members = world.api.get(f"/v1/pages/{world.page_id}/component-groups/{group['id']}").json
    assert sorted(members["components"]) == sorted([a["id"], b["id"], created["id"]])
    left = world.api.patch(components_path(world, f"/{b['id']}"), {"component": {"group_id": ""}})
    assert left.json["group_id"] is None
    assert c["group_id"] is None


def test_group_id_must_name_a_group_of_the_same_page(world, make_world):
    plain, other = make_component(world, "Plain"), make_component(world, "Other")
    answer = world.api.patch(
        components_path(world, f"/{other['id']}"), {"component": {"group_id": plain["id"]}}
    )
    assert answer.status == 422 and "group_id" in answer.json["errors"]
    elsewhere = make_world()
    foreign_group = make_group(elsewhere, "Theirs", [make_component(elsewhere)])
    answer = world.api.patch(
        components_path(world, f"/{other['id']}"),
        {"component": {"group_id": foreign_group["id"]}},
    )
    assert answer.status == 422 and "group_id" in answer.json["errors"]


def test_a_groups_status_is_not_set_directly(world):
    group = make_group(world, "G", [make_component(world)])
    answer = world.api.patch(
        components_path(world, f"/{group['id']}"), {"component": {"status": "major_outage"}}
    )
    assert answer.status == 422 and "status" in answer.json["errors"]


def test_groups_are_listed_among_components(world):
    a = make_component(world, "A")
    group = make_group(world, "G", [a])
    shown = {c["id"]: c for c in listed(world)}
    assert shown[group["id"]]["group"] is True
    assert shown[group["id"]]["components"] == [a["id"]]
    assert shown[a["id"]]["group_id"] == group["id"]
    one = world.api.get(components_path(world, f"/{group['id']}")).json
    assert one["group"] is True and one["name"] == "G"


def test_deleting_a_group_through_the_components_path_orphans_its_members(world):
    a = make_component(world, "A")
    group = make_group(world, "G", [a])
    assert world.api.delete(components_path(world, f"/{group['id']}")).status == 204
    assert [(c["id"], c["group_id"]) for c in listed(world)] == [(a["id"], None)]


def test_another_organizations_components_are_404(make_world):
    mine, theirs = make_world(), make_world()
    component = make_component(theirs)
    theirs_path = f"/v1/pages/{theirs.page_id}/components"
    for answer in (
        mine.api.get(theirs_path),
        mine.api.get(f"{theirs_path}.json"),
        mine.api.post(theirs_path, {"component": {"name": "x"}}),
        mine.api.get(f"{theirs_path}/{component['id']}"),
        mine.api.patch(f"{theirs_path}/{component['id']}.json", {"component": {"name": "x"}}),
        mine.api.delete(f"{theirs_path}/{component['id']}"),
        mine.api.get(f"/v1/pages/{mine.page_id}/components/{component['id']}"),
        mine.api.patch(
            f"/v1/pages/{mine.page_id}/components/{component['id']}", {"component": {"name": "x"}}
        ),
        mine.api.get(f"/v1/pages/{mine.page_id}/components/nosuch.json"),
    ):
        assert (answer.status, answer.json) == (404, NOT_FOUND)
    assert theirs.api.get(f"{theirs_path}/{component['id']}").json == component


def test_writes_need_page_configuration(world):
    from chalicelib.domain import organizations

    component = make_component(world)
    member = organizations.create_user(world.organization_id, "incidents@example.com")
    organizations.set_page_roles(
        member, {world.page_id: {"incident_manager": True, "page_configuration": False}}
    )
    member_api = world.api.as_key(organizations.create_api_key(member))
    assert member_api.get(components_path(world)).status == 200
    denied = member_api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"name": "x"}}
    )
    assert denied.status == 403
    assert member_api.post(components_path(world), {"component": {"name": "x"}}).status == 403
    assert member_api.delete(components_path(world, f"/{component['id']}")).status == 403


def test_the_openapi_document_lists_the_component_routes():
    from chalicelib.schemas.openapi import document

    openapi = document()
    paths = openapi["paths"]
    assert set(paths["/v1/pages/{page_id}/components"]) == {"get", "post"}
    assert set(paths["/v1/pages/{page_id}/components/{component_id}"]) == {
        "get",
        "patch",
        "put",
        "delete",
    }
    create = paths["/v1/pages/{page_id}/components"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ComponentCreate"
    }
    schemas = openapi["components"]["schemas"]
    assert {"ComponentCreate", "ComponentUpdate", "ComponentOut"} <= set(schemas)
    assert "status" in schemas["ComponentOut"]["properties"]


def test_a_write_that_loses_a_race_is_made_again_from_a_fresh_read(world):
    from chalicelib.domain import components
    from chalicelib.domain.components import ComponentInput

    component = make_component(world)
    attempts = []

    def rename(edit):
        record = edit.find(component["id"])
        attempts.append(record.version)
        if len(attempts) == 1:
            # Another writer commits between this read and this commit.
            components.update_component(
                world.page_id, component["id"], ComponentInput(status="partial_outage")
            )
        record.name = "Mine"
        edit.touch(record)
        return record

    components.edit_components(world.page_id, rename)
    shown = world.api.get(components_path(world, f"/{component['id']}")).json
    assert (shown["name"], shown["status"]) == ("Mine", "partial_outage")
    assert len(attempts) == 2 and attempts[1] == attempts[0] + 1


def test_a_write_that_keeps_losing_is_a_conflict_answered_409(world, monkeypatch):
    from chalicelib.domain import components, unit_of_work
    from chalicelib.domain.components import ComponentInput
    from chalicelib.domain.errors import Conflict
    from chalicelib.http.errors import from_domain

    component = make_component(world)
    monkeypatch.setattr(unit_of_work, "PAUSE_SECONDS", 0)  # the answer, not the pauses, is tested

    def always_overtaken(edit):
        record = edit.find(component["id"])
        components.update_component(
            world.page_id, component["id"], ComponentInput(description="theirs")
        )
        record.name = "Mine"
        edit.touch(record)
        return record

    with pytest.raises(Conflict) as raised:
        components.edit_components(world.page_id, always_overtaken)
    assert from_domain(raised.value).status == 409
    shown = world.api.get(components_path(world, f"/{component['id']}")).json
    assert (shown["name"], shown["description"]) == ("API", "theirs")


def test_writers_of_one_component_in_one_process_take_turns(world, monkeypatch):
    """Eight threads setting one component's status at once: none is refused with a 409,
    and its history is one chain (each change starts from the status the previous left)."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.domain import components, unit_of_work
    from chalicelib.domain.components import ComponentInput

    component = make_component(world)
    statuses = ["degraded_performance", "partial_outage", "major_outage", "operational"]
    reads = []
    run = unit_of_work.run

    def counting_run(page_id, change, **options):
        def counted(work):
            reads.append(1)
            return change(work)

        return run(page_id, counted, **options)

    def set_status(n: int) -> None:
        fields = ComponentInput(status=statuses[n % len(statuses)])
        components.update_component(world.page_id, component["id"], fields)

    monkeypatch.setattr(unit_of_work, "run", counting_run)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(set_status, range(24)))
    assert len(reads) == 24  # each write read once: no race lost, none made again
    changes = history_of(component["id"])
    assert changes[0][0] == "operational"
    for (_, left), (found, _) in zip(changes, changes[1:], strict=False):
        assert found == left


def test_a_component_writer_announces_its_change_once_its_turn_is_handed_on(world, monkeypatch):
    """The next writer of the component waits for the commit, not for the queue sends that
    announce it (under make load each update waited for those of every update before it)."""
    import threading

    from chalicelib.domain import components, turns, unit_of_work
    from chalicelib.domain.components import ComponentInput

    component = make_component(world)
    next_writer_in, waiting = [], []

    def announce(committed) -> None:
        went_in = threading.Event()

        def next_writer() -> None:
            with turns.taken(component["id"]):
                went_in.set()

        waiting.append(threading.Thread(target=next_writer))
        waiting[-1].start()
        next_writer_in.append(went_in.wait(2))

    monkeypatch.setattr(unit_of_work, "_listeners", [*unit_of_work._listeners, announce])
    components.update_component(
        world.page_id, component["id"], ComponentInput(status="major_outage")
    )
    for thread in waiting:
        thread.join()
    assert next_writer_in == [True]  # announced before the update returned, the turn free
