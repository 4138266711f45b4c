"""Incident create on the local stack over HTTP, next to a bare Chalice handler doing one 5-item
TransactWrite on the same emulator, and its latency at 20 and at 2,000 incidents on one page
(figures; targets in the output)."""

import json
import subprocess
import sys

import pytest

from tests.e2e.stack import ROOT, LocalStack

pytestmark = pytest.mark.bench


def test_incident_create_cost(tmp_path):
    stack = LocalStack(tmp_path / "data").start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.bench.write_latency", stack.url],
            cwd=ROOT,
            env=stack.environment,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        stack.stop()
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    bare, at_20, at_2000 = figures["bare"], figures["create at 20"], figures["create at 2000"]
    print()
    print(f"bare handler, one 5-item TransactWrite: {bare:6.1f} ms (median, over HTTP)")
    for count, median in ((20, at_20), (2000, at_2000)):
        print(
            f"incident create at {count:5} incidents: {median:6.1f} ms = {median / bare:4.1f}x bare"
        )
    print(f"latency at 2,000 / at 20: {at_2000 / at_20:4.2f} (target <= 1.3)")
    print(f"create / bare: {at_20 / bare:4.1f}x (target <= 4x)")
