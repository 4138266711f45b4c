"""Incident create on the local stack over HTTP as one day's history grows to 2,000 incidents,
created back to back through the API with the page's publishes running, next to a bare
Chalice handler doing one 5-item TransactWrite on the same emulator; and the emulator's memory
at 2,000 incidents (figures; targets in the output).

    .venv/bin/python -m pytest -q -s -m bench tests/bench/test_write_bench.py

`WRITE_BENCH_INCIDENTS` sets another count (the late window is always its last 30 creates).
"""

import json
import os
import statistics
import subprocess
import sys

import pytest

from tests.bench import write_latency
from tests.e2e.stack import ROOT, LocalStack

pytestmark = pytest.mark.bench


def test_incident_create_cost_as_the_day_fills(tmp_path):
    count = int(os.environ.get("WRITE_BENCH_INCIDENTS", write_latency.COUNT))
    stack = LocalStack(tmp_path / "data").start()
    try:
        created = stack.admin("bootstrap")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.bench.write_latency",
                stack.url,
                created["api_key"],
                created["page_id"],
                str(stack.child_pid("emulator")),
                str(count),
            ],
            cwd=ROOT,
            env=stack.environment,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    finally:
        stack.stop()
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    bare = (figures["bare before"] + figures["bare after"]) / 2
    early, late = figures["early"], figures["late"]
    window = write_latency.late_window(count)
    print()
    print(
        f"bare handler, one 5-item TransactWrite: {figures['bare before']:6.1f} ms before the "
        f"creates, {figures['bare after']:6.1f} ms after (median, over HTTP)"
    )
    for label, median, bare_then in (
        (
            f"creates {write_latency.EARLY.start + 1}-{write_latency.EARLY.stop}",
            early,
            figures["early bare"],
        ),
        (f"creates {window.start + 1}-{window.stop}", late, figures["late bare"]),
    ):
        print(
            f"incident create, {label:15}: {median:6.1f} ms = {median / bare:4.1f}x bare "
            f"(a bare write between them: {bare_then:5.1f} ms)"
        )
    print(f"create at {count} / at 20: {late / early:4.2f} (target <= 1.3)")
    # The same against the bare write of each window: the growth less what the machine's
    # other work did to both (the publishes' share shows in both too, so this is no target).
    growth = (late / figures["late bare"]) / (early / figures["early bare"])
    print(f"  the same, each window against its bare writes: {growth:4.2f}")
    latencies = figures["latencies"]
    step = max(1, count // 8)
    print(
        f"median create by incidents already made (each {step}): "
        + ", ".join(
            f"{start}: {statistics.median(latencies[start : start + step]):.0f}"
            for start in range(0, count, step)
        )
        + " ms"
    )
    memory = {int(n): mb for n, mb in figures["emulator MB"].items()}
    print(
        "emulator RSS (MB) by incidents created: "
        + ", ".join(f"{n}: {mb:.0f}" for n, mb in sorted(memory.items()) if n % 500 == 0)
    )
    waiting = {int(n): depth for n, depth in figures["publish requests waiting"].items()}
    print(
        "publish requests waiting, by incidents created: "
        + ", ".join(f"{n}: {depth}" for n, depth in sorted(waiting.items()) if n % 500 == 0)
    )
    shown = {int(n): pair for n, pair in figures["changes published"].items()}
    print(
        "public changes committed / shown by the published files, by incidents created: "
        + ", ".join(f"{n}: {c}/{p}" for n, (c, p) in sorted(shown.items()) if n % 500 == 0)
    )
    caught_up = figures["caught up seconds"]
    print(
        "the published files showed the last create "
        + (f"{caught_up:.1f} s after it" if caught_up is not None else "not within 600 s")
    )
    print(f"emulator RSS at {count}: {memory[max(memory)]:.0f} MB (target <= 1,024)")
