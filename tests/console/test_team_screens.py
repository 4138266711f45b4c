"""The team in the console: roles on a page, API keys shown once and revoked; owners only."""

import re


def test_an_owner_sets_a_members_roles_and_makes_and_revokes_a_key(console, make_user, world):
    from chalicelib.domain import organizations

    member = organizations.create_user(world.organization_id, "member@example.com")
    console.sign_in(make_user())
    team = f"/manage/pages/{world.page_id}/team"
    console.get(team)
    answer = console.post(
        f"{team}/{member.id}/roles", {"access": "true", "roles[incident_manager]": "true"}
    )
    assert answer.status == 303
    permissions = world.api.get(
        f"/v1/organizations/{world.organization_id}/permissions/{member.id}"
    ).json
    assert permissions["pages"][0]["incident_manager"] is True
    assert permissions["pages"][0]["page_configuration"] is False

    made = console.post(f"{team}/{member.id}/keys", {})
    assert made.status == 200 and made.headers["cache-control"] == "no-store"
    key = re.search(r'id="new-key" readonly value="([^"]+)"', made.text).group(1)
    member_api = world.api.as_key(key)
    assert member_api.get(f"/v1/pages/{world.page_id}/incidents").status == 200
    assert key not in console.get(team).text  # shown once

    key_hash = re.search(rf"{team}/{member.id}/keys/([0-9a-f]+)/revoke", console.last.text).group(1)
    assert console.post(f"{team}/{member.id}/keys/{key_hash}/revoke", {}).status == 303
    assert member_api.get(f"/v1/pages/{world.page_id}/incidents").status == 401


def test_a_member_who_is_not_an_owner_changes_no_roles(console, make_user, world):
    from chalicelib.domain import organizations

    other = organizations.create_user(world.organization_id, "other@example.com")
    console.sign_in(make_user({"page_configuration": True}))
    team = f"/manage/pages/{world.page_id}/team"
    assert "other@example.com" in console.get(team).text
    refused = console.post(f"{team}/{other.id}/roles", {"access": "true"})
    assert refused.status == 403
    assert console.post(f"{team}/{other.id}/keys", {}).status == 403
