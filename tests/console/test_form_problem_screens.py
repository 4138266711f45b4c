"""Every console form that can be refused shows its own screen again (issue 50, item 8): the
problem in words beside its field and above the form, what was typed kept, nothing saved;
never the error page ("Please check the form / Unprocessable entity") with the API's field
names. New incidents, maintenances, components and subscribers are tested beside their
screens; these are the others."""

import re

from tests.public.conftest import make_component, make_incident


def _refused(answer, heading: str) -> str:
    """The screen shown again: its own heading, the problems above the form, no API names."""
    assert answer.status == 422, answer.text
    text = answer.text
    assert f"<h1>{heading}</h1>" in text, text
    assert "<strong>Please check the form.</strong> Nothing was saved." in text
    assert "Unprocessable" not in text and "Back to the console" not in text
    return text


def _beside(text: str, field_id: str) -> str:
    """The problem shown beside the field, which points at it."""
    assert f'id="{field_id}" ' in text or f'id="{field_id}"' in text
    assert f'aria-invalid="true" aria-describedby="{field_id}-problem"' in text, field_id
    found = re.search(rf'<p class="problem" id="{re.escape(field_id)}-problem">([^<]*)</p>', text)
    assert found, field_id
    return found.group(1)


def test_an_incident_edit_refused_keeps_what_was_typed(console, make_user, world):
    incident = make_incident(world, "Checkout errors")
    console.sign_in(make_user())
    edit = f"/manage/pages/{world.page_id}/incidents/{incident['id']}/edit"
    console.get(edit)
    answer = console.post(edit, {"incident[name]": "   ", "incident[impact_override]": "loud"})
    text = _refused(answer, "Edit the incident")
    assert "The impact " in text  # in words, above the form
    assert "impact_override" not in text.split("<form", 1)[0]
    assert world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident['id']}").json["name"] == (
        "Checkout errors"
    )


def test_an_update_text_left_empty_is_refused_beside_it(console, make_user, world):
    incident = make_incident(world, "Checkout errors")
    update_id = incident["incident_updates"][0]["id"]
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/incidents/{incident['id']}/edit")
    answer = console.post(
        f"/manage/pages/{world.page_id}/incidents/{incident['id']}/updates/{update_id}",
        {"incident_update[body]": ""},
    )
    text = _refused(answer, "Edit the incident")
    assert _beside(text, f"update-{update_id}") == "The message cannot be empty"


def test_a_component_edit_refused_keeps_what_was_typed(console, make_user, world):
    component = make_component(world, "API")
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/components/{component['id']}"
    console.get(path)
    answer = console.post(
        path,
        {
            "component[name]": "API <v2>",
            "component[description]": "Kept",
            "component[start_date]": "2026-02-30",
            "component[group_id]": "",
        },
    )
    text = _refused(answer, "API")
    assert _beside(text, "component-start-date").startswith("The start date ")
    assert 'value="API &lt;v2&gt;"' in text and ">Kept</textarea>" in text
    assert world.api.get(f"/v1/pages/{world.page_id}/components/{component['id']}").json[
        "name"
    ] == ("API")


def test_a_group_without_members_is_refused_in_its_form(console, make_user, world):
    make_component(world, "API")
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/components"
    console.get(screen)
    answer = console.post(
        f"/manage/pages/{world.page_id}/groups/new",
        [("component_group[name]", "Core <g>"), ("component_group[components][]", "")],
    )
    text = _refused(answer, "Components")
    assert "<li>The components " in text
    assert 'value="Core &lt;g&gt;"' in text


def test_settings_refused_keep_what_was_typed(console, make_user, world):
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/settings"
    console.get(path)
    answer = console.post(
        path,
        [
            ("page[name]", "Renamed <page>"),
            ("page[url]", "not a url"),
            ("page[page_description]", "Kept <text>"),
            ("page[time_zone]", "Europe/Paris"),
            ("page[allow_sms_subscribers]", "false"),
            ("page[css_blues]", "#123456"),
        ],
    )
    text = _refused(answer, "Settings and branding")
    assert _beside(text, "page-url").startswith("The address ")
    assert 'value="Renamed &lt;page&gt;"' in text and 'value="not a url"' in text
    assert ">Kept &lt;text&gt;</textarea>" in text
    assert "<option selected>Europe/Paris</option>" in text and 'value="#123456"' in text
    assert 'name="page[allow_sms_subscribers]" value="true">' in text  # left unchecked


def test_a_user_refused_keeps_what_was_typed(console, make_user, world):
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/team"
    console.get(path)
    answer = console.post(
        f"{path}/new",
        {"user[email]": "jane@@example", "user[first_name]": "Jane", "user[last_name]": "Doe"},
    )
    text = _refused(answer, "Team")
    assert _beside(text, "user-email").startswith("The email address ")
    assert 'value="jane@@example"' in text and 'value="Jane"' in text


def test_a_template_refused_keeps_what_was_typed(console, make_user, world):
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/templates"
    console.get(path)
    answer = console.post(
        f"{path}/new", {"template[name]": "", "template[title]": "Kept", "template[body]": "Body"}
    )
    text = _refused(answer, "Incident templates")
    assert _beside(text, "template-name") == "The name cannot be empty"
    assert 'value="Kept"' in text and ">Body</textarea>" in text


def test_a_metric_refused_keeps_what_was_typed(console, make_user, world):
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/metrics"
    console.get(path)
    answer = console.post(
        f"{path}/new",
        {
            "metrics_provider_id": f"{world.page_id}self",
            "metric[name]": "",
            "metric[suffix]": " ms",
        },
    )
    text = _refused(answer, "Metrics")
    assert _beside(text, "metric-name") == "The name cannot be empty"
    assert 'value=" ms"' in text


def test_a_check_refused_keeps_what_was_typed(console, make_user, world):
    from tests.console.test_check_screens import _form as check_form

    shop = make_component(world, "Shop")["id"]
    console.sign_in(make_user())
    new = f"/manage/pages/{world.page_id}/components/{shop}/checks/new"
    console.get(new)
    answer = console.post(new, check_form("https://shop.example.com/health", timeout="999"))
    assert answer.status == 422, answer.text
    text = answer.text
    assert "<strong>Please check the form.</strong>" in text
    assert 'value="https://shop.example.com/health"' in text and 'value="999"' in text
    assert 'aria-describedby="check-timeout-problem"' in text


def test_an_integration_refused_keeps_what_was_typed(console, make_user, world):
    from tests.console.test_integration_screens import _form as integration_form

    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}/integrations"
    console.get(screens)
    answer = console.post(
        f"{screens}/new", integration_form(name="Prometheus", hold_minutes="soon")
    )
    text = _refused(answer, "Monitoring")
    assert 'value="Prometheus"' in text and 'value="soon"' in text
    assert 'aria-describedby="integration-hold-problem"' in text
