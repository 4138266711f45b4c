"""The published site on the local stack, under load, against a bare file server.

On a stack of its own, a populated page (10 components, a group, 2 open incidents with 3
updates each, a scheduled maintenance) while a writer changes a component 5 times a second:

- wrk on the public page and on summary.json, as the stack serves them (from files, once the
  front serves the published site), as a bare node `http` server serves the same bytes read
  from a file on each request (the baseline), and as the app renders them (the API server's
  own port behind the front, when the stack has one);
- freshness: from a component change's answer until summary.json shows it;
- outage: the public page while the emulator is stopped (SIGSTOP).

Figures are printed with their targets (`make bench`; `make wrk` installs wrk and node).
The assertions only check that the figures mean something: the runs had no errors, the
baseline answered, every change showed.
"""

import itertools
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import requests

from tests.e2e.stack import LocalStack, free_port, wait_for

pytestmark = pytest.mark.bench
WRK = ["wrk", "-t2", "-c64", "-d10s", "--latency"]
VIEWS = {"home page": "", "summary.json": "/api/v2/summary.json"}
WRITES_PER_SECOND = 5
FRESHNESS_CHANGES = 30
POLL_SECONDS = 0.02
STATUSES = ["degraded_performance", "partial_outage", "major_outage", "operational"]
# The targets the figures are printed against.
RATIO_TARGET = 0.8
P99_TARGET_MS = 50.0
FRESH_P50_TARGET = 1.0
FRESH_P95_TARGET = 2.0
OUTAGE_TARGET = 2.0

# A bare file server: the same bytes, read from the file on each request.
NODE_SERVER = """\
const http = require("http");
const fs = require("fs");
const [port, file] = process.argv.slice(2);
const type = file.endsWith(".json") ? "application/json" : "text/html; charset=utf-8";
http.createServer((request, response) => {
  fs.readFile(file, (error, body) => {
    if (error) { response.writeHead(500); response.end(); return; }
    response.writeHead(200, { "Content-Type": type, "Content-Length": body.length });
    response.end(body);
  });
}).listen(Number(port), "127.0.0.1");
"""


@dataclass
class Load:
    """One wrk run's figures."""

    requests: int
    rps: float
    p99_ms: float
    errors: int  # socket errors (connect, read, write, timeout) and answers not 2xx or 3xx


_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def parse_wrk(text: str) -> Load:
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s|m|h)\s*$", text, re.MULTILINE)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.MULTILINE)
    count = re.search(r"^\s*(\d+) requests in ", text, re.MULTILINE)
    if not (p99 and rps and count):
        raise ValueError(f"not wrk's output:\n{text}")
    errors = 0
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    if sockets:
        errors += sum(int(number) for number in sockets.groups())
    statuses = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if statuses:
        errors += int(statuses.group(1))
    return Load(
        requests=int(count.group(1)),
        rps=float(rps.group(1)),
        p99_ms=float(p99.group(1)) * _UNIT_MS[p99.group(2)],
        errors=errors,
    )


def wrk(url: str) -> Load:
    done = subprocess.run([*WRK, url], capture_output=True, text=True, timeout=60, check=True)
    return parse_wrk(done.stdout)


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def node_server(folder: Path, body: bytes, name: str) -> Iterator[str]:
    """The baseline: node serving `body` from a file; yields its URL."""
    script, served = folder / "serve.js", folder / name
    script.write_text(NODE_SERVER)
    served.write_bytes(body)
    port = free_port()
    process = subprocess.Popen(["node", str(script), str(port), str(served)])
    try:
        assert wait_for(lambda: listening(port), timeout=10), "the node baseline did not start"
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=10)


class Writer(threading.Thread):
    """PATCHes a component's status `WRITES_PER_SECOND` times a second until stopped."""

    def __init__(self, stack: LocalStack, key: str, page_id: str, component_id: str):
        super().__init__(daemon=True)
        self.url = f"{stack.url}/v1/pages/{page_id}/components/{component_id}"
        self.headers = {"Authorization": f"OAuth {key}"}
        self.stopped = threading.Event()
        self.timings: list[float] = []
        self.errors: list[str] = []

    def run(self) -> None:
        every = 1 / WRITES_PER_SECOND
        began = time.monotonic()
        with requests.Session() as session:
            for number in itertools.count():
                if self.stopped.wait(max(0.0, began + number * every - time.monotonic())):
                    return
                body = {"component": {"status": STATUSES[number % len(STATUSES)]}}
                started = time.perf_counter()
                try:
                    answer = session.patch(self.url, json=body, headers=self.headers, timeout=30)
                    if answer.status_code != 200:
                        self.errors.append(str(answer.status_code))
                except requests.RequestException as error:
                    self.errors.append(type(error).__name__)
                self.timings.append(time.perf_counter() - started)

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=40)


def populate(stack: LocalStack, key: str, page_id: str) -> list[str]:
    """The page under test; returns its component ids."""

    def send(method: str, path: str, body: dict, status: int = 201) -> dict:
        answer = stack.send(method, f"/v1/pages/{page_id}/{path}", key, body)
        assert answer.status_code == status, answer.text
        return answer.json()

    made = [send("POST", "components", {"component": {"name": f"Service {n}"}}) for n in range(10)]
    ids = [component["id"] for component in made]
    send("POST", "component-groups", {"component_group": {"name": "Core", "components": ids[:4]}})
    for number in range(2):
        incident = send(
            "POST",
            "incidents",
            {
                "incident": {
                    "name": f"Elevated errors {number}",
                    "body": "Investigating elevated error rates. " * 3,
                    "status": "investigating",
                    "components": {ids[4 + number]: "partial_outage"},
                    "deliver_notifications": False,
                }
            },
        )
        for status in ("identified", "monitoring"):  # 3 updates with the first
            body = {"incident": {"status": status, "body": f"Now {status}."}}
            send("PATCH", f"incidents/{incident['id']}", body, 200)
    starts = datetime.now(UTC) + timedelta(days=1)
    send(
        "POST",
        "incidents",
        {
            "incident": {
                "name": "Database maintenance",
                "body": "Planned maintenance of the primary database.",
                "status": "scheduled",
                "scheduled_for": starts.isoformat(),
                "scheduled_until": (starts + timedelta(hours=2)).isoformat(),
                "components": {ids[8]: "operational"},
                "deliver_notifications": False,
            }
        },
    )
    return ids


def summary(session: requests.Session, url: str) -> dict | None:
    try:
        answer = session.get(url, timeout=5)
    except requests.RequestException:
        return None
    return answer.json() if answer.status_code == 200 else None


def component_status(data: dict | None, component_id: str) -> str | None:
    for component in (data or {}).get("components", []):
        if component["id"] == component_id:
            return component["status"]
    return None


def identity_bytes(url: str) -> bytes:
    """The body as wrk gets it (wrk asks for no encoding)."""
    answer = requests.get(url, headers={"Accept-Encoding": "identity"}, timeout=10)
    assert answer.status_code == 200, answer.status_code
    assert "Content-Encoding" not in answer.headers
    return answer.content


def freshness(stack: LocalStack, key: str, page_id: str, component_id: str) -> list[float]:
    """Seconds from each change's answer until summary.json shows it (None: never, in 15 s)."""
    url = f"{stack.url}/s/{page_id}/api/v2/summary.json"
    path = f"/v1/pages/{page_id}/components/{component_id}"
    headers = {"Authorization": f"OAuth {key}"}
    seen: list[float] = []
    with requests.Session() as session:
        for number in range(FRESHNESS_CHANGES):
            status = STATUSES[number % len(STATUSES)]
            body = {"component": {"status": status}}
            answer = session.patch(stack.url + path, json=body, headers=headers, timeout=30)
            assert answer.status_code == 200, answer.text
            answered = time.monotonic()
            while component_status(summary(session, url), component_id) != status:
                if time.monotonic() - answered > 15:
                    break
                time.sleep(POLL_SECONDS)
            seen.append(time.monotonic() - answered)
    return seen


def app_url(stack: LocalStack) -> str | None:
    """The app's own server behind the front (`site_server PORT API_PORT SITE_DIR`); None
    when the stack has no front (the app answers on PORT)."""
    try:
        front = stack.child_pid("site_server")
    except AssertionError:
        return None
    arguments = Path(f"/proc/{front}/cmdline").read_bytes().decode().split("\0")
    api_port = arguments[arguments.index("chalicelib.local.site_server") + 2]
    return f"http://127.0.0.1:{api_port}"


def during_outage(stack: LocalStack, page_id: str) -> tuple[str, float]:
    """The home page's answer (status or error) and its time, with the emulator stopped."""
    emulator = stack.child_pid("emulator")
    os.kill(emulator, signal.SIGSTOP)
    try:
        started = time.monotonic()
        try:
            outcome = str(requests.get(f"{stack.url}/s/{page_id}", timeout=5).status_code)
        except requests.RequestException as error:
            outcome = type(error).__name__
        return outcome, time.monotonic() - started
    finally:
        os.kill(emulator, signal.SIGCONT)


def verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def report(
    loads: dict[str, dict[str, Load | None]],
    writer: Writer,
    fresh: list[float],
    outcome: str,
    outage_seconds: float,
    from_files: bool,
) -> None:
    """The figures, and each against its target."""
    print(
        f"\nPublished site under load ({' '.join(WRK)}; a writer PATCHes a component "
        f"{WRITES_PER_SECOND}/s; 10 components, a group, 2 open incidents, a maintenance)"
    )
    print(f"  served from files (site.json published): {'yes' if from_files else 'no'}")
    print(f"  {'view':<14} {'server':<22} {'req/s':>9} {'p99 ms':>8} {'errors':>7}")
    labels = {
        "project": "project (PORT)",
        "baseline": "node, same bytes",
        "dynamic": "app (API_PORT)",
    }
    for view, runs in loads.items():
        for name, load in runs.items():
            if load is None:
                print(f"  {view:<14} {labels[name]:<22} skipped: no front, the app is on PORT")
                continue
            if load.requests == 0:  # wrk reports no timeouts when nothing came back at all
                print(f"  {view:<14} {labels[name]:<22} no answer within the 10 s")
                continue
            print(
                f"  {view:<14} {labels[name]:<22} {load.rps:9.0f} {load.p99_ms:8.1f}"
                f" {load.errors:7}"
            )
        ratio = runs["project"].rps / runs["baseline"].rps
        print(f"  {view:<14} {'project / baseline':<22} {ratio:9.2f}x")
    timings = sorted(writer.timings)
    print(
        f"  writer: {len(timings)} PATCHes, {len(writer.errors)} errors, "
        f"p50 {statistics.median(timings) * 1000:.0f} ms, "
        f"p99 {timings[int(0.99 * (len(timings) - 1))] * 1000:.0f} ms"
    )
    fresh_sorted = sorted(fresh)
    p50 = statistics.median(fresh_sorted)
    p95 = fresh_sorted[int(0.95 * (len(fresh_sorted) - 1))]
    print(
        f"  freshness ({FRESHNESS_CHANGES} changes, summary.json polled every "
        f"{POLL_SECONDS * 1000:.0f} ms): p50 {p50:.2f} s, p95 {p95:.2f} s, "
        f"max {fresh_sorted[-1]:.2f} s"
    )
    print(f"  outage (emulator stopped): home page {outcome} in {outage_seconds:.2f} s")
    print("Targets")
    for view, runs in loads.items():
        ratio = runs["project"].rps / runs["baseline"].rps
        p99 = runs["project"].p99_ms
        print(
            f"  {view:<14} req/s {ratio:.2f}x baseline (>= {RATIO_TARGET}x) "
            f"{verdict(ratio >= RATIO_TARGET)}; p99 {p99:.1f} ms (<= {P99_TARGET_MS:.0f} ms) "
            f"{verdict(p99 <= P99_TARGET_MS)}"
        )
    print(
        f"  freshness      p50 {p50:.2f} s (<= {FRESH_P50_TARGET:.0f} s) "
        f"{verdict(p50 <= FRESH_P50_TARGET)}; p95 {p95:.2f} s (<= {FRESH_P95_TARGET:.0f} s) "
        f"{verdict(p95 <= FRESH_P95_TARGET)}"
    )
    served = outcome == "200" and outage_seconds <= OUTAGE_TARGET
    print(
        f"  outage         {outcome} in {outage_seconds:.2f} s (200 within "
        f"{OUTAGE_TARGET:.0f} s) {verdict(served)}"
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not (shutil.which("wrk") and shutil.which("node")):
        pytest.skip("needs wrk and node: `make wrk` installs them")
    running = LocalStack(tmp_path_factory.mktemp("data")).start()
    yield running
    running.stop()


def test_published_site_under_load(stack, tmp_path):
    created = stack.admin("bootstrap")
    key, page_id = created["api_key"], created["page_id"]
    ids = populate(stack, key, page_id)
    summary_url = f"{stack.url}/s/{page_id}/api/v2/summary.json"
    with requests.Session() as session:

        def populated() -> bool:
            data = summary(session, summary_url)
            return bool(
                data
                and len(data["components"]) >= 10
                and len(data["incidents"]) == 2
                and len(data["scheduled_maintenances"]) == 1
            )

        assert wait_for(populated, timeout=30), "the page never showed what was written"
    manifest = stack.data_dir / "site" / "s" / page_id / "site.json"
    api_url = app_url(stack)

    writer = Writer(stack, key, page_id, ids[0])
    writer.start()
    try:
        loads: dict[str, dict[str, Load | None]] = {}
        for view, suffix in VIEWS.items():
            url = f"{stack.url}/s/{page_id}{suffix}"
            body = identity_bytes(url)
            project = wrk(url)
            with node_server(tmp_path, body, "summary.json" if suffix else "index.html") as base:
                assert identity_bytes(base) == body
                baseline = wrk(base)
            loads[view] = {"project": project, "baseline": baseline}
        fresh = freshness(stack, key, page_id, ids[1])
        # Last: the app keeps rendering what wrk asked for after wrk has gone.
        for view, suffix in VIEWS.items():
            loads[view]["dynamic"] = wrk(f"{api_url}/s/{page_id}{suffix}") if api_url else None
    finally:
        writer.stop()
    outcome, outage_seconds = during_outage(stack, page_id)

    report(loads, writer, fresh, outcome, outage_seconds, manifest.exists())

    for view, runs in loads.items():
        for name in ("project", "baseline"):
            assert runs[name].requests > 0 and runs[name].errors == 0, (view, name, runs[name])
    assert not writer.errors, writer.errors[:10]
    assert max(fresh) <= 15, "a change never showed on summary.json within 15 s"
