"""Page access by clicks: the page's audience, page access users (added, listed by screens,
found by email, edited, removed) and groups (created, edited, given and relieved of members,
deleted), each as the API then reads it; none of it for a member without
`page_configuration`."""

import re

import pytest


def _access(world, rest: str = "") -> str:
    return f"/manage/pages/{world.page_id}/access{rest}"


def _api_users(world) -> list[dict]:
    answer = world.api.get(f"/v1/pages/{world.page_id}/page_access_users")
    assert answer.status == 200, answer.text
    return answer.json


def _api_groups(world) -> list[dict]:
    answer = world.api.get(f"/v1/pages/{world.page_id}/page_access_groups")
    assert answer.status == 200, answer.text
    return answer.json


def _component(world, name: str) -> str:
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    assert answer.status == 201, answer.text
    return answer.json["id"]


def _metric(world, name: str) -> str:
    providers = world.api.get(f"/v1/pages/{world.page_id}/metrics_providers").json
    provider_id = next(p["id"] for p in providers if p["type"] == "Self")
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/metrics_providers/{provider_id}/metrics",
        {"metric": {"name": name, "metric_identifier": name}},
    )
    assert answer.status == 201, answer.text
    return answer.json["id"]


def _notice(console, answer) -> str:
    assert answer.status == 303, answer.text
    shown = console.get(answer.headers["location"])
    found = re.search(r'<p class="notice" role="status">([^<]*)</p>', shown.text)
    assert found, "no notice"
    return found.group(1)


@pytest.fixture
def configurer(console, make_user, world):
    console.sign_in(make_user({"page_configuration": True}))
    console.get(_access(world))
    return console


def test_the_audience_is_set_on_the_access_screen_as_the_api_sets_it(configurer, world):
    shown = configurer.last
    assert "The page is public" in shown.text
    form = {
        "page[audience_specific]": "true",
        "page[viewers_must_be_team_members]": "false",
        "page[hidden_from_search]": "true",
    }
    assert _notice(configurer, configurer.post(_access(world, "/audience"), form)) == (
        "Audience saved"
    )
    page = world.api.get(f"/v1/pages/{world.page_id}").json
    assert page["audience_specific"] is True and page["hidden_from_search"] is True
    assert "The page is audience-specific" in configurer.last.text

    # Only the audience: a page field of another kind slipped into the form is ignored.
    other = {"page[audience_specific]": "false", "page[name]": "Renamed"}
    configurer.post(_access(world, "/audience"), other)
    page = world.api.get(f"/v1/pages/{world.page_id}").json
    assert page["audience_specific"] is False and page["name"] == "Acme"


def test_a_user_is_added_with_groups_components_and_metrics_then_edited_and_removed(
    configurer, world
):
    api_component, web_component = _component(world, "API"), _component(world, "Web")
    latency = _metric(world, "latency")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_groups",
        {"page_access_group": {"name": "Partners"}},
    ).json
    configurer.get(_access(world))

    added = configurer.post(
        _access(world, "/users"),
        [
            ("page_access_user[email]", "reader@example.com"),
            ("page_access_user[external_login]", ""),
            ("page_access_user[page_access_group_ids][]", ""),
            ("page_access_user[page_access_group_ids][]", group["id"]),
            ("page_access_user[component_ids][]", ""),
            ("page_access_user[component_ids][]", api_component),
            ("page_access_user[metric_ids][]", ""),
            ("page_access_user[metric_ids][]", latency),
        ],
    )
    assert _notice(configurer, added) == "Added reader@example.com"
    assert "reader@example.com" in configurer.last.text and "Partners" in configurer.last.text
    (user,) = _api_users(world)
    assert user["email"] == "reader@example.com"
    assert user["page_access_group_ids"] == [group["id"]]
    user_path = f"/v1/pages/{world.page_id}/page_access_users/{user['id']}"
    assert [c["id"] for c in world.api.get(f"{user_path}/components").json] == [api_component]
    assert [m["id"] for m in world.api.get(f"{user_path}/metrics").json] == [latency]

    edit = configurer.get(_access(world, f"/users/{user['id']}"))
    assert edit.status == 200
    assert re.search(rf'value="{api_component}" checked', edit.text)
    assert not re.search(rf'value="{web_component}" checked', edit.text)
    saved = configurer.post(
        _access(world, f"/users/{user['id']}"),
        [
            ("page_access_user[email]", "reader2@example.com"),
            ("page_access_user[page_access_group_ids][]", ""),
            ("page_access_user[component_ids][]", ""),
            ("page_access_user[component_ids][]", web_component),
            ("page_access_user[metric_ids][]", ""),
        ],
    )
    assert _notice(configurer, saved) == "Saved reader2@example.com"
    (user,) = _api_users(world)
    assert user["email"] == "reader2@example.com" and user["page_access_group_ids"] == []
    assert [c["id"] for c in world.api.get(f"{user_path}/components").json] == [web_component]
    assert world.api.get(f"{user_path}/metrics").json == []

    removed = configurer.post(_access(world, f"/users/{user['id']}/delete"), {})
    assert _notice(configurer, removed) == "Removed reader2@example.com"
    assert _api_users(world) == []
    assert configurer.get(_access(world, f"/users/{user['id']}")).status == 404


def test_a_user_without_an_email_or_a_login_is_refused_with_the_apis_message(configurer, world):
    refused = configurer.post(_access(world, "/users"), {"page_access_user[email]": ""})
    assert refused.status == 422
    assert "email or external_login is required" in refused.text
    taken = {"page_access_user[email]": "twice@example.com"}
    configurer.post(_access(world, "/users"), taken)
    again = configurer.post(_access(world, "/users"), taken)
    assert again.status == 409
    assert len(_api_users(world)) == 1


def test_users_are_listed_by_screens_of_fifty_and_found_by_email(configurer, world):
    from chalicelib.domain import page_access

    for number in range(51):
        fields = page_access.UserInput(email=f"reader{number:02d}@example.com")
        page_access.create(world.page_id, page_access.USER, fields)

    first = configurer.get(_access(world))
    assert first.text.count("/access/users/") == 50
    assert "Next users" in first.text and "Previous users" not in first.text
    second = configurer.get(_access(world, "?email=&page=2&groups_page=1"))
    assert second.text.count("/access/users/") == 1
    assert "Previous users" in second.text and "Next users" not in second.text

    found = configurer.get(_access(world, "?email=READER07%40example.com"))
    assert found.text.count("/access/users/") == 1 and "reader07@example.com" in found.text
    none = configurer.get(_access(world, "?email=nobody%40example.com"))
    assert "No page access user has the email nobody@example.com" in none.text


def test_a_group_is_created_edited_given_members_and_deleted(configurer, world):
    component, latency = _component(world, "API"), _metric(world, "latency")
    configurer.post(_access(world, "/users"), {"page_access_user[email]": "a@example.com"})
    configurer.post(_access(world, "/users"), {"page_access_user[email]": "b@example.com"})
    users = {user["email"]: user["id"] for user in _api_users(world)}

    created = configurer.post(
        _access(world, "/groups"),
        [
            ("page_access_group[name]", "Partners"),
            ("page_access_group[component_ids][]", ""),
            ("page_access_group[component_ids][]", component),
            ("page_access_group[metric_ids][]", ""),
        ],
    )
    assert _notice(configurer, created) == "Created the group Partners"
    (group,) = _api_groups(world)
    assert group["component_ids"] == [component] and group["metric_ids"] == []
    group_screen = _access(world, f"/groups/{group['id']}")

    joined = configurer.post(f"{group_screen}/members", {"email": "A@example.com"})
    assert _notice(configurer, joined) == "Added a@example.com to the group"
    configurer.post(f"{group_screen}/members", {"email": "b@example.com"})
    assert sorted(_api_groups(world)[0]["page_access_user_ids"]) == sorted(users.values())
    a_path = f"/v1/pages/{world.page_id}/page_access_users/{users['a@example.com']}"
    assert world.api.get(a_path).json["page_access_group_ids"] == [group["id"]]
    unknown = configurer.post(f"{group_screen}/members", {"email": "nobody@example.com"})
    assert unknown.status == 422 and "is not a page access user of this page" in unknown.text

    out = configurer.post(f"{group_screen}/members/{users['a@example.com']}/remove", {})
    assert _notice(configurer, out) == "Took a@example.com out of the group"
    assert _api_groups(world)[0]["page_access_user_ids"] == [users["b@example.com"]]

    renamed = configurer.post(
        group_screen,
        [
            ("page_access_group[name]", "Key partners"),
            ("page_access_group[component_ids][]", ""),
            ("page_access_group[metric_ids][]", ""),
            ("page_access_group[metric_ids][]", latency),
        ],
    )
    assert _notice(configurer, renamed) == "Saved the group Key partners"
    (group,) = _api_groups(world)
    assert group["name"] == "Key partners"
    assert group["component_ids"] == [] and group["metric_ids"] == [latency]

    deleted = configurer.post(f"{group_screen}/delete", {})
    assert _notice(configurer, deleted) == "Removed the group Key partners"
    assert _api_groups(world) == []
    b_path = f"/v1/pages/{world.page_id}/page_access_users/{users['b@example.com']}"
    assert world.api.get(b_path).json["page_access_group_ids"] == []


def test_a_group_without_a_name_is_refused(configurer, world):
    refused = configurer.post(_access(world, "/groups"), {"page_access_group[name]": ""})
    assert refused.status == 422 and "name" in refused.text
    assert _api_groups(world) == []


def test_a_member_without_page_configuration_sees_no_access_and_a_forged_post_is_refused(
    console, make_user, world
):
    from chalicelib.domain import page_access

    user = page_access.create(
        world.page_id, page_access.USER, page_access.UserInput(email="viewer@partner.example.org")
    )
    console.sign_in(make_user({"incident_manager": True}))
    assert console.get(_access(world)).status == 403
    assert "viewer@partner.example.org" not in console.last.text
    forged = [
        (_access(world, "/users"), {"page_access_user[email]": "x@example.com"}),
        (_access(world, f"/users/{user.id}/delete"), {}),
        (_access(world, "/groups"), {"page_access_group[name]": "Sneaky"}),
        (_access(world, "/audience"), {"page[audience_specific]": "true"}),
    ]
    for path, form in forged:
        assert console.post(path, form).status == 403, path
    assert [u["email"] for u in _api_users(world)] == ["viewer@partner.example.org"]
    assert _api_groups(world) == []
    assert world.api.get(f"/v1/pages/{world.page_id}").json["audience_specific"] is False


def test_user_content_is_escaped_on_the_access_screens(configurer, world):
    configurer.post(_access(world, "/groups"), {"page_access_group[name]": "<b>Partners</b>"})
    shown = configurer.get(_access(world))
    assert "<b>Partners</b>" not in shown.text and "&lt;b&gt;Partners&lt;/b&gt;" in shown.text
