"""The team screen by clicks: an owner adds a user with exactly one role on the page and sees
it listed so, changes its roles and deletes it; anyone else sees no control for it, and a
forged form gets the API's 403."""

import re


def _team(world) -> str:
    return f"/manage/pages/{world.page_id}/team"


def _member_section(text: str, email: str) -> str:
    """The card of the member with `email` on the team screen."""
    found = re.search(
        rf'<section class="card"[^>]*>\s*<h2[^>]*>{re.escape(email)}.*?</section>', text, re.S
    )
    assert found, f"{email} is not listed"
    return found.group(0)


def _checked_roles(section: str) -> set[str]:
    return set(re.findall(r'name="roles\[(\w+)\]" value="true" checked', section))


def _permissions(world, user_id: str) -> dict:
    answer = world.api.get(f"/v1/organizations/{world.organization_id}/permissions/{user_id}")
    assert answer.status == 200, answer.text
    return answer.json


def _user_id(world, email: str) -> str:
    users = world.api.get(f"/v1/organizations/{world.organization_id}/users").json
    return next(user["id"] for user in users if user["email"] == email)


def _add(console, world, email: str, *roles: str):
    form = {
        "user[email]": email,
        "user[first_name]": "Ama",
        "user[last_name]": "Mensah",
        "access": "true",
        **{f"roles[{role}]": "true" for role in roles},
    }
    return console.post(f"{_team(world)}/new", form)


def test_an_owner_adds_a_user_with_only_the_incident_role_and_sees_it_listed(
    console, make_user, world
):
    console.sign_in(make_user())
    console.get(_team(world))
    added = _add(console, world, "ama@example.com", "incident_manager")
    assert added.status == 200
    assert _checked_roles(_member_section(added.text, "ama@example.com")) == {"incident_manager"}

    listed = console.get(_team(world))
    assert _checked_roles(_member_section(listed.text, "ama@example.com")) == {"incident_manager"}
    pages = _permissions(world, _user_id(world, "ama@example.com"))["pages"]
    assert pages == [
        {
            "page_id": world.page_id,
            "page_configuration": False,
            "incident_manager": True,
            "maintenance_manager": False,
        }
    ]


def test_an_owner_changes_a_users_roles_and_deletes_the_user(console, make_user, world):
    console.sign_in(make_user())
    console.get(_team(world))
    _add(console, world, "kofi@example.com", "maintenance_manager")
    user_id = _user_id(world, "kofi@example.com")

    changed = console.post(
        f"{_team(world)}/{user_id}/roles",
        {"access": "true", "roles[page_configuration]": "true"},
    )
    assert changed.status == 303
    shown = console.get(changed.headers["location"])
    assert "Roles saved" in shown.text
    assert _checked_roles(_member_section(shown.text, "kofi@example.com")) == {"page_configuration"}
    page_roles = _permissions(world, user_id)["pages"][0]
    assert page_roles["page_configuration"] and not page_roles["maintenance_manager"]

    taken = console.post(f"{_team(world)}/{user_id}/roles", {})
    assert taken.status == 303
    assert _permissions(world, user_id)["pages"] == []
    section = _member_section(console.get(_team(world)).text, "kofi@example.com")
    assert 'name="access" value="true" checked' not in section and not _checked_roles(section)

    asked = console.post(f"{_team(world)}/{user_id}/delete", {})
    assert asked.status == 200
    assert "Delete the user kofi@example.com from the whole organization?" in asked.text
    users = world.api.get(f"/v1/organizations/{world.organization_id}/users").json
    assert "kofi@example.com" in [user["email"] for user in users]  # nothing deleted yet
    deleted = console.post(f"{_team(world)}/{user_id}/delete", {"confirm": "yes"})
    assert deleted.status == 303
    after = console.get(deleted.headers["location"])
    assert "Deleted kofi@example.com" in after.text
    assert "kofi@example.com</h2>" not in after.text
    users = world.api.get(f"/v1/organizations/{world.organization_id}/users").json
    assert "kofi@example.com" not in [user["email"] for user in users]


def test_a_member_without_the_owner_role_sees_no_team_control_and_a_forged_one_is_refused(
    console, make_user, world
):
    from chalicelib.domain import organizations

    other = organizations.create_user(world.organization_id, "other@example.com")
    console.sign_in(make_user({"page_configuration": True, "incident_manager": True}))
    shown = console.get(_team(world))
    assert shown.status == 200 and "other@example.com" in shown.text
    assert "<form" not in shown.text.split("<main", 1)[1]  # no control of the team
    assert "Add a user" not in shown.text

    forged_add = _add(console, world, "sneaky@example.com", "incident_manager")
    assert forged_add.status == 403
    assert console.post(f"{_team(world)}/{other.id}/delete", {}).status == 403
    assert console.post(f"{_team(world)}/{other.id}/delete", {"confirm": "yes"}).status == 403
    forged_roles = {"access": "true", "roles[page_configuration]": "true"}
    assert console.post(f"{_team(world)}/{other.id}/roles", forged_roles).status == 403
    assert organizations.find_user(world.organization_id, other.id) is not None
    emails = [user.email for user in organizations.users_of(world.organization_id)]
    assert "sneaky@example.com" not in emails
