"""Built-in checks at scale, on the real local stack: 1,000 due checks (ten pages of 100, the
most metrics a page holds) against one loopback target, run by one tick. Figures: how long the
checks' step took (requests, recording, queued response times), and the whole tick a minute
later, when all of them are due again; each must fit in its minute."""

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.jobs.checks import WORKERS
from chalicelib.notify.webhook import PER_HOST
from tests.check_target import CheckTarget
from tests.e2e.stack import ROOT, LocalStack

pytestmark = pytest.mark.bench
PAGES = 10
COMPONENTS_PER_PAGE = 10
CHECKS_PER_COMPONENT = 10
CHECKS = PAGES * COMPONENTS_PER_PAGE * CHECKS_PER_COMPONENT

# Run in a process of the stack's settings (its emulator, its stage), as its ticker would.
_TICKS = """
import json, time
from datetime import timedelta
from chalicelib.environment import use_local_emulator_if_local
use_local_emulator_if_local()
import app  # the wiring: commits publish their events as the stack's do
from chalicelib import clock
from chalicelib.jobs import checks, schedule

started = time.monotonic()
ran = checks.run()
first = time.monotonic() - started
clock.freeze(clock.now() + timedelta(seconds=60))  # the next minute: all due again
started = time.monotonic()
summary = schedule.tick()
whole = time.monotonic() - started
print(json.dumps({"ran": ran, "checks_seconds": first, "tick": summary, "tick_seconds": whole}))
"""


def test_a_thousand_checks_run_within_their_minute(tmp_path):
    stack = LocalStack(
        tmp_path / "data", SCHEDULE_TICK_SECONDS="3600", ALLOW_PRIVATE_TARGETS="1"
    ).start()
    try:
        with CheckTarget() as target:
            pages = [stack.admin("bootstrap") for _ in range(PAGES)]
            started = time.monotonic()
            made = _make_checks(stack, pages, target.url)
            made_seconds = time.monotonic() - started
            assert made == CHECKS
            done = subprocess.run(
                [sys.executable, "-c", _TICKS],
                cwd=ROOT,
                env=stack.environment,
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            requests = len(target.requests)
        page = pages[0]
        components = stack.get(f"/v1/pages/{page['page_id']}/components", page["api_key"]).json()
        listed = stack.get(
            f"/v1/pages/{page['page_id']}/components/{components[0]['id']}/checks",
            page["api_key"],
        ).json()
    finally:
        stack.stop()

    print(
        f"\nchecks: {CHECKS} made in {made_seconds:.1f} s through the API; one tick ran "
        f"{figures['ran']} due checks against a loopback target in "
        f"{figures['checks_seconds']:.2f} s (requests {WORKERS} at once, {PER_HOST} per host; results "
        f"recorded page by page; response times queued as metric data); the whole tick a "
        f"minute later, all {figures['tick']['checks']} due again: "
        f"{figures['tick_seconds']:.2f} s; the target got {requests} requests"
    )
    assert figures["ran"] == CHECKS and figures["tick"]["checks"] == CHECKS
    assert requests == 2 * CHECKS
    assert all(check["last_result"]["ok"] for check in listed)
    assert figures["checks_seconds"] < 60 and figures["tick_seconds"] < 60


def _make_checks(stack: LocalStack, pages: list[dict], url: str) -> int:
    def component_with_checks(page: dict, number: int) -> int:
        key, page_id = page["api_key"], page["page_id"]
        component = stack.send(
            "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": f"S{number}"}}
        ).json()
        made = 0
        for _ in range(CHECKS_PER_COMPONENT):
            answer = stack.send(
                "POST",
                f"/v1/pages/{page_id}/components/{component['id']}/checks",
                key,
                {"check": {"url": url}},
            )
            assert answer.status_code == 201, answer.text
            made += 1
        return made

    work = [(page, number) for page in pages for number in range(COMPONENTS_PER_PAGE)]
    with ThreadPoolExecutor(8) as pool:
        return sum(pool.map(lambda item: component_with_checks(*item), work))
