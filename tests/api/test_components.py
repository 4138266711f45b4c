"""Components through HTTP (SPEC 2.7, 3.1, 4.6): both path styles, both encodings."""

import pytest


def components_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/components{suffix}"


def make_component(world, name="API", **fields):
    answer = world.api.post(components_path(world), {"component": {"name": name, **fields}})
    assert answer.status == 201, answer.text
    return answer.json


@pytest.mark.parametrize("archived", [False, True])
@pytest.mark.parametrize("form", [False, True])
def test_create_component_starts_operational(world, archived, form):
    answer = world.api.post(
        components_path(world, ".json" if archived else ""),
        {
            "component": {
                "name": "Web",
                "description": "Site",
                "showcase": False,
                "start_date": "2024-01-31",
            }
        },
        form=form,
    )
    assert answer.status == 201, answer.text
    component = answer.json
    assert component["status"] == "operational"
    assert component["name"] == "Web"
    assert component["showcase"] is False
    assert component["start_date"] == "2024-01-31"
    assert component["group"] is False and component["group_id"] is None
    assert component["position"] == 1
    assert component["automation_email"].startswith(f"component+{component['id']}@")


def test_list_is_ordered_by_position_and_costs_one_query(world, dynamodb_calls):
    first, second = make_component(world, "A"), make_component(world, "B")
    before = dynamodb_calls.summary()
    answer = world.api.get(components_path(world))
    after = dynamodb_calls.summary()
    assert [c["id"] for c in answer.json] == [first["id"], second["id"]]
    assert [c["position"] for c in answer.json] == [1, 2]
    assert after["Query"] - before["Query"] == 1
    assert world.api.get(components_path(world, ".json")).json == answer.json


@pytest.mark.parametrize("method", ["patch", "put"])
@pytest.mark.parametrize("form", [False, True])
def test_update_status_changes_updated_at_and_records_history(world, method, form):
    from chalicelib.store.components import ComponentStatusChange

    component = make_component(world)
    answer = getattr(world.api, method)(
        components_path(world, f"/{component['id']}"),
        {"component": {"status": "major_outage"}},
        form=form,
    )
    assert answer.status == 200, answer.text
    assert answer.json["status"] == "major_outage"
    assert answer.json["updated_at"] >= component["updated_at"]
    history = list(ComponentStatusChange.query(component["id"]))
    assert [(h.old_status, h.new_status) for h in history] == [("operational", "major_outage")]


def test_archived_patch(world):
    component = make_component(world)
    answer = world.api.patch(
        components_path(world, f"/{component['id']}.json"),
        [("component[name]", "Renamed"), ("component[status]", "partial_outage")],
        form=True,
    )
    assert answer.status == 200, answer.text
    assert (answer.json["name"], answer.json["status"]) == ("Renamed", "partial_outage")


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"name": "x", "status": "on_fire"}, "status"),
        ({"description": "no name"}, "name"),
        ({"name": "x", "start_date": "31/01/2024"}, "start_date"),
        ({"name": "x", "group_id": "nosuchgroup"}, "group_id"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_components_are_422_naming_the_field(world, fields, field):
    answer = world.api.post(components_path(world), {"component": fields})
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert field in answer.json["errors"]


def test_empty_status_leaves_an_ordinary_component_as_it_is(world):
    component = make_component(world, status="degraded_performance")
    answer = world.api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"status": ""}}
    )
    assert answer.status == 200
    assert answer.json["status"] == "degraded_performance"


def test_empty_status_restores_a_third_party_components_official_status(world):
    from chalicelib.store.components import Component

    component = make_component(world, status="major_outage")
    record = Component.get(world.page_id, component["id"])
    record.update(
        actions=[Component.third_party.set(True), Component.official_status.set("operational")]
    )
    answer = world.api.patch(
        components_path(world, f"/{component['id']}"), {"component": {"status": ""}}
    )
    assert answer.json["status"] == "operational"


def test_positions_stay_dense_on_insert_move_and_delete(world):
    a, b, c = (make_component(world, name) for name in "ABC")
    inserted = make_component(world, "First", position=1)
    assert inserted["position"] == 1

    def order():
        return [x["name"] for x in world.api.get(components_path(world)).json]

    assert order() == ["First", "A", "B", "C"]
    world.api.patch(components_path(world, f"/{c['id']}"), {"component": {"position": 2}})
    assert order() == ["First", "C", "A", "B"]
    assert world.api.delete(components_path(world, f"/{a['id']}")).status == 204
    listed = world.api.get(components_path(world)).json
    assert [x["name"] for x in listed] == ["First", "C", "B"]
    assert [x["position"] for x in listed] == [1, 2, 3]


def test_delete_in_both_styles(world):
    first, second = make_component(world), make_component(world)
    assert world.api.delete(components_path(world, f"/{first['id']}")).status == 204
    assert world.api.delete(components_path(world, f"/{second['id']}.json")).status == 204
    assert world.api.get(components_path(world, f"/{first['id']}")).status == 404
    assert world.api.get(components_path(world)).json == []


def test_another_organizations_components_are_404(make_world):
    mine, theirs = make_world(), make_world()
    component = make_component(theirs)
    assert mine.api.get(f"/v1/pages/{theirs.page_id}/components").status == 404
    assert mine.api.get(f"/v1/pages/{mine.page_id}/components/{component['id']}").status == 404
    assert (
        mine.api.patch(
            f"/v1/pages/{theirs.page_id}/components/{component['id']}", {"component": {"name": "x"}}
        ).status
        == 404
    )
    assert mine.api.get(f"/v1/pages/{mine.page_id}/components/nosuch").status == 404


def test_incident_components_map_applies_statuses(world):
    api_component, web = make_component(world, "API"), make_component(world, "Web")
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "Down",
                "components": {api_component["id"]: "major_outage"},
                "component_ids": [web["id"]],
            }
        },
    )
    assert answer.status == 201, answer.text
    incident = answer.json
    assert incident["impact"] == "critical"
    assert {c["id"]: c["status"] for c in incident["components"]} == {
        web["id"]: "operational",
        api_component["id"]: "major_outage",
    }
    assert incident["incident_updates"][0]["affected_components"] == [
        {
            "code": api_component["id"],
            "name": "API",
            "old_status": "operational",
            "new_status": "major_outage",
        }
    ]
    assert (
        world.api.get(components_path(world, f"/{api_component['id']}")).json["status"]
        == "major_outage"
    )


def test_incident_with_form_encoded_components_map(world):
    component = make_component(world)
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents.json",
        [
            ("incident[name]", "Slow"),
            (f"incident[components][{component['id']}]", "degraded_performance"),
        ],
        form=True,
    )
    assert answer.status == 201, answer.text
    assert answer.json["impact"] == "minor"


def test_incident_with_an_unknown_component_writes_nothing(world):
    component = make_component(world)
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "x",
                "components": {component["id"]: "major_outage", "nosuch": "major_outage"},
            }
        },
    )
    assert answer.status == 422
    assert "components" in answer.json["errors"]
    assert (
        world.api.get(components_path(world, f"/{component['id']}")).json["status"] == "operational"
    )
    assert world.api.get(f"/v1/pages/{world.page_id}/incidents").json == []


def test_openapi_lists_the_component_routes(world):
    paths = world.api.get("/v1/openapi.json").json["paths"]
    assert {"get", "post"} <= set(paths["/v1/pages/{page_id}/components"])
    assert {"get", "patch", "put", "delete"} <= set(
        paths["/v1/pages/{page_id}/components/{component_id}"]
    )
    assert "/v1/pages/{page_id}/component-groups" in paths
