"""Incident create against a bare Chalice handler doing one 5-item TransactWrite on the same
emulator, and create latency at 20 and at 2,000 incidents (figures; targets in the output)."""

import statistics
import time

import pytest
from chalice import Chalice
from chalice.test import Client

from tests.api.test_bounded_cost import write_history

pytestmark = pytest.mark.bench
ROUNDS = 30


def _median_ms(call, rounds: int = ROUNDS) -> float:
    call()  # warm
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def _bare_transact_write_ms() -> float:
    from datetime import timedelta

    from chalicelib import clock, ids
    from chalicelib.store.base import transaction
    from chalicelib.store.deliveries import DeliveryClaim

    bare = Chalice(app_name="bare")

    @bare.route("/write", methods=["POST"])
    def write():
        with transaction() as writes:
            for _ in range(5):
                writes.save(DeliveryClaim(ids.new_id(), expires_at=clock.now() + timedelta(days=1)))
        return {"ok": True}

    def call():
        assert client.http.post("/write").status_code == 200

    with Client(bare) as client:
        return _median_ms(call)


def test_incident_create_cost(make_world):
    bare = _bare_transact_write_ms()
    medians = {}
    for count in (20, 2000):
        world = make_world(f"{count} incidents")
        write_history(world.page_id, count)
        path = f"/v1/pages/{world.page_id}/incidents"

        def create(path=path, world=world):
            body = {"incident": {"name": "Down", "status": "resolved", "body": "x"}}
            assert world.api.post(path, body).status == 201

        medians[count] = _median_ms(create)
    print()
    print(f"bare handler, one 5-item TransactWrite: {bare:6.1f} ms (median)")
    for count, median in medians.items():
        print(
            f"incident create at {count:5} incidents: {median:6.1f} ms = {median / bare:4.1f}x bare"
        )
    print(f"latency at 2,000 / at 20: {medians[2000] / medians[20]:4.2f} (target <= 1.3)")
    print(f"create / bare: {medians[20] / bare:4.1f}x (target <= 4x)")
