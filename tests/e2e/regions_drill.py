"""The regional-outage drill (issue 47) on `make run-regions`, shared by its end-to-end test
(tests/e2e/test_regions_drill.py) and its bench (tests/bench/test_regions_bench.py): writes
through `PORT`, region a stopped (SIGSTOP), readers watched throughout, the first write that
succeeds after, an incident's webhook, a restored, and every acknowledged write in both
regions' own copies."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import boto3
import requests

from tests.e2e.stack import LocalStack, free_port, wait_for
from tests.webhook_sink import WebhookSink

# A write's own timeout while a region may be stopped: one forwarded to the stopped region is
# never answered, and is sent again (it was not acknowledged).
WRITE_TIMEOUT_SECONDS = 2.0


class RegionsStack(LocalStack):
    module = "chalicelib.local.regions"

    def __init__(self, data_dir, log=None, **environment):
        ports = {name: str(free_port()) for name in ("PORT_A", "PORT_B", "MOTO_PORT_B")}
        super().__init__(data_dir, log, **{**ports, **environment})
        self.moto_port_b = int(self.environment["MOTO_PORT_B"])

    def regions(self) -> dict:
        return self.get("/_local/regions").json()

    def region_url(self, name: str) -> str:
        return next(r["url"] for r in self.regions()["regions"] if r["name"] == name)

    def sqs_of_b(self):
        return boto3.client(
            "sqs",
            endpoint_url=f"http://127.0.0.1:{self.moto_port_b}",
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )


class Readers(threading.Thread):
    """Reads the public page and its summary.json at `PORT` without pause; counts non-200s."""

    def __init__(self, url: str, page_id: str):
        super().__init__(daemon=True)
        self.paths = [f"{url}/s/{page_id}", f"{url}/s/{page_id}/api/v2/summary.json"]
        self.stopped = threading.Event()
        self.reads = 0
        self.failures: list[str] = []

    def run(self) -> None:
        session = requests.Session()
        while not self.stopped.is_set():
            for path in self.paths:
                try:
                    status = session.get(path, timeout=5).status_code
                except requests.RequestException as error:
                    status = error.__class__.__name__
                self.reads += 1
                if status != 200:
                    self.failures.append(f"{path}: {status}")
            self.stopped.wait(0.02)


def _write(stack: RegionsStack, page: dict, name: str) -> str | None:
    """A component made through `PORT`: its id once acknowledged, None if not (yet)."""
    try:
        answer = requests.post(
            f"{stack.url}/v1/pages/{page['page_id']}/components",
            json={"component": {"name": name}},
            headers={"Authorization": f"OAuth {page['api_key']}"},
            timeout=WRITE_TIMEOUT_SECONDS,
        )
    except requests.RequestException:
        return None
    return answer.json()["id"] if answer.status_code == 201 else None


def _holds_all(url: str, page: dict, ids: set[str]) -> bool:
    try:
        answer = requests.get(
            f"{url}/v1/pages/{page['page_id']}/components",
            headers={"Authorization": f"OAuth {page['api_key']}"},
            timeout=2,
        )
    except requests.RequestException:
        return False
    return answer.status_code == 200 and ids <= {c["id"] for c in answer.json()}


def figures_of(folder: Path, drill, **environment: str) -> dict:
    """`drill(stack)`'s figures, on a `make run-regions` of its own in `folder`."""
    stack = RegionsStack(folder / "data", folder / "log", **environment).start()
    try:
        return drill(stack)
    finally:
        stack.stop()


def _page_with_webhook(stack: RegionsStack, sink: WebhookSink) -> tuple[dict, str]:
    """A new page (`make bootstrap`'s answer) whose one subscriber (its id) is the sink's
    webhook."""
    page = stack.admin("bootstrap")
    key, page_id = page["api_key"], page["page_id"]
    subscribed = stack.send(
        "POST",
        f"/v1/pages/{page_id}/subscribers",
        key,
        {"subscriber": {"endpoint": sink.url, "email": "ops@example.com"}},
    )
    assert subscribed.status_code == 201, subscribed.text
    return page, subscribed.json()["id"]


def run(stack: RegionsStack) -> dict:
    """The drill; its figures, and what failed of it under `problems`."""
    problems: list[str] = []
    with WebhookSink() as sink:
        page, subscriber_id = _page_with_webhook(stack, sink)
        key, page_id = page["api_key"], page["page_id"]
        # The page's files and its subscriber are in b too before anything fails.
        b_url = stack.region_url("b")
        assert wait_for(
            lambda: (
                stack.get(f"/s/{page_id}").status_code == 200
                and requests.get(
                    f"{b_url}/v1/pages/{page_id}/subscribers/{subscriber_id}",
                    headers={"Authorization": f"OAuth {key}"},
                    timeout=2,
                ).status_code
                == 200
            ),
            timeout=15,
        ), "the subscriber did not reach region b"

        readers = Readers(stack.url, page_id)
        readers.start()
        acknowledged = set()
        for number in range(20):
            written = _write(stack, page, f"before {number}")
            assert written, "a write through PORT failed while both regions were up"
            acknowledged.add(written)

        stack.admin("region", "--fail", "a")
        failed_at = time.monotonic()
        first = None
        while first is None and time.monotonic() - failed_at < 30:
            first = _write(stack, page, "during 0")
        assert first, "no write through PORT succeeded within 30 s of the failure"
        first_write_seconds = time.monotonic() - failed_at
        acknowledged.add(first)
        for number in range(1, 5):
            written = _write(stack, page, f"during {number}")
            if written:
                acknowledged.add(written)

        posted = stack.send(
            "POST",
            f"/v1/pages/{page_id}/incidents",
            key,
            {"incident": {"name": "Region a is down"}},
        )
        assert posted.status_code == 201, posted.text
        posted_at = time.monotonic()
        incident_id = posted.json()["id"]
        reached = wait_for(lambda: len(sink.received) >= 1, timeout=20)
        incident_to_sink_seconds = time.monotonic() - posted_at if reached else None
        if not reached:
            problems.append("the incident's webhook never reached the sink")

        def shows_incident() -> bool:
            summary = stack.get(f"/s/{page_id}/api/v2/summary.json")
            incidents = summary.json().get("incidents", []) if summary.status_code == 200 else []
            return any(incident["id"] == incident_id for incident in incidents)

        if not wait_for(shows_incident, timeout=15):
            problems.append("summary.json at PORT never showed the incident")

        stack.admin("region", "--restore", "a")
        restored_at = time.monotonic()
        after = _write(stack, page, "after")
        while after is None and time.monotonic() - restored_at < 15:
            after = _write(stack, page, "after")
        if after:
            acknowledged.add(after)
        urls = [stack.region_url("a"), b_url]
        caught_up = wait_for(lambda: all(_holds_all(url, page, acknowledged) for url in urls), 30)
        both_hold_seconds = time.monotonic() - restored_at if caught_up else None
        if not caught_up:
            problems.append("the regions did not both hold every acknowledged write")
        # Nothing is left in either region that could still send: then count the webhooks.
        wait_for(lambda: stack.queues_idle() and stack.queues_idle(stack.sqs_of_b()), 15)
        readers.stopped.set()
        readers.join()
        posts = [delivery["json"]["incident"]["id"] for delivery in sink.received]
    return {
        "reads": readers.reads,
        "reader_non_200": len(readers.failures),
        "reader_failures": readers.failures[:5],
        "first_write_after_failure_seconds": first_write_seconds,
        "incident_to_sink_seconds": incident_to_sink_seconds,
        "both_regions_hold_every_write_seconds": both_hold_seconds,
        "acknowledged_writes": len(acknowledged),
        "duplicate_webhooks": len(posts) - len(set(posts)),
        "webhooks": len(posts),
        "problems": problems,
    }


def _stop_event_functions(stack: RegionsStack, name: str) -> None:
    """SIGSTOP the event functions' process of region `name` alone (`workers` in `ps`)."""
    state = json.loads((stack.data_dir / "regions.json").read_text())
    group = next(r["pgid"] for r in state["regions"] if r["name"] == name)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (
                os.getpgid(int(entry.name)) == group
                and (entry / "comm").read_text().strip() == "workers"
            ):
                os.kill(int(entry.name), signal.SIGSTOP)
                return
        except OSError:
            continue
    raise AssertionError(f"no event functions' process in region {name}")


def run_left_event(stack: RegionsStack) -> dict:
    """An incident committed in a whose event a had not fanned out when it failed (its event
    functions stopped first): b's sweep fans it out, and a, restored, sends nothing again."""
    with WebhookSink() as sink:
        page, subscriber_id = _page_with_webhook(stack, sink)
        key, page_id = page["api_key"], page["page_id"]
        _stop_event_functions(stack, "a")
        posted = stack.send(
            "POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "Left in a"}}
        )
        assert posted.status_code == 201, posted.text
        posted_at = time.monotonic()
        b_url = stack.region_url("b")
        incident = f"{b_url}/v1/pages/{page_id}/incidents/{posted.json()['id']}"
        headers = {"Authorization": f"OAuth {key}"}
        assert wait_for(lambda: requests.get(incident, headers=headers, timeout=2).ok, 10)
        stack.admin("region", "--fail", "a")
        reached = wait_for(lambda: len(sink.received) >= 1, timeout=90)
        sent_by_b_seconds = time.monotonic() - posted_at if reached else None
        stack.admin("region", "--restore", "a")
        # a's queue still held the event: a's fan-out receives it now, and must find b's claims.
        assert wait_for(lambda: stack.queues_idle() and stack.queues_idle(stack.sqs_of_b()), 30)
        posts = [delivery["json"]["incident"]["id"] for delivery in sink.received]
    return {"sent_by_b_seconds": sent_by_b_seconds, "webhooks": len(posts)}


def check(figures: dict) -> None:
    """The issue's Done-when, on the drill's figures."""
    assert figures["problems"] == []
    assert figures["reader_non_200"] == 0, figures["reader_failures"]
    assert figures["first_write_after_failure_seconds"] <= 15
    assert figures["incident_to_sink_seconds"] <= 10
    assert figures["both_regions_hold_every_write_seconds"] <= 15
    assert figures["webhooks"] == 1
    assert figures["duplicate_webhooks"] == 0
