"""Public page throughput on the local stack, and what a view costs in DynamoDB calls.

Figures are printed (`make bench`); nothing here is a timed assertion except the one the
design rests on: a view is one DynamoDB read.
"""

import threading
import time

import pytest
import requests

from tests.e2e.stack import LocalStack

pytestmark = pytest.mark.bench
SECONDS = 3.0
THREADS = 8
VIEWS = {"status page (HTML)": "", "summary.json": "/api/v2/summary.json"}


def populate(send, page_id: str) -> None:
    """A page as a mid-sized service has it: 12 components (4 in a group), 6 incidents."""
    made = [send("components", {"component": {"name": f"Service {n}"}}) for n in range(12)]
    send(
        "component-groups",
        {"component_group": {"name": "Core", "components": [c["id"] for c in made[:4]]}},
    )
    for number in range(6):
        send(
            "incidents",
            {
                "incident": {
                    "name": f"Incident {number}",
                    "body": "Investigating elevated error rates. " * 5,
                    "status": "resolved" if number else "investigating",
                    "components": {made[number]["id"]: "partial_outage"},
                }
            },
        )


def requests_per_second(url: str, threads: int, headers: dict | None = None) -> float:
    stop = time.perf_counter() + SECONDS
    counts = [0] * threads

    def client(index: int) -> None:
        with requests.Session() as session:  # keep-alive, as a browser or a poller
            while time.perf_counter() < stop:
                answer = session.get(url, headers=headers, timeout=10)
                assert answer.status_code in (200, 304)
                counts[index] += 1

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.perf_counter() - started)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("data")).start()
    yield running
    running.stop()


def test_public_page_requests_per_second(stack):
    created = stack.admin("bootstrap")
    key, page_id = created["api_key"], created["page_id"]

    def send(resource: str, body: dict) -> dict:
        answer = stack.send("POST", f"/v1/pages/{page_id}/{resource}", key, body)
        assert answer.status_code == 201, answer.text
        return answer.json()

    populate(send, page_id)
    print(f"\nPublic page on the local stack ({SECONDS:.0f} s per figure, keep-alive clients)")
    for label, suffix in VIEWS.items():
        url = f"{stack.url}/s/{page_id}{suffix}"
        first = requests.get(url, timeout=10)
        assert first.status_code == 200
        one = requests_per_second(url, 1)
        many = requests_per_second(url, THREADS)
        revalidated = requests_per_second(url, 1, {"If-None-Match": first.headers["ETag"]})
        print(
            f"  {label:<20} {one:7.0f} req/s (1 client)  {many:7.0f} req/s ({THREADS} clients)"
            f"  {revalidated:7.0f} req/s (304s, 1 client)"
        )


def test_dynamodb_calls_per_view(world, dynamodb_calls):
    from chalicelib.views import snapshot as page_snapshot

    populate(
        lambda resource, body: world.api.post(f"/v1/pages/{world.page_id}/{resource}", body).json,
        world.page_id,
    )
    page_snapshot.refresh(world.page_id)
    visitor = world.api.as_key(None)
    print("\nDynamoDB calls per public view (12 components, 6 incidents)")
    for suffix in ("", "/api/v2/summary.json", "/history", "/history.rss", "/embed/status.js"):
        before = dynamodb_calls.count()
        views = 20
        for _ in range(views):
            assert visitor.get(f"/s/{world.page_id}{suffix}").status == 200
        calls = dynamodb_calls.operations[before:]
        print(
            f"  /s/<page>{suffix or '':<22} {len(calls) / views:.1f} ({', '.join(sorted(set(calls)))})"
        )
        assert calls.count("GetItem") == views
        if suffix == "/history":
            # The history reads its period's incidents at view time: a Query at most.
            assert set(calls) <= {"GetItem", "Query"} and len(calls) <= 2 * views
        else:
            assert calls == ["GetItem"] * views
