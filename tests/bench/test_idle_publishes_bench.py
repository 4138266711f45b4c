"""Publishes of idle pages on the real local stack (issue 49, part 2): 20 pages, half of them
charting a metric that had data before, nothing written while they are watched.

The stack's every-minute function runs each second (`SCHEDULE_TICK_SECONDS=1`), but the
stack's clock cannot be moved: what is due by the clock comes due in real time. So the run
watches `IDLE_SECONDS` of real time (crossing two minute boundaries, where a charted page was
republished each minute before) with sixty times the ticks, and counts the publishes by the
snapshot items' `publish_due`, which each publish moves on. The eleven minutes of a moved
clock are the in-process test's (`tests/public/test_clock_publishes.py`).
"""

import time

import pytest

from tests.e2e.stack import LocalStack, wait_for

pytestmark = pytest.mark.bench
PAGES = 20
IDLE_SECONDS = 130
POLL_SECONDS = 1.0
# The target: 20 idle pages published at most 2 times in 11 minutes of nothing.
TARGET = 2


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("data"), SCHEDULE_TICK_SECONDS="1").start()
    yield running
    running.stop()


def idle_pages(stack: LocalStack) -> list[str]:
    """`PAGES` pages, each with a component; every other one charts a metric with a point."""
    page_ids = []
    for number in range(PAGES):
        created = stack.admin("bootstrap")
        key, page_id = created["api_key"], created["page_id"]
        path = f"/v1/pages/{page_id}"
        answer = stack.send("POST", f"{path}/components", key, {"component": {"name": "API"}})
        assert answer.status_code == 201, answer.text
        if number % 2:
            providers = stack.get(f"{path}/metrics_providers", key).json()
            (own,) = [provider for provider in providers if provider["type"] == "Self"]
            metric = stack.send(
                "POST",
                f"{path}/metrics_providers/{own['id']}/metrics",
                key,
                {"metric": {"name": "Latency", "display": True}},
            ).json()
            point = {"data": {"timestamp": int(time.time()) - 600, "value": 12}}
            answer = stack.send("POST", f"{path}/metrics/{metric['id']}/data", key, point)
            assert answer.status_code == 201, answer.text
        page_ids.append(page_id)
    return page_ids


def publish_dues(stack: LocalStack, page_ids: list[str]) -> dict[str, str | None]:
    """Each page's `publish_due` (a publish moves it on), read from the stack's emulator."""
    dynamodb = stack.emulator("dynamodb")
    (table,) = [
        name for name in dynamodb.list_tables()["TableNames"] if name.endswith("page-snapshots")
    ]
    keys = [{"key": {"S": f"page#{page_id}"}} for page_id in page_ids]
    found = dynamodb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    dues = {
        item["key"]["S"]: item.get("publish_due", {}).get("S") for item in found["Responses"][table]
    }
    return {page_id: dues.get(f"page#{page_id}") for page_id in page_ids}


def test_idle_pages_are_not_republished_by_the_clock(stack):
    page_ids = idle_pages(stack)
    assert wait_for(stack.queues_idle, timeout=60)
    time.sleep(5)  # the publishes the writes asked for, done
    seen = publish_dues(stack, page_ids)
    publishes = 0
    started = time.monotonic()
    while time.monotonic() - started < IDLE_SECONDS:
        time.sleep(POLL_SECONDS)
        now = publish_dues(stack, page_ids)
        publishes += sum(1 for page_id in page_ids if now[page_id] != seen[page_id])
        seen = now
    print(
        f"\nidle pages: {PAGES} pages ({PAGES // 2} charting a metric) over {IDLE_SECONDS} s"
        f" of real time, the every-minute function run each second: {publishes} publishes"
        f" (target: at most {TARGET} in 11 minutes; before: each charted page each minute,"
        " every page each ten minutes)"
    )
    assert publishes <= TARGET
