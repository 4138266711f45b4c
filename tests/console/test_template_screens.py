"""Incident templates in the console: listed, added, edited and deleted by clicks, under the
API's role for templates (incident_manager)."""


def _templates(world) -> list[dict]:
    return world.api.get(f"/v1/pages/{world.page_id}/incident_templates").json


def _component(world, name: str) -> str:
    created = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    return created.json["id"]


def test_a_template_is_added_edited_and_deleted_by_clicks(console, make_user, world):
    api_id, web_id = _component(world, "API"), _component(world, "Website")
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/templates"
    assert "no incident templates yet" in console.get(base).text
    answer = console.post(
        f"{base}/new",
        [
            ("template[name]", "Database down"),
            ("template[title]", "Our database is down"),
            ("template[body]", "We are **on it**."),
            ("template[update_status]", "identified"),
            ("template[group_id]", ""),
            ("template[component_ids][]", api_id),
            ("template[should_send_notifications]", "false"),
        ],
    )
    assert answer.status == 303
    listed = console.get(answer.headers["location"]).text
    assert "Template added" in listed and "Database down" in listed
    (template,) = _templates(world)
    assert (template["title"], template["update_status"], template["body"]) == (
        "Our database is down",
        "identified",
        "We are **on it**.",
    )
    assert [c["id"] for c in template["components"]] == [api_id]
    assert template["should_send_notifications"] is False

    edit = console.get(f"{base}/{template['id']}").text
    assert 'value="Database down"' in edit and f'value="{api_id}" checked' in edit
    answer = console.post(
        f"{base}/{template['id']}",
        [
            ("template[name]", "Database slow"),
            ("template[title]", "Our database is slow"),
            ("template[body]", ""),
            ("template[update_status]", ""),
            ("template[group_id]", ""),
            ("template[component_ids][]", web_id),
            ("template[should_send_notifications]", "false"),
            ("template[should_send_notifications]", "true"),
        ],
    )
    assert answer.status == 303
    (edited,) = _templates(world)
    assert (edited["id"], edited["name"], edited["update_status"]) == (
        template["id"],
        "Database slow",
        None,
    )
    assert [c["id"] for c in edited["components"]] == [web_id]
    assert edited["should_send_notifications"] is True
    # The new incident form starts from it.
    chosen = console.get(f"/manage/pages/{world.page_id}/incidents/new?template_id={edited['id']}")
    assert 'value="Our database is slow"' in chosen.text

    answer = console.post(f"{base}/{template['id']}/delete", {})
    assert answer.status == 303
    assert "Template deleted" in console.get(answer.headers["location"]).text
    assert _templates(world) == []


def test_no_twitter_is_offered_and_the_apis_should_tweet_is_kept(console, make_user, world):
    """The service posts to no Twitter: the template form has no such checkbox, and saving a
    template in the console leaves the API's `should_tweet` as it was."""
    made = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {"template": {"name": "Outage", "title": "Outage", "body": "", "should_tweet": True}},
    )
    assert made.status == 201, made.text
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/templates"
    for screen in (console.get(f"{base}/{made.json['id']}").text, console.get(base).text):
        assert "Twitter" not in screen and "should_tweet" not in screen
    answer = console.post(
        f"{base}/{made.json['id']}",
        [("template[name]", "Outage"), ("template[title]", "Outage"), ("template[body]", "x")],
    )
    assert answer.status == 303
    (template,) = _templates(world)
    assert (template["body"], template["should_tweet"]) == ("x", True)


def test_a_template_naming_another_pages_component_is_refused_with_the_field(
    console, make_user, world, make_world
):
    other = make_world("Other")
    foreign = _component(other, "Theirs")
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/templates")
    answer = console.post(
        f"/manage/pages/{world.page_id}/templates/new",
        {
            "template[name]": "Mine",
            "template[title]": "Mine",
            "template[component_ids][]": foreign,
        },
    )
    assert answer.status == 422  # the templates screen again, its problem in words
    assert "<li>One of the components is not a component of this page</li>" in answer.text
    assert "Add the template</button>" in answer.text
    blank = console.post(
        f"/manage/pages/{world.page_id}/templates/new",
        {"template[name]": "", "template[title]": "x"},
    )
    assert blank.status == 422
    assert _templates(world) == []


def test_without_incident_manager_templates_are_listed_but_not_changed(console, make_user, world):
    created = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {"template": {"name": "Kept", "title": "Kept"}},
    ).json
    console.sign_in(make_user({"page_configuration": True}))
    base = f"/manage/pages/{world.page_id}/templates"
    listed = console.get(base).text
    assert "Kept" in listed
    assert "Add a template" not in listed and "/delete" not in listed
    assert console.get(f"{base}/{created['id']}").status == 403
    assert console.post(f"{base}/new", {"template[name]": "X", "template[title]": "X"}).status == (
        403
    )
    assert console.post(f"{base}/{created['id']}/delete", {}).status == 403
    assert [t["name"] for t in _templates(world)] == ["Kept"]
