"""Alert integrations (issue 34): monitoring posts Alertmanager's, Grafana's or a generic
payload to an integration's URL, and the page's components follow, within the rules that keep
people in charge."""

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from chalicelib import clock
from chalicelib.domain.components import MAX_COMPONENTS_PER_PAGE
from tests.alert_payloads import (
    ALERTMANAGER_FIRING,
    ALERTMANAGER_INSTANCE,
    ALERTMANAGER_RESOLVED,
    GRAFANA_FIRING,
    GRAFANA_RESOLVED,
    with_labels,
)
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.usefixtures("quick_retries")


@pytest.fixture
def tick(http):
    """The every-minute function, as EventBridge invokes it: the holds that end and the
    alerts that expire are its to apply (and what it uses of AWS is recorded as its own)."""

    def run():
        event = http.events.generate_cw_event(
            source="aws.events", detail_type="Scheduled Event", detail={}, resources=[]
        )
        http.lambda_.invoke("every_minute", event)

    return run


def make_component(world, name="API", **fields):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json["id"]


def make_integration(world, kind="generic", **fields):
    """An integration that applies a status at once (`min_firing_seconds` 0) unless told."""
    fields.setdefault("min_firing_seconds", 0)
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/integrations", {"integration": {"kind": kind, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def post_alerts(world, url, payload, headers=None):
    """A post as monitoring makes it: to the URL alone, with no API key."""
    return world.api.as_key(None).post(urlsplit(url).path, payload, headers=headers)


def status_of(world, component_id):
    return world.api.get(f"/v1/pages/{world.page_id}/components/{component_id}").json["status"]


def set_status(world, component_id, status):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/components/{component_id}",
        {"component": {"status": status}},
    )
    assert answer.status == 200, answer.text


def audit(world):
    answer = world.api.get(f"/v1/pages/{world.page_id}/automation_events")
    assert answer.status == 200, answer.text
    return answer.json


def later(minutes=0, seconds=0):
    """The service's clock moved on from now (released by `freeze_clock` after the test)."""
    moment = datetime.now(UTC) + timedelta(minutes=minutes, seconds=seconds)
    clock.freeze(moment)
    return moment


def webhook_subscriber(world, url):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"endpoint": url, "email": "ops@example.com"}},
    )
    assert answer.status == 201, answer.text


def component_updates(sink):
    return [
        (d["json"]["component_update"]["component_id"], d["json"]["component_update"]["new_status"])
        for d in sink.received
        if "component_update" in d["json"]
    ]


# --- Item 1: managing integrations -------------------------------------------------------


def test_creating_an_integration_answers_a_url_that_carries_an_unguessable_token(world):
    first = make_integration(world, "alertmanager", name="Prometheus")
    second = make_integration(world, "grafana")
    for made in (first, second):
        assert made["url"].startswith("http://127.0.0.1:8000/v1/integrations/")
        assert made["url"].endswith("/alerts")
    tokens = [urlsplit(made["url"]).path.split("/")[3] for made in (first, second)]
    assert tokens[0] != tokens[1] and all(len(token) >= 40 for token in tokens)
    assert first["kind"] == "alertmanager" and first["name"] == "Prometheus"
    assert (first["hold_minutes"], first["min_firing_seconds"]) == (60, 0)
    assert (first["expire_after_minutes"], first["rate_limit_per_minute"]) == (15, 600)

    # Only a hash of the token is kept: reading an integration cannot show it again.
    path = f"/v1/pages/{world.page_id}/integrations/{first['id']}"
    shown = world.api.get(path).json
    assert shown["url"] is None and tokens[0] not in world.api.get(path).text
    listed = world.api.get(f"/v1/pages/{world.page_id}/integrations").json
    assert {one["id"] for one in listed} == {first["id"], second["id"]}


def test_integrations_are_updated_and_deleted_through_the_api(world):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager")
    path = f"/v1/pages/{world.page_id}/integrations/{made['id']}"
    changed = world.api.patch(
        path,
        {
            "integration": {
                "hold_minutes": 5,
                "severities": {"P1": "major_outage"},
                "rules": [{"match": {"service": "api"}, "component_id": component_id}],
            }
        },
    )
    assert changed.status == 200, changed.text
    assert changed.json["hold_minutes"] == 5
    assert changed.json["severities"] == {"p1": "major_outage"}
    assert changed.json["rules"] == [{"match": {"service": "api"}, "component_id": component_id}]
    assert world.api.delete(path).status == 200
    assert world.api.get(path).status == 404
    assert post_alerts(world, made["url"], ALERTMANAGER_FIRING).status == 404


def test_integration_settings_that_name_what_is_not_the_pages_are_422(world):
    path = f"/v1/pages/{world.page_id}/integrations"
    for body, field in (
        ({}, "kind"),
        ({"kind": "nagios"}, "kind"),
        ({"kind": "generic", "rules": [{"match": {"a": "b"}, "component_id": "nosuch"}]}, "rules"),
        ({"kind": "generic", "severities": {"p1": "operational"}}, "severities.p1"),
        ({"kind": "generic", "incident_template_id": "nosuch"}, "incident_template_id"),
        ({"kind": "generic", "hold_minutes": -1}, "hold_minutes"),
    ):
        answer = world.api.post(path, {"integration": body})
        assert answer.status == 422, (body, answer.text)
        assert field in answer.json["errors"], (body, answer.json)


def test_only_page_configuration_manages_integrations(world):
    from chalicelib.domain import organizations

    made = make_integration(world)
    member = organizations.create_user(world.organization_id, "incidents@example.com")
    organizations.set_page_roles(
        member, {world.page_id: {"incident_manager": True, "page_configuration": False}}
    )
    member_api = world.api.as_key(organizations.create_api_key(member))
    path = f"/v1/pages/{world.page_id}/integrations"
    assert member_api.get(path).status == 403
    assert member_api.post(path, {"integration": {"kind": "generic"}}).status == 403
    assert member_api.patch(f"{path}/{made['id']}", {"integration": {"name": "x"}}).status == 403
    assert member_api.post(f"{path}/{made['id']}/rotate_token").status == 403
    assert member_api.delete(f"{path}/{made['id']}").status == 403


def test_another_organizations_integrations_do_not_exist_for_a_caller(world, make_world):
    theirs = make_world("Theirs")
    made = make_integration(theirs)
    path = f"/v1/pages/{theirs.page_id}/integrations/{made['id']}"
    assert world.api.get(path).status == 404
    assert world.api.delete(path).status == 404


def test_the_openapi_document_lists_the_integration_routes_and_bodies(world):
    document = world.api.get("/v1/openapi.json").json
    assert "post" in document["paths"]["/v1/pages/{page_id}/integrations"]
    assert "patch" in document["paths"]["/v1/pages/{page_id}/integrations/{integration_id}"]
    assert "/v1/pages/{page_id}/automation_events" in document["paths"]
    assert "/v1/integrations/{token}/alerts" in document["paths"]
    for schema in ("IntegrationCreate", "IntegrationUpdate", "IntegrationOut"):
        assert schema in document["components"]["schemas"], schema


# --- Items 2 and 3: which component, which status -----------------------------------------


def test_alertmanagers_documented_payload_fires_then_resolves(world):
    component_id = make_component(world, "Website")
    made = make_integration(
        world,
        "alertmanager",
        rules=[{"match": {"instance": ALERTMANAGER_INSTANCE}, "component_id": component_id}],
    )

    fired = post_alerts(world, made["url"], ALERTMANAGER_FIRING)
    assert fired.status == 200, fired.text
    assert fired.json["components"] == [
        {
            "component_id": component_id,
            "status": "major_outage",  # severity: critical
            "changed": True,
            "reason": "set to major_outage",
        }
    ]
    assert status_of(world, component_id) == "major_outage"

    assert post_alerts(world, made["url"], ALERTMANAGER_RESOLVED).status == 200
    assert status_of(world, component_id) == "operational"
    newest, oldest = audit(world)[:2]
    assert (oldest["old_status"], oldest["new_status"], oldest["changed"]) == (
        "operational",
        "major_outage",
        True,
    )
    assert oldest["detail"] == "1a30ba71cca2921f firing"
    assert (newest["source_kind"], newest["source_id"]) == ("alertmanager", made["id"])
    assert newest["detail"] == "1a30ba71cca2921f resolved"
    assert (newest["new_status"], newest["changed"]) == ("operational", True)


def test_grafanas_documented_payload_fires_then_resolves_per_zone(world):
    us = make_component(world, "US")
    eu = make_component(world, "EU")
    made = make_integration(
        world,
        "grafana",
        rules=[
            {"match": {"zone": "us-1"}, "component_id": us},
            {"match": {"zone": "eu-1"}, "component_id": eu},
        ],
    )
    assert post_alerts(world, made["url"], GRAFANA_FIRING).status == 200
    # No severity label: degraded performance.
    assert (status_of(world, us), status_of(world, eu)) == (
        "degraded_performance",
        "degraded_performance",
    )
    assert post_alerts(world, made["url"], GRAFANA_RESOLVED).status == 200
    assert (status_of(world, us), status_of(world, eu)) == ("operational", "operational")


def test_the_component_label_names_a_component_by_id_or_by_name(world):
    by_name = make_component(world, "Checkout API")
    by_id = make_component(world, "Search")
    made = make_integration(world, "alertmanager")
    post_alerts(world, made["url"], with_labels(ALERTMANAGER_FIRING, component="checkout api"))
    assert status_of(world, by_name) == "major_outage"
    payload = with_labels(ALERTMANAGER_FIRING, component_id=by_id, severity="error")
    payload["alerts"][0]["fingerprint"] = "another"
    post_alerts(world, made["url"], payload)
    assert status_of(world, by_id) == "partial_outage"


@pytest.mark.parametrize(
    "severity, status",
    [
        ("critical", "major_outage"),
        ("page", "major_outage"),
        ("error", "partial_outage"),
        ("major", "partial_outage"),
        ("warning", "degraded_performance"),
        ("minor", "degraded_performance"),
        ("info", "degraded_performance"),
    ],
)
def test_the_severity_label_sets_the_status(world, severity, status):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager")
    payload = with_labels(ALERTMANAGER_FIRING, component=component_id, severity=severity)
    post_alerts(world, made["url"], payload)
    assert status_of(world, component_id) == status


def test_an_integrations_own_severities_come_before_the_defaults(world):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager", severities={"critical": "partial_outage"})
    post_alerts(world, made["url"], with_labels(ALERTMANAGER_FIRING, component=component_id))
    assert status_of(world, component_id) == "partial_outage"


def test_the_worst_firing_alert_wins_until_the_last_one_resolves(world):
    component_id = make_component(world)
    made = make_integration(world, "grafana")
    warning = with_labels(GRAFANA_FIRING, component=component_id)
    warning["alerts"] = warning["alerts"][:1]
    critical = with_labels(GRAFANA_FIRING, component=component_id, severity="critical")
    critical["alerts"] = critical["alerts"][1:]

    post_alerts(world, made["url"], warning)
    assert status_of(world, component_id) == "degraded_performance"
    post_alerts(world, made["url"], critical)  # another post: the firing alerts are kept
    assert status_of(world, component_id) == "major_outage"
    post_alerts(world, made["url"], warning)  # still firing, and not the worst
    assert status_of(world, component_id) == "major_outage"

    critical_resolved = {**critical, "alerts": [{**critical["alerts"][0], "status": "resolved"}]}
    post_alerts(world, made["url"], critical_resolved)
    assert status_of(world, component_id) == "degraded_performance"
    warning_resolved = {**warning, "alerts": [{**warning["alerts"][0], "status": "resolved"}]}
    post_alerts(world, made["url"], warning_resolved)
    assert status_of(world, component_id) == "operational"


def test_a_generic_post_names_a_component_and_a_status_one_object_or_a_list(world):
    api = make_component(world, "API")
    web = make_component(world, "Web")
    made = make_integration(world, "generic")
    answer = post_alerts(world, made["url"], {"component_id": api, "status": "partial_outage"})
    assert answer.status == 200, answer.text
    assert status_of(world, api) == "partial_outage"
    answer = post_alerts(
        world,
        made["url"],
        [
            {"component_id": api, "status": "operational"},
            {"component": "web", "status": "major_outage"},
        ],
    )
    assert answer.status == 200, answer.text
    assert (status_of(world, api), status_of(world, web)) == ("operational", "major_outage")


# --- Item 4: people come first --------------------------------------------------------------


def test_a_status_set_by_hand_holds_for_hold_minutes(world, freeze_clock, tick):
    component_id = make_component(world)
    set_status(world, component_id, "operational")
    set_status(world, component_id, "degraded_performance")  # a person's call
    # Not expired by the tick that ends the hold (Alertmanager re-sends it meanwhile).
    made = make_integration(world, "alertmanager", hold_minutes=30, expire_after_minutes=60)
    payload = with_labels(ALERTMANAGER_FIRING, component=component_id)

    answer = post_alerts(world, made["url"], payload)
    assert answer.status == 200
    (outcome,) = answer.json["components"]
    assert outcome["changed"] is False and outcome["reason"].startswith("set by hand at ")
    assert status_of(world, component_id) == "degraded_performance"
    assert audit(world)[0]["reason"] == outcome["reason"]

    # Once the hold is over, the alert still firing takes the component at the next tick.
    later(minutes=31)
    tick()
    assert status_of(world, component_id) == "major_outage"


def test_an_open_incident_holds_its_components(world):
    component_id = make_component(world)
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "We are on it", "component_ids": [component_id]}},
    )
    made = make_integration(world, "alertmanager", hold_minutes=0)
    answer = post_alerts(
        world, made["url"], with_labels(ALERTMANAGER_FIRING, component=component_id)
    )
    assert answer.json["components"][0]["reason"] == "held by an open incident"
    assert status_of(world, component_id) == "operational"


def test_under_maintenance_stays_under_maintenance(world):
    component_id = make_component(world)
    set_status(world, component_id, "under_maintenance")
    made = make_integration(world, "alertmanager", hold_minutes=0)
    answer = post_alerts(
        world, made["url"], with_labels(ALERTMANAGER_FIRING, component=component_id)
    )
    assert answer.json["components"][0]["reason"] == "under maintenance"
    assert status_of(world, component_id) == "under_maintenance"


def test_a_component_set_by_automation_is_not_held_against_automation(world):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager")
    payload = with_labels(ALERTMANAGER_FIRING, component=component_id)
    post_alerts(world, made["url"], payload)
    post_alerts(world, made["url"], with_labels(ALERTMANAGER_RESOLVED, component=component_id))
    assert status_of(world, component_id) == "operational"


# --- Item 5: no flapping, and notifications as for a manual change --------------------------


def test_an_automation_change_notifies_subscribers_as_a_manual_change_does(world, drain):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager")
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        drain()
        post_alerts(world, made["url"], with_labels(ALERTMANAGER_FIRING, component=component_id))
        post_alerts(world, made["url"], with_labels(ALERTMANAGER_RESOLVED, component=component_id))
        drain()
    assert component_updates(sink) == [
        (component_id, "major_outage"),
        (component_id, "operational"),
    ]


def test_a_change_and_its_undo_within_min_firing_seconds_notify_nobody(
    world, drain, freeze_clock, tick
):
    component_id = make_component(world)
    made = make_integration(world, "alertmanager", min_firing_seconds=120)
    firing = with_labels(ALERTMANAGER_FIRING, component=component_id)
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        drain()
        answer = post_alerts(world, made["url"], firing)
        assert answer.json["components"][0]["changed"] is False
        assert "min_firing_seconds" in answer.json["components"][0]["reason"]
        later(seconds=60)
        post_alerts(world, made["url"], with_labels(ALERTMANAGER_RESOLVED, component=component_id))
        later(seconds=200)
        tick()  # nothing left waiting: nothing moves
        drain()
        assert status_of(world, component_id) == "operational"
        assert component_updates(sink) == []

        # An alert that keeps firing for min_firing_seconds lands, with its notification,
        # without being posted again.
        post_alerts(world, made["url"], firing)
        later(seconds=200 + 121)
        tick()
        drain()
    assert status_of(world, component_id) == "major_outage"
    assert component_updates(sink) == [(component_id, "major_outage")]


# --- Item 6: an optional incident -----------------------------------------------------------


def test_a_major_outage_opens_an_incident_from_the_template_and_recovery_resolves_it(world):
    component_id = make_component(world, "Website")
    template = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {"template": {"name": "Outage", "title": "Website down", "body": "Looking into it"}},
    )
    assert template.status == 201, template.text
    made = make_integration(
        world,
        "alertmanager",
        incident_template_id=template.json["id"],
        resolve_incident=True,
        rules=[{"match": {"instance": ALERTMANAGER_INSTANCE}, "component_id": component_id}],
    )
    post_alerts(world, made["url"], ALERTMANAGER_FIRING)
    (incident,) = world.api.get(f"/v1/pages/{world.page_id}/incidents/unresolved").json
    assert incident["name"] == "Website down"
    assert [c["id"] for c in incident["components"]] == [component_id]
    post_alerts(world, made["url"], ALERTMANAGER_FIRING)  # again: no second incident
    assert len(world.api.get(f"/v1/pages/{world.page_id}/incidents/unresolved").json) == 1

    post_alerts(world, made["url"], ALERTMANAGER_RESOLVED)
    assert status_of(world, component_id) == "operational"
    resolved = world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident['id']}").json
    assert resolved["status"] == "resolved"
    assert world.api.get(f"/v1/pages/{world.page_id}/incidents/unresolved").json == []


# --- Item 9 and the token: bad input --------------------------------------------------------


def test_a_rotated_token_stops_working_and_the_new_one_works(world):
    component_id = make_component(world)
    made = make_integration(world)
    rotated = world.api.post(f"/v1/pages/{world.page_id}/integrations/{made['id']}/rotate_token")
    assert rotated.status == 200 and rotated.json["url"] != made["url"]
    body = {"component_id": component_id, "status": "major_outage"}
    assert post_alerts(world, made["url"], body).status == 404
    assert post_alerts(world, rotated.json["url"], body).status == 200


def test_a_bearer_header_carries_the_token_as_well(world):
    component_id = make_component(world)
    made = make_integration(world)
    token = urlsplit(made["url"]).path.split("/")[3]
    body = {"component_id": component_id, "status": "partial_outage"}
    path = "http://127.0.0.1:8000/v1/integrations/alerts"
    assert post_alerts(world, path, body, {"Authorization": f"Bearer {token}"}).status == 200
    assert status_of(world, component_id) == "partial_outage"
    assert post_alerts(world, path, body, {"Authorization": "Bearer wrong"}).status == 404
    assert post_alerts(world, path, body).status == 404


def test_an_unknown_token_is_404(world):
    made = make_integration(world)
    wrong = made["url"].replace("/alerts", "x/alerts")
    answer = post_alerts(world, wrong, {"component": "API", "status": "major_outage"})
    assert answer.status == 404
    assert answer.json == {"error": "The requested resource could not be found"}


@pytest.mark.parametrize(
    "kind, payload, problem",
    [
        ("alertmanager", b"{not json", "is not JSON"),
        ("alertmanager", b"\xff{}", "is not JSON"),
        (
            "alertmanager",
            b'{"version": "4", "alerts": [{"status": "firing", "labels": {"component": "API"},'
            b' "fingerprint": "\\ud800"}]}',
            "holds a string that is not Unicode",
        ),
        ("generic", b'{"component": "API\\udfff", "status": "major_outage"}', "not Unicode"),
        ("alertmanager", {"version": "3", "alerts": []}, 'version` must be "4"'),
        ("alertmanager", {"version": "4"}, "`alerts` must be an array"),
        ("grafana", {"alerts": [{"labels": {}}]}, "`alerts[0].status`"),
        ("grafana", {"alerts": [{"status": "firing", "labels": {"a": 1}}]}, "alerts[0].labels"),
        ("generic", {"status": "major_outage"}, '"component_id" or "component"'),
        ("generic", {"component": "API", "status": "down"}, "[0].status"),
        ("generic", [1], "`[0]` must be an object"),
    ],
)
def test_a_malformed_payload_is_400_saying_what_is_wrong_and_is_audited(
    world, kind, payload, problem
):
    component_id = make_component(world)
    made = make_integration(world, kind)
    answer = post_alerts(world, made["url"], payload)
    assert answer.status == 400, answer.text
    assert answer.json["error"] == "Bad request"
    assert problem in answer.json["errors"]["payload"][0]
    (entry,) = audit(world)
    assert entry["reason"].startswith("refused: ") and problem in entry["reason"]
    assert status_of(world, component_id) == "operational"


def test_a_payload_that_names_no_component_is_202_and_audited(world):
    make_component(world, "Website")
    made = make_integration(world, "alertmanager")
    answer = post_alerts(world, made["url"], ALERTMANAGER_FIRING)
    assert answer.status == 202, answer.text
    assert answer.json == {"components": [], "unmatched": 1}
    (entry,) = audit(world)
    assert (entry["reason"], entry["detail"]) == (
        "no component matched",
        "1a30ba71cca2921f firing: no component or component_id label (and no rule of the "
        "integration matched)",
    )


@pytest.mark.parametrize(
    "labels, why",
    [
        ({"component_id": "nope"}, 'component_id="nope" is no component of the page'),
        ({"alertname": "Down"}, "no component or component_id label"),
        ({"component": "Twin"}, 'component="Twin" names 2 components: use component_id'),
    ],
)
def test_an_unmatched_alert_is_audited_with_the_label_that_failed_to_match(world, labels, why):
    make_component(world, "Twin")
    make_component(world, "Twin")
    made = make_integration(world, "alertmanager")
    answer = post_alerts(world, made["url"], with_labels(ALERTMANAGER_FIRING, **labels))
    assert answer.status == 202, answer.text
    assert why in audit(world)[0]["detail"]


def test_an_oversized_body_is_413(world):
    made = make_integration(world, "alertmanager")
    payload = with_labels(ALERTMANAGER_FIRING, padding="x" * (300 * 1024))
    assert post_alerts(world, made["url"], payload).status == 413


def test_each_integration_has_its_own_rate_limit(world):
    component_id = make_component(world)
    limited = make_integration(world, rate_limit_per_minute=2)
    other = make_integration(world)
    body = {"component_id": component_id, "status": "degraded_performance"}
    answers = [post_alerts(world, limited["url"], body) for _ in range(3)]
    assert [answer.status for answer in answers] == [200, 200, 429]
    assert answers[2].json == {"error": "Rate limit exceeded"}
    assert 1 <= int(answers[2].headers["Retry-After"]) <= 60
    assert post_alerts(world, other["url"], body).status == 200


def test_the_default_rate_limit_holds_a_storm_of_one_post_per_component(world):
    # Alertmanager with `group_by: [component]` posts each component's group on its own, all
    # within group_wait of the storm's start; it takes a 429 as final until its next group
    # interval (issue 45).
    made = make_integration(world, "alertmanager")
    assert made["rate_limit_per_minute"] >= MAX_COMPONENTS_PER_PAGE


# --- Issue 45: Alertmanager and Grafana as they are really configured ----------------------


def firing_on(components: list[str]) -> dict:
    """One Alertmanager group whose alerts name `components` (an alert each)."""
    alerts = [
        {**with_labels(ALERTMANAGER_FIRING, component=one)["alerts"][0], "fingerprint": f"fp{n}"}
        for n, one in enumerate(components)
    ]
    return {**ALERTMANAGER_FIRING, "alerts": alerts}


def resolved_on(components: list[str]) -> dict:
    payload = firing_on(components)
    for alert in payload["alerts"]:
        alert.update(status="resolved", endsAt="2023-02-06T13:20:45.828Z")
    return {**payload, "status": "resolved"}


def test_a_post_naming_40_components_moves_all_40_and_its_resolution_moves_them_back(world):
    ids = [make_component(world, f"Service {n}") for n in range(40)]
    made = make_integration(world, "alertmanager")

    answer = post_alerts(world, made["url"], firing_on(ids))
    assert answer.status == 200, answer.text
    assert len(answer.json["components"]) == 40
    assert all(outcome["changed"] for outcome in answer.json["components"])
    assert {status_of(world, one) for one in ids} == {"major_outage"}

    answer = post_alerts(world, made["url"], resolved_on(ids))
    assert answer.status == 200, answer.text
    assert {status_of(world, one) for one in ids} == {"operational"}


def test_a_resolution_of_any_size_is_applied_after_the_group_grew(world):
    # The storm: 16 firing, a 17th in the same group, then all 17 resolved.
    ids = [make_component(world, f"Service {n}") for n in range(17)]
    made = make_integration(world, "alertmanager")
    assert post_alerts(world, made["url"], firing_on(ids[:16])).status == 200
    assert post_alerts(world, made["url"], firing_on(ids)).status == 200
    assert {status_of(world, one) for one in ids} == {"major_outage"}
    assert post_alerts(world, made["url"], resolved_on(ids)).status == 200
    assert {status_of(world, one) for one in ids} == {"operational"}


def test_flapping_protection_is_on_by_default(world, freeze_clock, tick):
    component_id = make_component(world)
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/integrations", {"integration": {"kind": "alertmanager"}}
    )
    assert answer.json["min_firing_seconds"] == 60
    posted = post_alerts(
        world, answer.json["url"], with_labels(ALERTMANAGER_FIRING, component=component_id)
    )
    assert "min_firing_seconds (60)" in posted.json["components"][0]["reason"]
    assert status_of(world, component_id) == "operational"
    later(seconds=61)
    tick()
    assert status_of(world, component_id) == "major_outage"


def alertmanager_firing(world, **settings):
    """A component, an Alertmanager integration of `settings`, and an alert on the component,
    posted once."""
    component_id = make_component(world)
    made = make_integration(world, "alertmanager", **settings)
    firing = with_labels(ALERTMANAGER_FIRING, component=component_id)
    assert post_alerts(world, made["url"], firing).status == 200
    return component_id, made, firing


def test_a_component_set_by_hand_stays_set_after_the_hold_ends(world, freeze_clock, tick):
    component_id, made, firing = alertmanager_firing(
        world, hold_minutes=30, expire_after_minutes=60
    )
    assert status_of(world, component_id) == "major_outage"

    later(minutes=1)
    set_status(world, component_id, "operational")  # a person: it is fine
    later(minutes=5)
    answer = post_alerts(world, made["url"], firing)  # the same alert, re-sent
    (outcome,) = answer.json["components"]
    assert outcome["changed"] is False
    assert outcome["reason"].endswith("kept as set until an alert fires")
    later(minutes=40)  # the hold is over
    tick()
    assert status_of(world, component_id) == "operational"
    assert post_alerts(world, made["url"], firing).json["components"][0]["changed"] is False
    assert status_of(world, component_id) == "operational"
    assert not any(event["changed"] for event in audit(world)[:2])

    # The next firing of one of its alerts takes it again.
    another = with_labels(ALERTMANAGER_FIRING, component=component_id, alertname="Latency")
    another["alerts"][0]["fingerprint"] = "another"
    assert post_alerts(world, made["url"], another).json["components"][0]["changed"] is True
    assert status_of(world, component_id) == "major_outage"


def test_a_wait_from_before_a_hand_set_is_not_applied_when_the_hold_ends(world, freeze_clock, tick):
    # Waits for min_firing_seconds.
    component_id, made, _ = alertmanager_firing(world, hold_minutes=30, min_firing_seconds=120)
    later(seconds=30)
    set_status(world, component_id, "degraded_performance")  # a person's call meanwhile
    later(minutes=31)
    tick()
    assert status_of(world, component_id) == "degraded_performance"
    event = audit(world)[0]
    assert event["reason"].endswith("kept as set until an alert fires")
    assert event["changed"] is False

    # Its resolution, an older alert's too, leaves the person's status as well.
    resolved = with_labels(ALERTMANAGER_RESOLVED, component=component_id)
    assert post_alerts(world, made["url"], resolved).status == 200
    later(minutes=40)
    tick()
    assert status_of(world, component_id) == "degraded_performance"


def test_an_alert_not_posted_again_expires_and_is_audited_as_expired(world, freeze_clock, tick):
    component_id, made, firing = alertmanager_firing(world, expire_after_minutes=10)
    later(minutes=6)
    assert post_alerts(world, made["url"], firing).status == 200  # re-sent: repeat_interval
    later(minutes=15)
    tick()  # posted 9 minutes ago
    assert status_of(world, component_id) == "major_outage"

    later(minutes=17)
    tick()
    assert status_of(world, component_id) == "operational"
    event = audit(world)[0]
    assert event["detail"] == "1a30ba71cca2921f expired (not posted for 10 minutes)"
    assert (event["new_status"], event["changed"]) == ("operational", True)
    later(minutes=30)
    tick()
    assert audit(world)[0]["id"] == event["id"]  # nothing was left firing


def test_the_last_alert_expiring_resolves_the_integrations_incident(world, freeze_clock, tick):
    template = world.api.post(
        f"/v1/pages/{world.page_id}/incident_templates",
        {"template": {"name": "Outage", "title": "Website down", "body": "Looking into it"}},
    ).json
    component_id, _, _ = alertmanager_firing(
        world, expire_after_minutes=5, incident_template_id=template["id"], resolve_incident=True
    )
    (incident,) = world.api.get(f"/v1/pages/{world.page_id}/incidents/unresolved").json
    later(minutes=6)
    tick()
    assert status_of(world, component_id) == "operational"
    resolved = world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident['id']}").json
    assert resolved["status"] == "resolved"


def test_the_expiry_forgets_the_alerts_of_an_integration_gone_meanwhile(world, freeze_clock, tick):
    from chalicelib.store.integrations import FiringAlerts, Integration

    _, made, _ = alertmanager_firing(world)
    # Gone without its alerts (as an integration deleted by a path that left them would be).
    Integration.get(world.page_id, made["id"]).delete()
    later(minutes=20)
    tick()
    assert list(FiringAlerts.query(made["id"])) == []


def test_expiry_follows_the_kind_and_the_setting(world, freeze_clock, tick):
    component_id = make_component(world)
    generic = make_integration(world)
    assert generic["expire_after_minutes"] == 0  # nothing re-sends a generic post
    post_alerts(world, generic["url"], {"component_id": component_id, "status": "major_outage"})
    later(minutes=600)
    tick()
    assert status_of(world, component_id) == "major_outage"

    path = f"/v1/pages/{world.page_id}/integrations/{generic['id']}"
    changed = world.api.patch(path, {"integration": {"expire_after_minutes": 5}})
    assert changed.json["expire_after_minutes"] == 5
    changed = world.api.patch(path, {"integration": {"expire_after_minutes": None}})
    assert changed.json["expire_after_minutes"] == 0  # null: the kind's default again
    answer = world.api.patch(path, {"integration": {"expire_after_minutes": -1}})
    assert answer.status == 422 and "expire_after_minutes" in answer.json["errors"]


def test_an_expired_alert_leaves_a_component_set_by_hand_as_set(world, freeze_clock, tick):
    component_id, _, _ = alertmanager_firing(world, hold_minutes=0)
    later(minutes=1)
    set_status(world, component_id, "partial_outage")
    later(minutes=20)
    tick()
    assert status_of(world, component_id) == "partial_outage"
    assert audit(world)[0]["detail"].endswith("expired (not posted for 15 minutes)")


# --- Item 8: the audit ----------------------------------------------------------------------


def test_the_audit_shows_the_newest_100_events(world):
    component_id = make_component(world)
    made = make_integration(world)
    statuses = ["major_outage", "operational"]
    for n in range(101):
        post_alerts(world, made["url"], {"component_id": component_id, "status": statuses[n % 2]})
    post_alerts(world, made["url"], {"component": "nosuch", "status": "major_outage"})
    events = audit(world)
    assert len(events) == 100
    assert events[0]["reason"] == "no component matched"
    assert events[1]["reason"] == "set to major_outage"
    assert [event["created_at"] for event in events] == sorted(
        (event["created_at"] for event in events), reverse=True
    )


def test_a_client_guessing_tokens_is_refused_after_30_a_minute(world, freeze_clock):
    """Posts to unknown tokens count against the client (429 with Retry-After past them,
    the right token included); another client, and the next minutes, are not held back."""
    from datetime import UTC, datetime, timedelta

    # Later than any window an earlier test of the process counted in (the counters are
    # keyed by the client, which is the same for every test here).
    moment = freeze_clock(datetime.now(UTC).replace(second=5) + timedelta(hours=1))
    make_component(world, "API")
    made = make_integration(world)
    body = {"component": "API", "status": "major_outage"}
    guessed = [
        post_alerts(world, f"/v1/integrations/guess{number:04}xxxxxxxxxxxxxxxx/alerts", body)
        for number in range(30)
    ]
    assert {answer.status for answer in guessed} == {404}
    refused = post_alerts(world, made["url"], body)
    assert refused.status == 429 and int(refused.headers["Retry-After"]) > 0
    freeze_clock(moment + timedelta(minutes=2))
    assert post_alerts(world, made["url"], body).status == 200


def test_the_automation_events_are_read_a_page_at_a_time_none_pushed_out(world):
    """A storm of many components records an event for each; every earlier event stays
    readable on a later page (the newest 100 only were kept readable)."""
    component_ids = [make_component(world, f"C{number}") for number in range(120)]
    made = make_integration(world)
    first = post_alerts(
        world, made["url"], {"component_id": component_ids[0], "status": "major_outage"}
    )
    assert first.status == 200
    storm = [{"component_id": each, "status": "partial_outage"} for each in component_ids[1:]]
    assert post_alerts(world, made["url"], storm).status == 200
    path = f"/v1/pages/{world.page_id}/automation_events"
    pages = [world.api.get(f"{path}?page={number}&per_page=50").json for number in (1, 2, 3)]
    assert [len(page) for page in pages] == [50, 50, 20]
    assert pages[2][-1]["component_id"] == component_ids[0]  # the oldest, still there
    every = [event["id"] for page in pages for event in page]
    assert len(set(every)) == 120
