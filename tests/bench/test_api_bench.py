"""DynamoDB calls per request for the common management calls (figures, not limits)."""

import time

import pytest

pytestmark = pytest.mark.bench


def test_dynamodb_calls_per_request(world, dynamodb_calls, monkeypatch):
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "100000")
    api, page = world.api, world.page_id
    component = api.post(f"/v1/pages/{page}/components", {"component": {"name": "API"}}).json
    incident = api.post(f"/v1/pages/{page}/incidents", {"incident": {"name": "x"}}).json
    calls = {
        "GET /pages/{id}": lambda: api.get(f"/v1/pages/{page}"),
        "GET /components": lambda: api.get(f"/v1/pages/{page}/components"),
        "PATCH /components/{id} status": lambda: api.patch(
            f"/v1/pages/{page}/components/{component['id']}",
            {"component": {"status": "major_outage"}},
        ),
        "GET /incidents": lambda: api.get(f"/v1/pages/{page}/incidents"),
        "GET /incidents/{id}": lambda: api.get(f"/v1/pages/{page}/incidents/{incident['id']}"),
        "PATCH /incidents/{id} body": lambda: api.patch(
            f"/v1/pages/{page}/incidents/{incident['id']}", {"incident": {"body": "more"}}
        ),
    }
    print()
    for name, call in calls.items():
        call()  # warm
        before = dynamodb_calls.count()
        started = time.perf_counter()
        rounds = 20
        for _ in range(rounds):
            call()
        seconds = (time.perf_counter() - started) / rounds
        per_request = (dynamodb_calls.count() - before) / rounds
        print(
            f"{name:34} {per_request:5.1f} DynamoDB calls/request  {1 / seconds:7.0f} requests/s (in-process moto)"
        )
