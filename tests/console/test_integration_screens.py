"""Monitoring in the console (issue 34): integrations created with every field the API takes,
their URL shown once with the configuration to paste, edited, deleted and given a new URL
after a confirmation; the automation events in the page's zone; all under
`page_configuration`, the events for anyone of the page."""

import html
import re
from urllib.parse import urlsplit

from tests.alert_payloads import ALERTMANAGER_FIRING, with_labels
from tests.api.test_integrations import make_component as _component

_URL = re.compile(r'id="receiver-url" readonly value="([^"]+)"')


def _api(world, path: str = "") -> str:
    return f"/v1/pages/{world.page_id}{path}"


def _template(world, name: str) -> str:
    body = {"template": {"name": name, "title": "Checkout is down", "body": "Looking into it."}}
    answer = world.api.post(_api(world, "/incident_templates"), body)
    assert answer.status == 201, answer.text
    return answer.json["id"]


def _integrations(world) -> list[dict]:
    return world.api.get(_api(world, "/integrations")).json


def _url_shown(answer) -> str:
    found = _URL.search(answer.text)
    assert found, answer.text
    return html.unescape(found.group(1))


def _post_alerts(world, url: str, payload) -> int:
    """A post as monitoring makes it: to the URL alone, with no API key."""
    return world.api.as_key(None).post(urlsplit(url).path, payload).status


def _status(world, component_id: str) -> str:
    return world.api.get(_api(world, f"/components/{component_id}")).json["status"]


def _form(**fields) -> list[tuple[str, str]]:
    """An integration form as the screen posts it: two rule rows, two severity rows."""
    pairs = [
        ("integration[kind]", fields.get("kind", "alertmanager")),
        ("integration[name]", fields.get("name", "")),
    ]
    for match, component_id in fields.get("rules", [("", ""), ("", "")]):
        pairs += [
            ("integration[rules][][match]", match),
            ("integration[rules][][component_id]", component_id),
        ]
    for severity, status in fields.get("severities", [("", "major_outage"), ("", "major_outage")]):
        pairs += [
            ("integration[severities][][severity]", severity),
            ("integration[severities][][status]", status),
        ]
    pairs += [
        ("integration[hold_minutes]", fields.get("hold_minutes", "60")),
        ("integration[min_firing_seconds]", fields.get("min_firing_seconds", "0")),
        ("integration[expire_after_minutes]", fields.get("expire_after_minutes", "")),
        ("integration[rate_limit_per_minute]", fields.get("rate_limit_per_minute", "120")),
        ("integration[incident_template_id]", fields.get("incident_template_id", "")),
        ("integration[resolve_incident]", "false"),
    ]
    if fields.get("resolve_incident"):
        pairs.append(("integration[resolve_incident]", "true"))
    return pairs


def test_an_integration_made_by_clicks_holds_every_field_and_shows_its_url_once(
    console, make_user, world
):
    shop = _component(world, "Shop")
    template_id = _template(world, "Checkout down")
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    listed = console.get(f"{screens}/integrations")
    assert "Add an integration" in listed.text and "Monitoring</a>" in listed.text
    made = console.post(
        f"{screens}/integrations/new",
        _form(
            name="Prometheus",
            rules=[("instance=https://shop.example.com\njob = web", shop), ("", "")],
            severities=[("P1", "major_outage"), ("", "degraded_performance")],
            hold_minutes="30",
            min_firing_seconds="90",
            expire_after_minutes="20",
            rate_limit_per_minute="600",
            incident_template_id=template_id,
            resolve_incident=True,
        ),
    )
    assert made.status == 200, made.text
    url = _url_shown(made)
    assert "shown only this once" in made.text
    assert "webhook_configs:" in made.text and f"- url: {html.escape(url)}" in made.text
    assert "send_resolved: true" in made.text
    (stored,) = _integrations(world)
    assert stored["kind"] == "alertmanager" and stored["name"] == "Prometheus"
    assert stored["rules"] == [
        {"match": {"instance": "https://shop.example.com", "job": "web"}, "component_id": shop}
    ]
    assert stored["severities"] == {"p1": "major_outage"}
    assert (stored["hold_minutes"], stored["min_firing_seconds"]) == (30, 90)
    assert stored["expire_after_minutes"] == 20
    assert stored["rate_limit_per_minute"] == 600
    assert stored["incident_template_id"] == template_id and stored["resolve_incident"] is True

    again = console.get(f"{screens}/integrations").text
    token = urlsplit(url).path.split("/")[3]
    assert token not in again  # kept only as a hash: never shown again
    assert "instance=https://shop.example.com" in again and "to Shop" in again
    assert "30 minutes" in again and "90 seconds" in again and "600 posts a minute" in again
    assert "from the template Checkout down" in again
    assert "Yes, once every alert has resolved" in again

    firing = with_labels(ALERTMANAGER_FIRING, instance="https://shop.example.com", job="web")
    answer = world.api.as_key(None).post(urlsplit(url).path, firing)
    assert answer.status == 200, answer.text
    # The rule named Shop; held for min_firing_seconds before it moves.
    assert [each["component_id"] for each in answer.json["components"]] == [shop]
    assert "min_firing_seconds" in answer.json["components"][0]["reason"]


def test_each_kind_shows_the_configuration_to_paste(console, make_user, world):
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    console.get(f"{screens}/integrations")
    grafana = console.post(f"{screens}/integrations/new", _form(kind="grafana"))
    assert "contactPoints:" in grafana.text and "type: webhook" in grafana.text
    assert f"url: {html.escape(_url_shown(grafana))}" in grafana.text
    generic = console.post(f"{screens}/integrations/new", _form(kind="generic"))
    assert f"curl -X POST {html.escape(_url_shown(generic))}" in generic.text
    assert "Authorization: Bearer" in generic.text and "/v1/integrations/alerts" in generic.text


def test_a_new_url_after_a_confirmation_and_the_old_one_stops_working(console, make_user, world):
    api = _component(world, "API")
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    console.get(f"{screens}/integrations")
    old_url = _url_shown(console.post(f"{screens}/integrations/new", _form(kind="generic")))
    (integration,) = _integrations(world)
    one = f"{screens}/integrations/{integration['id']}"

    confirm = console.get(f"{one}/rotate")
    assert confirm.status == 200 and "stops working at once" in confirm.text
    assert _post_alerts(world, old_url, {"component": "API", "status": "partial_outage"}) == 200
    rotated = console.post(f"{one}/rotate", {})
    assert rotated.status == 200 and "New URL made" in rotated.text
    new_url = _url_shown(rotated)
    assert new_url != old_url
    assert _post_alerts(world, old_url, {"component": "API", "status": "major_outage"}) == 404
    assert _post_alerts(world, new_url, {"component": "API", "status": "major_outage"}) == 200
    assert _status(world, api) == "major_outage"


def test_an_integration_is_edited_and_deleted_after_a_confirmation(console, make_user, world):
    shop = _component(world, "Shop")
    made = world.api.post(
        _api(world, "/integrations"),
        {
            "integration": {
                "kind": "alertmanager",
                "name": "Prometheus",
                "rules": [{"match": {"job": "web"}, "component_id": shop}],
                "severities": {"p1": "major_outage"},
            }
        },
    ).json
    console.sign_in(make_user())
    one = f"/manage/pages/{world.page_id}/integrations/{made['id']}"
    form = console.get(one).text
    assert 'value="Prometheus"' in form and ">job=web</textarea>" in form
    assert 'value="p1"' in form
    saved = console.post(
        one,
        _form(
            kind="grafana",
            name="Grafana",
            rules=[("job=web", ""), ("", "")][1:],  # the rule's row left blank: no rules
            severities=[("p1", "major_outage"), ("sev2", "partial_outage")],
            hold_minutes="",  # blank: as it was
            min_firing_seconds="15",
        ),
    )
    assert saved.status == 303, saved.text
    assert "Integration+saved" in saved.headers["location"]
    (stored,) = _integrations(world)
    assert (stored["kind"], stored["name"], stored["rules"]) == ("grafana", "Grafana", [])
    assert stored["severities"] == {"p1": "major_outage", "sev2": "partial_outage"}
    assert (stored["hold_minutes"], stored["min_firing_seconds"]) == (60, 15)
    assert stored["expire_after_minutes"] == 15  # blank: the kind's default

    confirm = console.get(f"{one}/delete")
    assert confirm.status == 200 and "Delete the integration Grafana" in confirm.text
    assert _integrations(world)  # nothing deleted before the confirmation
    deleted = console.post(f"{one}/delete", {})
    assert deleted.status == 303
    assert "Integration deleted" in console.get(deleted.headers["location"]).text
    assert _integrations(world) == []


def test_bad_integration_input_is_a_form_problem_and_changes_nothing(console, make_user, world):
    shop = _component(world, "Shop")
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    console.get(f"{screens}/integrations")
    no_equals = console.post(f"{screens}/integrations/new", _form(rules=[("just-a-label", shop)]))
    assert no_equals.status == 422 and "label=value" in no_equals.text
    no_component = console.post(f"{screens}/integrations/new", _form(rules=[("job=web", "")]))
    assert no_component.status == 422 and "rules" in no_component.text
    too_long = console.post(f"{screens}/integrations/new", _form(hold_minutes="99999999"))
    assert too_long.status == 422 and "hold_minutes" in too_long.text
    unknown_kind = console.post(f"{screens}/integrations/new", _form(kind="nagios"))
    assert unknown_kind.status == 422 and "kind" in unknown_kind.text
    assert _integrations(world) == []


def test_integrations_need_page_configuration_and_a_csrf_token(console, make_user, world):
    made = world.api.post(_api(world, "/integrations"), {"integration": {"kind": "generic"}}).json
    screens = f"/manage/pages/{world.page_id}"
    console.sign_in(make_user())
    console.get(f"{screens}/integrations")
    forged = console.post(f"{screens}/integrations/new", _form(), csrf=False)
    assert forged.status == 403

    other = type(console)(console.client)
    other.sign_in(make_user({"incident_manager": True, "page_configuration": False}))
    shown = other.get(f"{screens}/integrations")
    assert shown.status == 200 and "page configuration role" in shown.text
    assert "<form" not in shown.text.split("<main", 1)[1] and made["id"] not in shown.text
    one = f"{screens}/integrations/{made['id']}"
    assert other.get(one).status == 403
    assert other.get(f"{one}/rotate").status == 403
    assert other.post(f"{screens}/integrations/new", _form()).status == 403
    assert other.post(one, _form(name="Taken")).status == 403
    assert other.post(f"{one}/rotate", {}).status == 403
    assert other.post(f"{one}/delete", {}).status == 403
    assert [each["name"] for each in _integrations(world)] == [""]


def test_automation_events_show_in_the_page_zone_with_what_was_done(console, make_user, world):
    zone = {"page": {"time_zone": "America/New_York"}}
    assert world.api.patch(_api(world), zone).status == 200
    api = _component(world, "API")
    made = world.api.post(
        _api(world, "/integrations"),
        {"integration": {"kind": "generic", "name": "Probe", "min_firing_seconds": 0}},
    ).json
    nowhere = {"component": "Nowhere", "status": "major_outage"}
    assert _post_alerts(world, made["url"], nowhere) == 202
    assert _post_alerts(world, made["url"], {"component": "API", "status": "major_outage"}) == 200
    world.api.patch(_api(world, f"/components/{api}"), {"component": {"status": "operational"}})
    assert _post_alerts(world, made["url"], {"component": "API", "status": "partial_outage"}) == 200

    console.sign_in(make_user({"incident_manager": True, "page_configuration": False}))
    events = console.get(f"/manage/pages/{world.page_id}/automation_events")
    assert events.status == 200
    text = events.text
    assert "America/New_York" in text and re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d E[SD]T", text)
    assert "Generic JSON: Probe" in text
    assert "no component matched" in text
    assert "Set to Major Outage (was Operational)" in text
    assert "Wanted Partial Outage: set by hand at" in text
    rows = text.split("<tbody>", 1)[1]
    assert rows.index("Partial Outage") < rows.index("no component matched")  # newest first
