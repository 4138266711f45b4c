"""A built-in check on the real local stack: its ticker runs the check against a loopback
target whose answer the test flips; the component goes down after its failures and up after a
success, on the API and the public page, and the response times are a metric's points.

A check's interval is at least a minute; a changed check runs at the next tick, so each run
after the first is brought on by a change of its timeout (not a change of what it asks, which
would count its failures anew) rather than waited for. The interval itself is the frozen-clock
tests' (tests/api/test_checks.py)."""

import pytest

from tests.check_target import CheckTarget
from tests.e2e.stack import LocalStack, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = LocalStack(
        tmp_path_factory.mktemp("data"), SCHEDULE_TICK_SECONDS="1", ALLOW_PRIVATE_TARGETS="1"
    ).start()
    yield running
    running.stop()


def test_a_check_moves_its_component_down_and_up_and_keeps_response_times(stack):
    page = stack.admin("bootstrap")
    key, page_id = page["api_key"], page["page_id"]
    component = stack.send(
        "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": "Checkout"}}
    ).json()

    def status() -> str:
        return stack.get(f"/v1/pages/{page_id}/components/{component['id']}", key).json()["status"]

    def public_status() -> str | None:
        answer = stack.get(f"/s/{page_id}/api/v2/summary.json")
        shown = {c["id"]: c["status"] for c in answer.json()["components"]}
        return shown.get(component["id"])

    with CheckTarget(status=503, body=b"down") as target:
        created = stack.send(
            "POST",
            f"/v1/pages/{page_id}/components/{component['id']}/checks",
            key,
            {
                "check": {
                    "url": target.url,
                    "failure_thresholds": {"degraded_performance": 1, "major_outage": 2},
                }
            },
        )
        assert created.status_code == 201, created.text
        check = created.json()

        check_path = f"/v1/pages/{page_id}/components/{component['id']}/checks/{check['id']}"

        def run_again(timeout_seconds: int) -> None:
            changed = stack.send(
                "PATCH", check_path, key, {"check": {"timeout_seconds": timeout_seconds}}
            )
            assert changed.status_code == 200, changed.text

        # The first run comes at the next tick (a second here); each change brings the next.
        assert wait_for(lambda: status() == "degraded_performance", timeout=20)
        assert len(target.requests) == 1
        run_again(9)
        assert wait_for(lambda: status() == "major_outage", timeout=20)
        assert wait_for(lambda: public_status() == "major_outage", timeout=10)
        assert len(target.requests) == 2

        target.answer(200, b"up")
        run_again(8)
        assert wait_for(lambda: status() == "operational", timeout=20)
        assert wait_for(lambda: public_status() == "operational", timeout=10)
        assert len(target.requests) == 3

    shown = stack.get(check_path, key).json()
    assert shown["last_result"]["ok"] is True and shown["consecutive_failures"] == 0

    def points() -> list[dict]:
        path = f"/v1/pages/{page_id}/metrics/{check['metric_id']}/data"
        return stack.get(path, key).json()["data"]

    # Three runs within seconds: a 30-second interval keeps its last point.
    assert wait_for(lambda: len(points()) >= 1, timeout=20)
    assert all(0 < point["value"] < 10_000 for point in points())
