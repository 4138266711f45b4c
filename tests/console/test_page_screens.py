"""Pages in the console: an owner creates one and switches between them; a page's overview
lists its components as the public page does; every change of components says what it did."""

import re

import pytest


@pytest.fixture
def overview(world):
    return f"/manage/pages/{world.page_id}"


def _names_in_order(text: str, names: list[str]) -> list[str]:
    return sorted(names, key=text.index)


def test_an_owner_creates_a_page_lands_on_it_and_switches_between_pages(console, make_user, world):
    console.sign_in(make_user())
    console.get("/manage")
    assert console.last.status == 303  # one page: its overview at once
    first = console.get(console.last.headers["location"]).text
    assert 'href="/manage/pages/new"' in first

    console.get("/manage/pages/new")
    created = console.post(
        "/manage/pages/new",
        {"page[name]": "Billing <b>", "page[subdomain]": "billing-status", "page[url]": ""},
    )
    assert created.status == 303
    location = created.headers["location"]
    page_id = re.match(r"/manage/pages/(\w+)\?done=Page\+created$", location).group(1)
    landed = console.get(location).text
    assert '<p class="notice" role="status">Page created</p>' in landed
    assert "<h1>Billing &lt;b&gt;</h1>" in landed

    shown = world.api.get(f"/v1/pages/{page_id}").json
    assert (shown["name"], shown["subdomain"]) == ("Billing <b>", "billing-status")

    home = console.get("/manage")
    assert home.status == 200
    assert f'href="/manage/pages/{world.page_id}">Acme</a>' in home.text
    assert f'href="/manage/pages/{page_id}">Billing &lt;b&gt;</a>' in home.text


def test_a_page_is_refused_as_the_api_refuses_it(console, make_user, world):
    console.sign_in(make_user())
    console.get("/manage/pages/new")
    for fields in ({"page[name]": " "}, {"page[name]": "X", "page[subdomain]": "not a host"}):
        refused = console.post("/manage/pages/new", fields)
        assert refused.status == 422, fields
        assert "Please check the form" in refused.text
    taken = world.api.get(f"/v1/pages/{world.page_id}").json["subdomain"]
    refused = console.post("/manage/pages/new", {"page[name]": "Y", "page[subdomain]": taken})
    assert refused.status == 422 and "has already been taken" in refused.text
    assert len(world.api.get("/v1/pages").json) == 1


def test_only_owners_create_pages(console, make_user, world, overview):
    console.sign_in(make_user({"page_configuration": True}))
    assert 'href="/manage/pages/new"' not in console.get(overview).text
    assert console.get("/manage/pages/new").status == 403
    assert console.post("/manage/pages/new", {"page[name]": "Mine"}).status == 403
    assert len(world.api.get("/v1/pages").json) == 1


def _component(world, name: str) -> str:
    body = {"component": {"name": name}}
    return world.api.post(f"/v1/pages/{world.page_id}/components", body).json["id"]


def test_the_overview_lists_each_group_followed_by_its_members(console, make_user, world, overview):
    _component(world, "Dashboard")
    members = [_component(world, "REST API"), _component(world, "Webhooks")]
    body = {"component_group": {"name": "Integrations", "components": members}}
    assert world.api.post(f"/v1/pages/{world.page_id}/component-groups", body).status == 201
    names = ["Dashboard", "Integrations", "REST API", "Webhooks"]
    public = world.api.as_key(None).get(f"/s/{world.page_id}").text
    assert _names_in_order(public, names) == names

    for roles in (None, {"incident_manager": True}):  # the form, and the table only
        reader = type(console)(console.client)
        reader.sign_in(make_user(roles))
        shown = reader.get(overview).text
        table = shown[shown.index('<table class="components">') :]
        rows = re.findall(
            r"<tr( class=\"member\")?>\s*<td class=\"name\">(?:<label[^>]*>)?([^<]+)", table
        )
        assert [(name.strip(), bool(member)) for member, name in rows] == [
            ("Dashboard", False),
            ("Integrations", False),
            ("REST API", True),
            ("Webhooks", True),
        ]


def test_changes_of_components_and_groups_say_what_they_did(console, make_user, world, overview):
    console.sign_in(make_user())
    screen = f"{overview}/components"
    console.get(screen)
    added = console.post(f"{screen}/new", {"component[name]": "API"})
    assert added.status == 303
    assert added.headers["location"].startswith(f"{screen}?done=Component+added#entry-")
    assert (
        '<p class="notice" role="status">Component added</p>'
        in console.get(added.headers["location"]).text
    )
    component_id = added.headers["location"].rsplit("#entry-", 1)[1]

    saved = console.post(f"{screen}/{component_id}", {"component[name]": "API v2"})
    assert "done=Component+saved" in saved.headers["location"]
    grouped = console.post(
        f"/manage/pages/{world.page_id}/groups/new",
        {"component_group[name]": "Backend", "component_group[components][]": component_id},
    )
    assert "done=Group+added" in grouped.headers["location"]
    group_id = grouped.headers["location"].rsplit("#entry-", 1)[1]
    shown = console.get(grouped.headers["location"]).text
    assert '<p class="notice" role="status">Group added</p>' in shown
    deleted = console.post(f"{screen}/{group_id}/delete", {})
    assert deleted.headers["location"] == f"{screen}?done=Group+deleted"


def test_the_description_says_where_the_public_page_shows_it(console, make_user, world, overview):
    console.sign_in(make_user())
    form = console.get(f"{overview}/components").text
    assert "tooltip" not in form
    assert "shown under its name on the public page" in form


def test_the_overview_shows_a_group_as_its_worst_member_as_the_public_page_does(
    console, make_user, world, overview
):
    from tests.public.conftest import make_component, make_group

    api, web, docs = (make_component(world, name) for name in ("API", "Web", "Docs"))
    make_group(world, "Core", [api["id"], web["id"], docs["id"]])
    for component, status in ((api, "major_outage"), (web, "partial_outage")):
        path = f"/v1/pages/{world.page_id}/components/{component['id']}"
        assert world.api.patch(path, {"component": {"status": status}}).status == 200
    group_row = (
        r'Core <span class="hint">\(group\)</span></td>\s*<td>\s*'
        r'<span class="status (\w+)">([^<]*)</span>'
    )
    console.sign_in(make_user())  # the status form, the group's badge beside it
    assert re.search(group_row, console.get(overview).text).group(2) == "Major Outage"
    reader = type(console)(console.client)  # no configuration role: the table only
    reader.sign_in(make_user({"incident_manager": True}))
    assert re.search(group_row, reader.get(overview).text).group(2) == "Major Outage"
