"""Write latency of the local stack's emulator under each `JOURNAL_FSYNC` policy: a PutItem
through the journal (as the stack's emulator wraps moto), one writer alone and `WRITERS`
writing at once, next to the bare emulator (moto without the journal) measured in the same
run. Figures only (`make bench`); the data directory is on the disk the tests' temporary
files are on, which is what an fsync costs here."""

import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.local.journal import Journal
from chalicelib.local.journal_files import ALWAYS, INTERVAL, FsyncPolicy
from tests.unit.test_journal import MOTO, REGION, TABLE, dynamodb, fresh_emulator

pytestmark = pytest.mark.bench
ROUNDS = 60
# Each policy is measured in this many turns, taken in rotation.
TURNS = 4
WRITERS = 8


def _latencies_ms(app, writers: int, prefix: str) -> tuple[list[float], float]:
    """Each write's time to its answer, `writers` writing at once, `ROUNDS` writes each; and
    the writes a second they made together."""
    timings: list[float] = []
    lock = threading.Lock()
    together = threading.Barrier(writers)

    def write(writer: int) -> None:
        together.wait()
        mine = []
        for number in range(ROUNDS):
            item = {"id": {"S": f"{prefix}-{writer}-{number}"}, "body": {"S": "x" * 200}}
            started = time.perf_counter()
            dynamodb(app, "PutItem", TableName=TABLE, Item=item)
            mine.append((time.perf_counter() - started) * 1000)
        with lock:
            timings.extend(mine)

    started = time.perf_counter()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, range(writers)))
    return timings, len(timings) / (time.perf_counter() - started)


def _figures(timings: list[float], rate: float) -> tuple[float, float, float]:
    ordered = sorted(timings)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.99) - 1], rate


def test_write_latency_under_each_fsync_policy(tmp_path):
    fresh_emulator()
    policies = {
        "bare emulator": None,
        f"JOURNAL_FSYNC={ALWAYS}": FsyncPolicy(ALWAYS),
        f"JOURNAL_FSYNC={INTERVAL} (1 s)": FsyncPolicy(INTERVAL, 1.0),
    }
    apps = {}
    for name, policy in policies.items():
        apps[name] = MOTO
        if policy is not None:
            apps[name] = Journal(tmp_path / policy.mode, MOTO, REGION, policy)
            apps[name].recover()
        _latencies_ms(apps[name], WRITERS, f"warm-{name}")
    # In turns, so that what else the machine does weighs on every policy alike.
    timings: dict[tuple[str, int], list[float]] = {}
    rates: dict[tuple[str, int], list[float]] = {}
    for turn in range(TURNS):
        for writers in (1, WRITERS):
            for name, app in apps.items():
                taken, rate = _latencies_ms(app, writers, f"{name}-{writers}-{turn}")
                timings.setdefault((name, writers), []).extend(taken)
                rates.setdefault((name, writers), []).append(rate)
    results = {key: _figures(timings[key], statistics.median(rates[key])) for key in timings}
    print()
    for writers in (1, WRITERS):
        bare_median, bare_p99, bare_rate = results["bare emulator", writers]
        print(f"PutItem, {writers} writer(s) at once, {ROUNDS * TURNS} writes each:")
        for name in policies:
            median, p99, rate = results[name, writers]
            print(
                f"  {name:28} median {median:6.2f} ms ({median / bare_median:4.1f}x bare), "
                f"p99 {p99:6.2f} ms ({p99 / bare_p99:4.1f}x), "
                f"{rate:6.0f} writes/s ({rate / bare_rate:4.2f}x)"
            )
