import pytest

from chalicelib.domain import organizations


def test_create_and_list_users_in_both_styles(world):
    answer = world.api.post(
        f"/v1/organizations/{world.organization_id}/users.json",
        {
            "user": {
                "email": "sre@example.com",
                "password": "s3cret-pass-phrase",
                "first_name": "Sam",
                "last_name": "Re",
            }
        },
        form=True,
    )
    assert answer.status == 201, answer.text
    user = answer.json
    assert set(user) == {
        "id",
        "organization_id",
        "email",
        "first_name",
        "last_name",
        "created_at",
        "updated_at",
    }
    assert "password" not in answer.text
    listed = world.api.get(f"/v1/organizations/{world.organization_id}/users").json
    assert user["id"] in [item["id"] for item in listed]


def test_create_user_requires_every_field(world):
    answer = world.api.post(
        f"/v1/organizations/{world.organization_id}/users", {"user": {"email": "x@example.com"}}
    )
    assert answer.status == 422
    assert {"password", "first_name", "last_name"} <= set(answer.json["errors"])


def test_duplicate_email_is_422(world):
    body = {
        "user": {
            "email": "dup@example.com",
            "password": "a long enough password",
            "first_name": "A",
            "last_name": "B",
        }
    }
    assert world.api.post(f"/v1/organizations/{world.organization_id}/users", body).status == 201
    again = world.api.post(f"/v1/organizations/{world.organization_id}/users", body)
    assert again.status == 422
    assert "email" in again.json["errors"]


def test_delete_user_returns_it(world):
    user = organizations.create_user(world.organization_id, "gone@example.com")
    answer = world.api.delete(f"/v1/organizations/{world.organization_id}/users/{user.id}.json")
    assert answer.status == 200
    assert answer.json["id"] == user.id
    assert (
        world.api.delete(f"/v1/organizations/{world.organization_id}/users/{user.id}").status == 404
    )


def test_another_organization_is_404(make_world):
    mine, theirs = make_world(), make_world()
    assert mine.api.get(f"/v1/organizations/{theirs.organization_id}/users").status == 404
    assert (
        mine.api.get(
            f"/v1/organizations/{theirs.organization_id}/permissions/{theirs.user_id}"
        ).status
        == 404
    )


def test_permissions_limit_a_member_to_the_pages_given(world):
    member = organizations.create_user(world.organization_id, "member@example.com")
    member_api = world.api.as_key(organizations.create_api_key(member))
    assert member_api.get(f"/v1/pages/{world.page_id}").status == 403
    assert member_api.get("/v1/pages").json == []

    path = f"/v1/organizations/{world.organization_id}/permissions/{member.id}"
    answer = world.api.put(
        path, {"pages": {world.page_id: {"page_configuration": False, "incident_manager": True}}}
    )
    assert answer.status == 200, answer.text
    assert answer.json == {
        "user_id": member.id,
        "pages": [
            {
                "page_id": world.page_id,
                "page_configuration": False,
                "incident_manager": True,
                "maintenance_manager": False,
            }
        ],
    }
    assert member_api.get(f"/v1/pages/{world.page_id}").status == 200
    denied = member_api.patch(f"/v1/pages/{world.page_id}", {"page": {"name": "No"}})
    assert denied.status == 403
    assert denied.json == {"error": "You are not authorized to access this resource"}

    world.api.put(path, {"pages": {world.page_id: {}}})
    assert member_api.patch(f"/v1/pages/{world.page_id}", {"page": {"name": "Yes"}}).status == 200

    world.api.put(path, {"pages": {}})
    assert member_api.get(f"/v1/pages/{world.page_id}").status == 403


def test_only_owners_change_permissions(world):
    member = organizations.create_user(world.organization_id, "m2@example.com")
    member_api = world.api.as_key(organizations.create_api_key(member))
    answer = member_api.put(
        f"/v1/organizations/{world.organization_id}/permissions/{member.id}",
        {"pages": {world.page_id: {}}},
    )
    assert answer.status == 403


@pytest.mark.parametrize(
    "body", [{"pages": ["x"]}, {"pages": "all"}, {"pages": None}, {}, {"pages": {"x": True}}]
)
def test_permissions_whose_pages_are_not_an_object_are_400(world, body):
    member = organizations.create_user(world.organization_id, "m4@example.com")
    answer = world.api.put(
        f"/v1/organizations/{world.organization_id}/permissions/{member.id}", body
    )
    assert (answer.status, answer.json) == (400, {"error": "Bad request"})


def test_permissions_for_an_unknown_page_are_404(world):
    member = organizations.create_user(world.organization_id, "m3@example.com")
    answer = world.api.put(
        f"/v1/organizations/{world.organization_id}/permissions/{member.id}",
        {"pages": {"nopage": {}}},
    )
    assert answer.status == 404


def test_owner_permissions_list_every_page(world):
    answer = world.api.get(f"/v1/organizations/{world.organization_id}/permissions/{world.user_id}")
    assert answer.json["pages"] == [
        {
            "page_id": world.page_id,
            "page_configuration": True,
            "incident_manager": True,
            "maintenance_manager": True,
        }
    ]
