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
    revoke = f"{team}/{member.id}/keys/{key_hash}/revoke"
    asked = console.post(revoke, {})
    assert asked.status == 200 and "Revoke the API key " + key_hash[:10] in asked.text
    assert "member@example.com" in asked.text and 'name="confirm" value="yes"' in asked.text
    assert member_api.get(f"/v1/pages/{world.page_id}/incidents").status == 200  # not yet
    assert console.post(revoke, {"confirm": "yes"}).status == 303
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


def _new_user(email: str, **roles) -> dict:
    form = {
        "user[email]": email,
        "user[first_name]": "Nia",
        "user[last_name]": "Okafor",
        "access": "true",
    }
    form.update({f"roles[{role}]": "true" for role in roles})
    return form


def test_an_owner_adds_a_user_who_signs_in_with_the_password_shown_once(console, make_user, world):
    console.sign_in(make_user())
    team = f"/manage/pages/{world.page_id}/team"
    console.get(team)
    added = console.post(f"{team}/new", _new_user("nia@example.com", incident_manager=True))
    assert added.status == 200 and added.headers["cache-control"] == "no-store"
    password = re.search(r'id="new-password" readonly value="([^"]+)"', added.text).group(1)
    assert password not in console.get(team).text  # shown once

    newcomer = type(console)(console.client)
    assert newcomer.sign_in("nia@example.com", password).status == 303
    first = newcomer.get(f"/manage/pages/{world.page_id}/incidents/new")
    assert first.status == 303 and first.headers["location"] == "/manage/password"
    newcomer.get("/manage/password")
    mine = {"password": "nia's own password", "confirmation": "nia's own password"}
    assert newcomer.post("/manage/password", mine).status == 303
    assert newcomer.get(f"/manage/pages/{world.page_id}/incidents/new").status == 200
    assert newcomer.get(f"/manage/pages/{world.page_id}/settings").status == 403

    again = console.post(f"{team}/new", _new_user("NIA@example.com"))
    assert again.status == 422 and "has already been taken" in again.text
    bad = console.post(f"{team}/new", _new_user("not an email"))
    assert bad.status == 422


def test_an_owner_deletes_a_user_and_their_session_ends(console, make_user, world):
    from chalicelib.domain import organizations

    member_email = make_user({"incident_manager": True})
    member = organizations.users_by_email(member_email)[0]
    signed_in = type(console)(console.client)
    signed_in.sign_in(member_email)
    owner_email = make_user()
    console.sign_in(owner_email)
    owner = organizations.users_by_email(owner_email)[0]
    team = f"/manage/pages/{world.page_id}/team"
    console.get(team)
    assert console.post(f"{team}/{member.id}/delete", {"confirm": "yes"}).status == 303
    assert member_email not in console.get(team).text
    assert signed_in.get(f"/manage/pages/{world.page_id}").status == 303  # to the sign-in

    yourself = console.post(f"{team}/{owner.id}/delete", {"confirm": "yes"})
    assert yourself.status == 422 and "can&#39;t delete yourself" in yourself.text


def test_only_owners_add_or_delete_users_and_only_with_a_csrf_token(console, make_user, world):
    from chalicelib.domain import organizations

    other = organizations.create_user(world.organization_id, "other@example.com")
    team = f"/manage/pages/{world.page_id}/team"
    console.sign_in(make_user({"page_configuration": True}))
    console.get(team)
    assert "Add a user" not in console.last.text
    assert console.post(f"{team}/new", _new_user("sneaky@example.com")).status == 403
    assert console.post(f"{team}/{other.id}/delete", {}).status == 403

    owner = type(console)(console.client)
    owner.sign_in(make_user())
    owner.get(team)
    assert owner.post(f"{team}/new", _new_user("x@example.com"), csrf=False).status == 403
    assert owner.post(f"{team}/{other.id}/delete", {}, csrf=False).status == 403
    emails = {user.email for user in organizations.users_of(world.organization_id)}
    assert "sneaky@example.com" not in emails and "other@example.com" in emails
