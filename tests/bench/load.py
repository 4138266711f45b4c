"""`make load`: 50 concurrent clients for 60 s on loopback against the local stack, a mix of
public reads and API writes, as a page sees during an outage. Prints throughput, errors and
p50/p99 per kind of request.

    python -m tests.bench.load [--clients 50] [--seconds 60] [--url URL --key KEY --page ID]

Without `--url` it starts a stack of its own (a fresh data directory, no rate limit) and
stops it at the end. Each client is a thread with its own keep-alive connection that sends
its next request as soon as the last is answered; which request is drawn at random with the
weights below, so that readers outnumber writers as they do when a page is busy. Incidents
live as a responder's do: a client that opens one posts a few updates to it and resolves it
before it opens another, so the page has a handful open at a time (and updates also go to
four incidents every client shares), rather than one more open incident every few requests.
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
    "incident update": (10, True),
    "incident create": (5, True),
}
STATUSES = ["operational", "degraded_performance", "partial_outage", "major_outage"]
# A client's own incident is resolved by its update after this many.
UPDATES_BEFORE_RESOLVING = 2


class Responder:
    """One client's own incident, if it has one open, and the updates it has posted to it."""

    def __init__(self):
        self.incident_id: str | None = None
        self.updates = 0


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
        self.incident_ids = [
            self._made(session, "incidents", {"incident": {"name": f"Trouble {n}"}})
            for n in range(4)
        ]

    def _made(self, session: requests.Session, resource: str, body: dict) -> str:
        answer = session.post(
            f"{self.url}/v1/pages/{self.page_id}/{resource}",
            json=body,
            headers=self.headers,
            timeout=30,
        )
        answer.raise_for_status()
        return answer.json()["id"]

    def send(
        self, session: requests.Session, kind: str, responder: Responder | None = None
    ) -> requests.Response:
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
        if responder is not None and responder.incident_id:
            return self._own_incident_update(session, responder)
        if kind == "incident update":
            body = {"incident": {"status": "identified", "body": "Still on it"}}
            incident_id = random.choice(self.incident_ids)
            return session.patch(
                f"{api}/incidents/{incident_id}", json=body, headers=self.headers, timeout=30
            )
        body = {"incident": {"name": "Load", "body": "Looking", "deliver_notifications": False}}
        answer = session.post(f"{api}/incidents", json=body, headers=self.headers, timeout=30)
        if responder is not None and answer.status_code == 201:
            responder.incident_id, responder.updates = answer.json()["id"], 0
        return answer

    def _own_incident_update(
        self, session: requests.Session, responder: Responder
    ) -> requests.Response:
        """The next update of the client's own incident; after a few, the one resolving it."""
        resolving = responder.updates >= UPDATES_BEFORE_RESOLVING
        status = "resolved" if resolving else "monitoring"
        body = {"incident": {"status": status, "body": "Resolved" if resolving else "A fix is out"}}
        answer = session.patch(
            f"{self.url}/v1/pages/{self.page_id}/incidents/{responder.incident_id}",
            json=body,
            headers=self.headers,
            timeout=30,
        )
        responder.updates += 1
        if resolving:
            responder.incident_id = None
        return answer


def run(target: Target, clients: int, seconds: float) -> dict:
    kinds = list(MIX)
    weights = [MIX[kind][0] for kind in kinds]
    timings: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    answers: dict = defaultdict(int)  # error answers by status (or exception)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(seed: int) -> None:
        chooser = random.Random(seed)
        session = requests.Session()
        responder = Responder()
        while time.monotonic() < deadline:
            kind = chooser.choices(kinds, weights)[0]
            if kind.startswith("incident ") and kind != "incident list" and responder.incident_id:
                kind = "incident update"  # a responder updates the incident it has open
            started = time.perf_counter()
            try:
                status = target.send(session, kind, responder).status_code
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
    writes = [v for kind, values in timings.items() if MIX[kind][1] for v in values]
    if writes:
        print(
            f"{'API writes':18} {len(writes):8} {'':6} "
            f"{statistics.median(writes) * 1000:8.0f} {percentile(writes, 0.99) * 1000:8.0f}"
        )
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
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
        errors = report(run(target, options.clients, options.seconds), options.clients)
    finally:
        if stack:
            stack.stop()
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
