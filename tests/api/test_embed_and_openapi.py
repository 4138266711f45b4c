import pytest
from openapi_spec_validator import validate


def test_every_page_has_an_embed_config_from_creation(world):
    answer = world.api.get(f"/v1/pages/{world.page_id}/status_embed_config")
    assert answer.status == 200
    assert answer.json["page_id"] == world.page_id
    assert answer.json["position"] == "bottom-right"


@pytest.mark.parametrize("form", [False, True])
def test_update_embed_config(world, form):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/status_embed_config.json",
        {"status_embed_config": {"position": "top-left", "incident_background_color": "ff0000"}},
        form=form,
    )
    assert answer.status == 200, answer.text
    assert answer.json["position"] == "top-left"
    assert answer.json["incident_background_color"] == "#ff0000"


def test_embed_config_rejects_unknown_positions(world):
    answer = world.api.put(
        f"/v1/pages/{world.page_id}/status_embed_config",
        {"status_embed_config": {"position": "middle"}},
    )
    assert answer.status == 422
    assert "position" in answer.json["errors"]


def test_openapi_document_is_valid_and_needs_no_key(world):
    answer = world.api.as_key(None).get("/v1/openapi.json")
    assert answer.status == 200
    document = answer.json
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert {"get", "patch", "put"} <= set(document["paths"]["/v1/pages/{page_id}"])
    assert "/v1/pages/{page_id}/status_embed_config" in document["paths"]
    body = document["paths"]["/v1/pages/{page_id}"]["patch"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PageUpdate"
    }


# Statuspage's v1 operations on page access (shared/reference/statuspage-openapi3.json)
OFFICIAL_PAGE_ACCESS = {
    "/pages/{page_id}/components/{component_id}/page_access_groups": {"delete", "post"},
    "/pages/{page_id}/components/{component_id}/page_access_users": {"delete", "post"},
    "/pages/{page_id}/page_access_groups": {"get", "post"},
    "/pages/{page_id}/page_access_groups/{page_access_group_id}": {"delete", "get", "patch", "put"},
    "/pages/{page_id}/page_access_groups/{page_access_group_id}/components": {
        "delete",
        "get",
        "patch",
        "post",
        "put",
    },
    "/pages/{page_id}/page_access_groups/{page_access_group_id}/components/{component_id}": {
        "delete"
    },
    "/pages/{page_id}/page_access_users": {"get", "post"},
    "/pages/{page_id}/page_access_users/{page_access_user_id}": {"delete", "get", "patch", "put"},
    "/pages/{page_id}/page_access_users/{page_access_user_id}/components": {
        "delete",
        "get",
        "patch",
        "post",
        "put",
    },
    "/pages/{page_id}/page_access_users/{page_access_user_id}/components/{component_id}": {
        "delete"
    },
    "/pages/{page_id}/page_access_users/{page_access_user_id}/metrics": {
        "delete",
        "get",
        "patch",
        "post",
        "put",
    },
    "/pages/{page_id}/page_access_users/{page_access_user_id}/metrics/{metric_id}": {"delete"},
}


def test_the_document_lists_every_official_page_access_operation():
    from chalicelib.schemas.openapi import document

    ours = document()["paths"]
    assert sum(len(methods) for methods in OFFICIAL_PAGE_ACCESS.values()) == 34
    for path, methods in OFFICIAL_PAGE_ACCESS.items():
        assert methods <= set(ours.get("/v1" + path, {})), path
    user = ours["/v1/pages/{page_id}/page_access_users"]["post"]
    assert user["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PageAccessUserCreate"
    }
    assert "PageAccessGroupOut" in document()["components"]["schemas"]
