"""Alert integrations on the real local stack: Alertmanager's and Grafana's documented payloads,
firing then resolved, posted to an integration's URL; the component, the public summary.json
and a webhook subscriber follow (issue 34). And a real Alertmanager, configured as the README
says, moving 20 components and back (issue 45)."""

import json
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests

from chalicelib.store.integrations import FiringAlerts
from tests.alert_payloads import (
    ALERTMANAGER_FIRING,
    ALERTMANAGER_INSTANCE,
    ALERTMANAGER_RESOLVED,
    GRAFANA_FIRING,
    GRAFANA_RESOLVED,
    with_labels,
)
from tests.e2e import alertmanager
from tests.e2e.stack import LocalStack, wait_for
from tests.e2e.test_third_party_e2e import Page as BootstrappedPage
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    # A tick a second: the flap rule's waits are settled by the every-minute function.
    running = LocalStack(tmp_path_factory.mktemp("data"), SCHEDULE_TICK_SECONDS="1").start()
    yield running
    running.stop()


class Page(BootstrappedPage):
    """A bootstrapped page of the stack, with its integrations and its public summary."""

    def new_component(self, name: str) -> str:
        return self.send("POST", "/components", {"component": {"name": name}})["id"]

    def integration(self, kind: str, **fields) -> str:
        """An integration's URL; it applies a status at once (`min_firing_seconds` 0) unless
        told."""
        fields.setdefault("min_firing_seconds", 0)
        made = self.send("POST", "/integrations", {"integration": {"kind": kind, **fields}})
        return made["url"]

    def public_statuses(self) -> dict[str, str]:
        summary = self.stack.get(f"/s/{self.id}/api/v2/summary.json")
        if summary.status_code != 200:
            return {}
        return {component["id"]: component["status"] for component in summary.json()["components"]}

    def subscribe(self, endpoint: str) -> None:
        self.send(
            "POST", "/subscribers", {"subscriber": {"endpoint": endpoint, "email": "o@e.com"}}
        )


def post(url: str, payload) -> requests.Response:
    """As monitoring posts: the integration's URL, JSON, no other credential."""
    return requests.post(url, json=payload, timeout=30)


def shown_publicly(page: Page, wanted: dict[str, str], sent_at: float) -> float:
    """Seconds from `sent_at` until the public summary.json shows every status of `wanted`."""
    assert wait_for(lambda: wanted.items() <= page.public_statuses().items()), wanted
    return time.monotonic() - sent_at


def component_updates(sink: WebhookSink) -> list[tuple[str, str]]:
    return [
        (
            hook["json"]["component_update"]["component_id"],
            hook["json"]["component_update"]["new_status"],
        )
        for hook in sink.received
        if "component_update" in hook["json"]
    ]


def test_alertmanager_firing_then_resolved_moves_the_component_the_public_page_and_subscribers(
    stack,
):
    page = Page(stack)
    website = page.new_component("Website")
    url = page.integration(
        "alertmanager",
        rules=[{"match": {"instance": ALERTMANAGER_INSTANCE}, "component_id": website}],
    )
    with WebhookSink() as sink:
        page.subscribe(sink.url)

        sent_at = time.monotonic()
        answer = post(url, ALERTMANAGER_FIRING)
        assert answer.status_code == 200, answer.text
        print(f"\nalert answered in {answer.elapsed.total_seconds():.3f} s")
        seconds = shown_publicly(page, {website: "major_outage"}, sent_at)
        print(f"alert to public summary.json: {seconds:.2f} s")
        assert page.status_of(website) == "major_outage"
        assert wait_for(lambda: component_updates(sink) == [(website, "major_outage")])

        sent_at = time.monotonic()
        assert post(url, ALERTMANAGER_RESOLVED).status_code == 200
        seconds = shown_publicly(page, {website: "operational"}, sent_at)
        print(f"resolved alert to public summary.json: {seconds:.2f} s")
        assert wait_for(
            lambda: component_updates(sink) == [(website, "major_outage"), (website, "operational")]
        )
    events = page.send("GET", "/automation_events")
    assert [event["detail"] for event in events[:2]] == [
        "1a30ba71cca2921f resolved",
        "1a30ba71cca2921f firing",
    ]


def test_grafana_firing_then_resolved_moves_each_zones_component(stack):
    page = Page(stack)
    us, eu = page.new_component("US"), page.new_component("EU")
    url = page.integration(
        "grafana",
        rules=[
            {"match": {"zone": "us-1"}, "component_id": us},
            {"match": {"zone": "eu-1"}, "component_id": eu},
        ],
    )
    with WebhookSink() as sink:
        page.subscribe(sink.url)
        sent_at = time.monotonic()
        assert post(url, GRAFANA_FIRING).status_code == 200
        degraded = {us: "degraded_performance", eu: "degraded_performance"}
        print(
            f"\ngrafana alert to public summary.json: {shown_publicly(page, degraded, sent_at):.2f} s"
        )
        assert post(url, GRAFANA_RESOLVED).status_code == 200
        shown_publicly(page, {us: "operational", eu: "operational"}, time.monotonic())
        assert wait_for(lambda: len(component_updates(sink)) == 4)
    assert sorted(component_updates(sink)) == sorted(
        [
            (us, "degraded_performance"),
            (eu, "degraded_performance"),
            (us, "operational"),
            (eu, "operational"),
        ]
    )


def test_a_flapping_alert_notifies_nobody_and_a_steady_one_lands_by_itself(stack):
    page = Page(stack)
    website, database = page.new_component("Website"), page.new_component("Database")
    url = page.integration("alertmanager", min_firing_seconds=3)
    flapping = with_labels(ALERTMANAGER_FIRING, component=website)
    flapped = with_labels(ALERTMANAGER_RESOLVED, component=website)
    steady = with_labels(ALERTMANAGER_FIRING, component=database)
    with WebhookSink() as sink:
        page.subscribe(sink.url)
        assert post(url, flapping).status_code == 200
        assert post(url, flapped).status_code == 200
        # Firing and left firing: the tick applies it once it has fired for 3 s.
        assert post(url, steady).status_code == 200
        assert page.status_of(database) == "operational"
        assert wait_for(lambda: page.status_of(database) == "major_outage", timeout=20)
        # The ticks that applied it, past the flapping one's 3 s too, left that one alone.
        assert page.status_of(website) == "operational"
        assert wait_for(lambda: component_updates(sink) == [(database, "major_outage")])
        assert wait_for(stack.queues_idle)
        assert component_updates(sink) == [(database, "major_outage")]


def test_bad_posts_get_their_answers_on_the_stack(stack):
    page = Page(stack)
    page.new_component("Website")
    url = page.integration("alertmanager")
    assert post(url, ALERTMANAGER_FIRING).status_code == 202  # names no component
    assert post(url, {"version": "4"}).status_code == 400
    assert post(url.replace("/alerts", "x/alerts"), ALERTMANAGER_FIRING).status_code == 404
    big = with_labels(ALERTMANAGER_FIRING, padding="x" * (300 * 1024))
    assert post(url, big).status_code == 413
    reasons = [event["reason"] for event in page.send("GET", "/automation_events")]
    assert reasons[0].startswith("refused: ") and reasons[1] == "no component matched"


def age_firing_alerts(stack, integration_id: str, component_id: str, minutes: int) -> None:
    """Move the last post of the component's firing alerts `minutes` back, in the stack's own
    table: the tick then finds them as after that long of silence, without the wait."""
    dynamodb = stack.emulator("dynamodb")
    table = "statuspage-local-firing-alerts"
    key = {"integration_id": {"S": integration_id}, "component_id": {"S": component_id}}
    item = dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    alerts = json.loads(item["alerts"]["S"])
    back = datetime.now(UTC) - timedelta(minutes=minutes)
    for alert in alerts.values():
        alert["seen"] = back.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    item["alerts"] = {"S": json.dumps(alerts)}
    item["expires_at"] = {"S": FiringAlerts.expires_at.serialize(back)}
    dynamodb.put_item(TableName=table, Item=item)


def test_an_alert_no_longer_posted_expires_at_the_stacks_tick(stack):
    page = Page(stack)
    website = page.new_component("Website")
    url = page.integration("alertmanager")  # alerts expire after 15 minutes without a post
    (integration,) = page.send("GET", "/integrations")
    assert post(url, with_labels(ALERTMANAGER_FIRING, component=website)).status_code == 200
    assert page.status_of(website) == "major_outage"

    age_firing_alerts(stack, integration["id"], website, minutes=16)
    assert wait_for(lambda: page.status_of(website) == "operational", timeout=20)
    (event, *_) = page.send("GET", "/automation_events")
    assert event["detail"] == "1a30ba71cca2921f expired (not posted for 15 minutes)"
    assert (event["new_status"], event["changed"]) == ("operational", True)


@pytest.mark.parametrize(
    ("group_by", "groups"),
    [
        (None, 20),  # the README's: a group, and a post, per component
        (["alertname"], 1),  # one group naming all 20 (as a route without group_by makes)
    ],
    ids=["readme", "one-group"],
)
def test_a_real_alertmanager_with_the_readmes_configuration_moves_20_components_and_back(
    stack, tmp_path, group_by, groups
):
    alertmanager.skip_without_alertmanager()
    page = Page(stack)
    names = [f"Service {n:02}" for n in range(20)]
    ids = [page.new_component(name) for name in names]
    # Applied at once (flapping protection, on by default, would wait 60 s each way).
    url = page.integration("alertmanager")
    configuration = alertmanager.readme_configuration()
    (receiver,) = configuration["receivers"][0]["webhook_configs"]
    assert receiver["url"] == alertmanager.EXAMPLE_URL
    receiver["url"] = url
    # For the test's speed only: a group is posted 1 s after its first alert (README: 30 s),
    # and its changes 1 s after its last post (README: 5 m).
    configuration["route"].update(group_wait="1s", group_interval="1s")
    if group_by:
        configuration["route"]["group_by"] = group_by
    started = datetime.now(UTC)
    alerts = [
        {
            "labels": {"alertname": "ServiceDown", "component": name, "severity": "critical"},
            "annotations": {"summary": f"{name} is down"},
            "startsAt": alertmanager.iso(started),
        }
        for name in names
    ]
    with alertmanager.running(tmp_path, configuration) as manager:
        sent_at = time.monotonic()
        manager.post_alerts(alerts)
        down = shown_publicly(page, dict.fromkeys(ids, "major_outage"), sent_at)
        print(f"\n20 components firing through Alertmanager to summary.json: {down:.2f} s")
        assert [len(group["alerts"]) for group in manager.groups()] == [20 // groups] * groups

        # Resolved as Prometheus resolves them: the same alerts, ending in the past.
        ended = alertmanager.iso(datetime.now(UTC) - timedelta(seconds=1))
        sent_at = time.monotonic()
        manager.post_alerts([{**alert, "endsAt": ended} for alert in alerts])
        up = shown_publicly(page, dict.fromkeys(ids, "operational"), sent_at)
        print(f"20 components resolved through Alertmanager to summary.json: {up:.2f} s")
        assert alertmanager.FAILED not in manager.logged()
    events = page.send("GET", "/automation_events")
    changes = [(event["component_id"], event["new_status"]) for event in events if event["changed"]]
    assert sorted(changes) == sorted(
        [(one, "major_outage") for one in ids] + [(one, "operational") for one in ids]
    )
