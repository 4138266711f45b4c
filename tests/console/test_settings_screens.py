"""A page's settings in the console: saved as the API's page update saves them (seen on the
public page), previewed without saving, refused without the role or a CSRF token."""

import re

import pytest


@pytest.fixture
def settings(world):
    return f"/manage/pages/{world.page_id}/settings"


def _form(**changes) -> dict:
    return {f"page[{name}]": value for name, value in changes.items()}


def test_saved_settings_show_on_the_public_page(console, make_user, world, settings):
    console.sign_in(make_user())
    shown = console.get(settings)
    assert shown.status == 200 and 'value="Acme"' in shown.text
    answer = console.post(
        settings,
        _form(
            name="Acme <Cloud>",
            headline="All systems, all the time",
            css_greens="#0b7a3b",
            time_zone="Europe/Paris",
            allow_sms_subscribers="false",
            support_url="",
        ),
    )
    assert answer.status == 303 and "done=Settings+saved" in answer.headers["location"]
    page = world.api.get(f"/v1/pages/{world.page_id}").json
    assert (page["name"], page["time_zone"], page["css_greens"]) == (
        "Acme <Cloud>",
        "Europe/Paris",
        "#0b7a3b",
    )
    assert page["allow_sms_subscribers"] is False and page["allow_email_subscribers"] is True
    public = console.get(f"/s/{world.page_id}").text
    assert "Acme &lt;Cloud&gt;" in public and "All systems, all the time" in public
    assert "--greens: #0b7a3b" in public


def test_a_preview_renders_the_public_page_and_saves_nothing(console, make_user, world, settings):
    console.sign_in(make_user())
    console.get(settings)
    preview = console.post(
        f"{settings}/preview", _form(name="Preview <b>name</b>", css_greens="#123456")
    )
    assert preview.status == 200
    assert "Preview &lt;b&gt;name&lt;/b&gt;" in preview.text and "--greens: #123456" in preview.text
    # Framed by the console only, and running no script but the public page's own (its hash).
    policy = preview.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in policy
    assert re.search(r"script-src 'sha256-[^' ]+';", policy), policy
    assert preview.headers["x-frame-options"] == "SAMEORIGIN"
    assert world.api.get(f"/v1/pages/{world.page_id}").json["name"] == "Acme"
    saved = console.get(f"{settings}/preview")
    assert saved.status == 200 and "Acme" in saved.text and "#123456" not in saved.text


def test_bad_settings_are_refused_as_the_api_refuses_them(console, make_user, world, settings):
    console.sign_in(make_user())
    console.get(settings)
    for changes in ({"css_greens": "green"}, {"time_zone": "Mars/Olympus"}, {"name": " "}):
        refused = console.post(settings, _form(**changes))
        assert refused.status == 422, changes
        assert "Please check the form" in refused.text
        assert console.post(f"{settings}/preview", _form(**changes)).status == 422
    assert world.api.get(f"/v1/pages/{world.page_id}").json["name"] == "Acme"


def test_settings_need_page_configuration_and_a_csrf_token(console, make_user, world, settings):
    console.sign_in(make_user({"incident_manager": True}))
    assert console.get(settings).status == 403
    console.get(f"/manage/pages/{world.page_id}")
    assert console.post(settings, _form(name="Taken over")).status == 403
    assert console.post(f"{settings}/preview", _form(name="Taken over")).status == 403

    owner = type(console)(console.client)
    owner.sign_in(make_user())
    owner.get(settings)
    assert owner.post(settings, _form(name="Taken over"), csrf=False).status == 403
    assert world.api.get(f"/v1/pages/{world.page_id}").json["name"] == "Acme"


def test_the_console_runs_only_its_own_script(console, make_user, world, settings):
    console.sign_in(make_user())
    policy = console.get(settings).headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-src 'self'" in policy
    assert "'unsafe-inline'" not in policy and "frame-ancestors 'none'" in policy
    assert '<script src="/manage/console.js" defer></script>' in console.last.text
    script = console.get("/manage/console.js")
    assert script.status == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "requestSubmit" in script.text


def test_markdown_previews_are_sanitized(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}")
    answer = console.post("/manage/markdown", {"text": "*fine* <script>alert(1)</script>"})
    assert answer.status == 200 and "<em>fine</em>" in answer.text
    assert "<script>alert" not in answer.text
    assert console.post("/manage/markdown", {"text": "x"}, csrf=False).status == 403


def test_a_colour_below_aa_is_saved_and_the_settings_warn_of_it(
    console, make_user, world, settings
):
    console.sign_in(make_user())
    assert 'id="color-warnings"' not in console.get(settings).text  # the default palette
    answer = console.post(settings, _form(css_yellows="#f1c40f"))
    assert answer.status == 303
    assert world.api.get(f"/v1/pages/{world.page_id}").json["css_yellows"] == "#f1c40f"
    shown = console.get(answer.headers["location"]).text
    assert 'id="color-warnings"' in shown
    assert (
        "Degraded (yellow) (#f1c40f) has a contrast of 1.66:1 on the background (#ffffff); "
        "WCAG AA asks 4.5:1 for text."
    ) in shown
