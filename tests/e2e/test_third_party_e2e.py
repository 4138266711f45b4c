"""Third-party components across two real local stacks: one is the vendor's status page (the
source), the other follows a component of it through its public `summary.json`."""

import time

import pytest

from tests.e2e.stack import LocalStack, wait_for
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def vendor(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("vendor")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def follower(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("follower"), SCHEDULE_TICK_SECONDS="1").start()
    yield running
    running.stop()


class Page:
    """A bootstrapped page of one stack, changed through the API as its owner."""

    def __init__(self, stack: LocalStack):
        self.stack = stack
        created = stack.admin("bootstrap")
        self.key, self.id = created["api_key"], created["page_id"]

    def send(self, method: str, path: str, body: dict | None = None) -> dict:
        answer = self.stack.send(method, f"/v1/pages/{self.id}{path}", self.key, body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def component(self, component_id: str) -> dict:
        return self.send("GET", f"/components/{component_id}")

    def status_of(self, component_id: str) -> str:
        return self.component(component_id)["status"]


def test_a_component_follows_a_component_of_another_stack(vendor, follower):
    source_page, page = Page(vendor), Page(follower)
    api = source_page.send("POST", "/components", {"component": {"name": "Vendor API"}})
    source_page.send("POST", "/components", {"component": {"name": "Vendor Web"}})
    summary_url = f"{vendor.url}/s/{source_page.id}/api/v2/summary.json"

    with WebhookSink() as sink:
        mirrored = page.send(
            "POST",
            "/components",
            {
                "component": {
                    "name": "Vendor API",
                    "third_party": {"summary_url": summary_url, "component_id": api["id"]},
                }
            },
        )
        page.send(
            "POST",
            "/subscribers",
            {
                "subscriber": {
                    "endpoint": sink.url,
                    "email": "ops@example.com",
                    "component_ids": [mirrored["id"]],
                }
            },
        )

        # The first poll brings the source's status (operational: no change to announce).
        assert wait_for(
            lambda: (
                page.component(mirrored["id"])["third_party"]["official_status"] == "operational"
            )
        )

        source_page.send(
            "PATCH", f"/components/{api['id']}", {"component": {"status": "major_outage"}}
        )
        assert wait_for(lambda: page.status_of(mirrored["id"]) == "major_outage")
        assert wait_for(lambda: sink.received)
        (update,) = [hook["json"]["component_update"] for hook in sink.received]
        assert (update["old_status"], update["new_status"]) == ("operational", "major_outage")
        public = follower.get(f"/s/{page.id}/api/v2/summary.json").json()
        assert [c["status"] for c in public["components"]] == ["major_outage"]
        uptime = follower.get(f"/v1/pages/{page.id}/components/{mirrored['id']}/uptime", page.key)
        assert uptime.status_code == 200, uptime.text

        # A status set by hand holds while the source stays as it is ...
        page.send(
            "PATCH", f"/components/{mirrored['id']}", {"component": {"status": "partial_outage"}}
        )
        time.sleep(2)  # two ticks
        assert page.status_of(mirrored["id"]) == "partial_outage"
        # ... an empty status restores the official one ...
        page.send("PATCH", f"/components/{mirrored['id']}", {"component": {"status": ""}})
        assert page.status_of(mirrored["id"]) == "major_outage"
        # ... and the next change at the source is followed again.
        page.send(
            "PATCH", f"/components/{mirrored['id']}", {"component": {"status": "operational"}}
        )
        source_page.send(
            "PATCH", f"/components/{api['id']}", {"component": {"status": "degraded_performance"}}
        )
        assert wait_for(lambda: page.status_of(mirrored["id"]) == "degraded_performance")


def test_a_vendor_stack_that_stops_leaves_the_last_status(vendor, follower):
    # The module's vendor stack, stopped by this test, its last (its fixture's stop then does
    # nothing): a stack started only to be stopped cost a start.
    try:
        source_page, page = Page(vendor), Page(follower)
        api = source_page.send(
            "POST", "/components", {"component": {"name": "API", "status": "partial_outage"}}
        )
        mirrored = page.send(
            "POST",
            "/components",
            {
                "component": {
                    "name": "Vendor API",
                    "third_party": {
                        "summary_url": f"{vendor.url}/s/{source_page.id}/api/v2/summary.json",
                        "component_id": api["id"],
                    },
                }
            },
        )
        assert wait_for(lambda: page.status_of(mirrored["id"]) == "partial_outage")
    finally:
        vendor.stop()
    time.sleep(2)  # two ticks against a source that refuses connections
    assert page.status_of(mirrored["id"]) == "partial_outage"
    assert follower.get("/v1/metrics_providers").status_code == 200  # the stack is fine
