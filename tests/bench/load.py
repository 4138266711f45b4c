"""`make load`: 50 concurrent clients for 60 s on loopback against the local stack, a mix of
public reads and API writes, as a page sees during an outage. Prints throughput, errors and
p50/p99 per kind of request, then for all views (public reads) and for all writes.

    python -m tests.bench.load [--clients 50] [--seconds 60] [--writers 10] [--mixed]
                               [--url URL --key KEY --page ID]

Without `--url` it starts a stack of its own (a fresh data directory, no rate limit) and
stops it at the end. Each client is a thread with its own keep-alive connection that sends
its next request as soon as the last is answered. `--writers` of them are API clients (the
incident managers and integrations of an outage) and the others read the public page, so
that readers outnumber writers as they do when a page is busy; each draws its next request
at random with the weights below. With `--mixed` every client draws from the whole mix: since
views are answered from published files at once, nearly every client is then in a write.

Incidents live as they do in an outage (`Outage`): a few are open at a time, the clients
post updates to them, and the update after `UPDATES_PER_INCIDENT` resolves one, which makes
room for the next incident opened. An incident created while the page has as many open as it
takes is entered already resolved, as a report written after the fact. So however long the
run, the page keeps a handful of open incidents with a few updates each, and its history grows.
"""

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import requests

from tests.e2e.stack import LocalStack

# kind: (weight, is a write)
MIX = {
    "public page": (30, False),
    "summary.json": (25, False),
    "status.json": (10, False),
    "incident list": (10, False),
    "component update": (10, True),
    "incident update": (13, True),
    # Still about one new incident a second over the run: far more than any outage has.
    "incident create": (2, True),
}
# Public reads (what a visitor's browser or a poller asks for) and API writes; the incident
# list is an API read, in neither.
VIEWS = ("public page", "summary.json", "status.json")
WRITES = tuple(kind for kind, (_, is_write) in MIX.items() if is_write)
STATUSES = ["operational", "degraded_performance", "partial_outage", "major_outage"]
OPEN_AT_ONCE = 4
# API clients (incident managers, integrations) among the clients; the others read.
WRITERS = 10
UPDATES_PER_INCIDENT = 4


class Outage:
    """The incidents open on the page, shared by the clients."""

    def __init__(self, incident_ids: list[str]):
        self.open = list(incident_ids)
        self.updates: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def next_update(self, chooser: random.Random) -> tuple[str, bool] | None:
        """An open incident to update and whether this update resolves it; None if none."""
        with self.lock:
            known = [incident_id for incident_id in self.open if incident_id]
            if not known:
                return None
            incident_id = chooser.choice(known)
            self.updates[incident_id] += 1
            resolving = self.updates[incident_id] > UPDATES_PER_INCIDENT
            if resolving:
                self.open.remove(incident_id)
            return incident_id, resolving

    def take_one_more(self) -> bool:
        """Whether a new incident may be open (counted as open at once, if so)."""
        with self.lock:
            if len(self.open) >= OPEN_AT_ONCE:
                return False
            self.open.append("")  # its place, until it has an id
            return True

    def opened(self, incident_id: str | None) -> None:
        with self.lock:
            self.open.remove("")
            if incident_id:
                self.open.append(incident_id)


class Target:
    """The page under load: its components and open incidents, made before the clock starts."""

    def __init__(self, url: str, key: str, page_id: str):
        self.url, self.key, self.page_id = url, key, page_id
        self.headers = {"Authorization": f"OAuth {key}"}
        session = requests.Session()
        self.component_ids = [
            self._made(session, "components", {"component": {"name": f"Service {n}"}})
            for n in range(8)
        ]
        self.outage = Outage(
            [
                self._made(session, "incidents", {"incident": {"name": f"Trouble {n}"}})
                for n in range(OPEN_AT_ONCE)
            ]
        )
        # A page in an outage has been viewed before: its public body exists.
        session.get(f"{url}/s/{page_id}", timeout=30).raise_for_status()

    def _made(self, session: requests.Session, resource: str, body: dict) -> str:
        answer = session.post(
            f"{self.url}/v1/pages/{self.page_id}/{resource}",
            json=body,
            headers=self.headers,
            timeout=30,
        )
        answer.raise_for_status()
        return answer.json()["id"]

    def send(self, session: requests.Session, kind: str) -> requests.Response:
        api = f"{self.url}/v1/pages/{self.page_id}"
        public = f"{self.url}/s/{self.page_id}"
        if kind == "public page":
            return session.get(public, timeout=30)
        if kind == "summary.json":
            return session.get(f"{public}/api/v2/summary.json", timeout=30)
        if kind == "status.json":
            return session.get(f"{public}/api/v2/status.json", timeout=30)
        if kind == "incident list":
            return session.get(f"{api}/incidents?limit=20", headers=self.headers, timeout=30)
        if kind == "component update":
            body = {"component": {"status": random.choice(STATUSES)}}
            component_id = random.choice(self.component_ids)
            return session.patch(
                f"{api}/components/{component_id}", json=body, headers=self.headers, timeout=30
            )
        if kind == "incident update":
            chosen = self.outage.next_update(random)
            if chosen is not None:
                incident_id, resolving = chosen
                status = "resolved" if resolving else "monitoring"
                body = {"incident": {"status": status, "body": f"Now {status}"}}
                return session.patch(
                    f"{api}/incidents/{incident_id}", json=body, headers=self.headers, timeout=30
                )
        return self._create(session, api)

    def _create(self, session: requests.Session, api: str) -> requests.Response:
        """An open incident while the page has room for one, else one reported resolved."""
        opening = self.outage.take_one_more()
        body = {
            "incident": {
                "name": "Load",
                "body": "Looking" if opening else "It was fixed",
                "status": "investigating" if opening else "resolved",
                "deliver_notifications": False,
            }
        }
        answer = None
        try:
            answer = session.post(f"{api}/incidents", json=body, headers=self.headers, timeout=30)
            return answer
        finally:
            if opening:
                created = answer is not None and answer.status_code == 201
                self.outage.opened(answer.json()["id"] if created else None)


def run(target: Target, clients: int, seconds: float, writers: int | None = None) -> dict:
    """`writers` of the clients send the API's requests and the others read the public page;
    None: each client draws every request from the whole mix."""
    populations = [list(MIX)] if writers is None else [[k for k in MIX if k not in VIEWS]]
    if writers is not None:
        populations.append(list(VIEWS))
    timings: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    answers: dict = defaultdict(int)  # error answers by status (or exception)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(seed: int) -> None:
        chooser = random.Random(seed)
        session = requests.Session()
        kinds = populations[0 if writers is None or seed < writers else 1]
        weights = [MIX[kind][0] for kind in kinds]
        while time.monotonic() < deadline:
            kind = chooser.choices(kinds, weights)[0]
            started = time.perf_counter()
            try:
                status = target.send(session, kind).status_code
            except requests.RequestException as error:
                status = type(error).__name__
            ok = isinstance(status, int) and status < 400
            elapsed = time.perf_counter() - started
            with lock:
                timings[kind].append(elapsed)
                if not ok:
                    failures[kind] += 1
                    answers[status] += 1

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "elapsed": time.monotonic() - began,
        "timings": timings,
        "failures": failures,
        "answers": answers,
    }


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(result: dict, clients: int) -> int:
    timings, failures, elapsed = result["timings"], result["failures"], result["elapsed"]
    total = sum(len(values) for values in timings.values())
    errors = sum(failures.values())
    print(
        f"{clients} clients, {elapsed:.0f} s: {total} requests, {total / elapsed:.1f}/s, "
        f"{errors} errors"
    )
    if result["answers"]:
        print("errors by answer: " + ", ".join(f"{k}: {v}" for k, v in result["answers"].items()))
    print(f"{'kind':18} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p99 ms':>8}")
    for kind in MIX:
        values = timings.get(kind, [])
        if not values:
            continue
        print(
            f"{kind:18} {len(values):8} {failures.get(kind, 0):6} "
            f"{statistics.median(values) * 1000:8.0f} {percentile(values, 0.99) * 1000:8.0f}"
        )
    # The lines docs/testing.md quotes: every public read together, every write together.
    for label, kinds in (("public views", VIEWS), ("API writes", WRITES)):
        values = [value for kind in kinds for value in timings.get(kind, [])]
        if values:
            print(
                f"{label:18} {len(values):8} {sum(failures.get(k, 0) for k in kinds):6} "
                f"{statistics.median(values) * 1000:8.0f} {percentile(values, 0.99) * 1000:8.0f}"
            )
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--writers", type=int, default=WRITERS)
    parser.add_argument(
        "--mixed", action="store_true", help="every client draws from the whole mix"
    )
    parser.add_argument("--url")
    parser.add_argument("--key")
    parser.add_argument("--page")
    options = parser.parse_args()
    stack = None
    if options.url:
        url, key, page_id = options.url, options.key, options.page
    else:
        stack = LocalStack(Path(tempfile.mkdtemp(prefix="load-")) / "data").start()
        created = stack.admin("bootstrap")
        url, key, page_id = stack.url, created["api_key"], created["page_id"]
    try:
        target = Target(url, key, page_id)
        writers = None if options.mixed else options.writers
        result = run(target, options.clients, options.seconds, writers)
        errors = report(result, options.clients)
    finally:
        if stack:
            stack.stop()
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
