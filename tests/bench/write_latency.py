"""Incident create latency on the running local stack as the page's day fills up: incidents
created back to back through the API, each answered before the next is sent, while the
stack's event functions publish the page beside them, as an incident manager, an
integration or an import makes them. Nothing is written around the API and nothing waits
between creates: a publish competes with the creates it follows, as it does in use.

Run by `test_write_bench` in a process of its own (the bare handler's models must point at the
stack's emulator before they are imported):

    python -m tests.bench.write_latency STACK_URL API_KEY PAGE_ID EMULATOR_PID [COUNT]

with the stack's STAGE and MOTO_PORT in the environment. Prints one JSON object: the bare
handler's median before and after the creates, the median create of each window and the
bare handler's median within it, the emulator's memory (RSS), the publish requests waiting and the
changes the published files showed as the creates went, how long after the last create the
published files showed it, and every create's latency (ms).

The reference is a bare Chalice handler doing one 5-item TransactWrite on the same emulator,
served here over HTTP the way the stack serves the app, measured in the same run.
"""

import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import requests

from chalicelib.environment import use_local_emulator_if_local

COUNT = 2000
# The creates whose median is the cost "at 20" and "at 2,000" (0-based: the 10th to the 40th,
# and the last 30): a median of 30 stands still when a publish lands on a few of them.
EARLY = range(10, 40)
BARE_ROUNDS = 40
WARM_UP = 5
# How often the emulator's memory is read (every this many creates).
MEMORY_EVERY = 100
# How long the published files are given to show the last create, once the creates end.
CATCH_UP_WAIT_SECONDS = 600
BODY = {"incident": {"name": "Down", "status": "resolved", "body": "Back"}}


def late_window(count: int) -> range:
    return range(count - 30, count)


def rss_mb(pid: int) -> float:
    """The resident memory of process `pid` (MB), as `ps` shows it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _publish_backlog() -> Callable[[], int]:
    """How many publish requests wait on the publish queue (received ones included)."""
    import boto3

    from chalicelib import config
    from chalicelib.notify import queues

    sqs = boto3.client("sqs", region_name=config.region())
    url = sqs.get_queue_url(QueueName=config.queue_name(queues.PUBLISH))["QueueUrl"]
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]

    def waiting() -> int:
        counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
        return sum(int(count) for count in counts.values())

    return waiting


def _published(page_id: str) -> tuple[int, int]:
    """The page's public changes committed, and how many of them its published files show."""
    from chalicelib.store import snapshots

    item = snapshots.read(page_id, consistent=True)
    return int(item.changes or 0), int(item.published_changes or 0)


def _caught_up_seconds(page_id: str) -> float | None:
    """From now until the published files show every change (None: not within the wait)."""
    started = time.monotonic()
    while time.monotonic() - started < CATCH_UP_WAIT_SECONDS:
        changes, published = _published(page_id)
        if published >= changes:
            return time.monotonic() - started
        time.sleep(0.5)
    return None


def _timed(session: requests.Session, url: str, headers: dict) -> float:
    started = time.perf_counter()
    answer = session.post(url, json=BODY, headers=headers, timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code < 300, answer.text
    return elapsed


def _bare_median(session: requests.Session, url: str) -> float:
    # The same body and headers as a create: the HTTP path costs both the same.
    headers = {"Authorization": "OAuth unused-by-the-bare-handler"}
    timings = [_timed(session, url, headers) for _ in range(WARM_UP + BARE_ROUNDS)]
    return statistics.median(timings[WARM_UP:])


def _bare_url() -> str:
    from chalice import Chalice

    from chalicelib import clock, ids
    from chalicelib.local import server
    from chalicelib.store.base import transaction
    from chalicelib.store.deliveries import DeliveryClaim
    from tests.e2e.stack import free_port

    bare = Chalice(app_name="bare")

    @bare.route("/write", methods=["POST"])
    def write():
        with transaction() as writes:
            for _ in range(5):
                writes.save(DeliveryClaim(ids.new_id(), expires_at=clock.now() + timedelta(days=1)))
        return {"ok": True}

    port = free_port()
    server.start(bare, "127.0.0.1", port)
    return f"http://127.0.0.1:{port}/write"


def measure(stack_url: str, api_key: str, page_id: str, emulator_pid: int, count: int) -> dict:
    session = requests.Session()
    bare_url = _bare_url()
    figures: dict = {"count": count, "bare before": _bare_median(session, bare_url)}
    url = f"{stack_url}/v1/pages/{page_id}/incidents"
    headers = {"Authorization": f"OAuth {api_key}"}
    bare_headers = {"Authorization": "OAuth unused-by-the-bare-handler"}
    windows = {"early": EARLY, "late": late_window(count)}
    # Within each window a bare write follows each create: what the machine gave a write
    # then (other work on it, the publishes running), to tell a create's growth from noise.
    bare_in: dict[str, list[float]] = {name: [] for name in windows}
    backlog = _publish_backlog()
    latencies, memory, waiting = [], {0: rss_mb(emulator_pid)}, {0: backlog()}
    published = {0: _published(page_id)}
    for number in range(count):
        latencies.append(_timed(session, url, headers))
        for name, window in windows.items():
            if number in window:
                bare_in[name].append(_timed(session, bare_url, bare_headers))
        if (number + 1) % MEMORY_EVERY == 0:
            memory[number + 1] = rss_mb(emulator_pid)
            waiting[number + 1] = backlog()
            published[number + 1] = _published(page_id)
    figures["caught up seconds"] = _caught_up_seconds(page_id)
    figures["bare after"] = _bare_median(session, bare_url)
    for name, window in windows.items():
        figures[name] = statistics.median(latencies[window.start : window.stop])
        figures[f"{name} bare"] = statistics.median(bare_in[name])
    figures["emulator MB"] = memory
    figures["publish requests waiting"] = waiting
    figures["changes published"] = published
    figures["latencies"] = [round(value, 1) for value in latencies]
    return figures


def main(arguments: list[str]) -> None:
    use_local_emulator_if_local()
    stack_url, api_key, page_id, emulator_pid = arguments[:4]
    count = int(arguments[4]) if len(arguments) > 4 else COUNT
    print(json.dumps(measure(stack_url, api_key, page_id, int(emulator_pid), count)))


if __name__ == "__main__":
    main(sys.argv[1:])
