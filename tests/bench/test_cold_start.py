"""The Lambda cold start of each function of the app, next to a bare Chalice app.

Every function of a Chalice app (the API, the fan-out and delivery queue handlers, the
scheduled tick) has its handler in `app.py`, so a cold start of any of them imports `app`, and
then runs a first invocation, which imports what that kind of work needs (the API's schemas,
the message templates, ...). Each entry point runs in a fresh interpreter, as a new Lambda
instance does (`lambda_instance.py`), against a moto server holding what it reads: the import,
the first invocation and a second one. The first minus the second is what the cold start adds
to the invocation; the second is mostly the emulator's answers.

All twice over: with the bytecode cache warm, and with an empty one (`PYTHONPYCACHEPREFIX`),
which is what Lambda sees, since the deployment package holds no `.pyc` and `/var/task` is
read-only.
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench
ROOT = Path(__file__).resolve().parents[2]
INSTANCE = Path(__file__).with_name("lambda_instance.py")
RUNS = 7
ENTRY_POINTS = ("API", "fan-out", "delivery", "schedule")
BARE_APP = """\
import boto3
from chalice import Chalice

app = Chalice(app_name="bare")


@app.route("/")
def index():
    return {"hello": "world"}
"""


def environment(endpoint: str, cache_dir: Path, cold_bytecode: bool) -> dict:
    """STAGE=prod with made-up credentials: nothing reaches AWS, only the emulator."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(
        STAGE="prod",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_ENDPOINT_URL=endpoint,
        PYTHONPYCACHEPREFIX=str(cache_dir),
    )
    env.pop("AWS_PROFILE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cold_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # and `cache_dir` is empty: every module compiles
    return env


def run_instance(directory: Path, env: dict, *args: str) -> dict:
    answer = subprocess.run(
        [sys.executable, str(INSTANCE), *args],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    return json.loads(answer.stdout.splitlines()[-1])


def cold_starts(bare_app_dir: Path, env: dict, case: dict) -> tuple[float, dict]:
    """The bare app's median import, and each entry point's median import, import/bare ratio
    and invocations. Each entry point's run follows a run of the bare app, and the ratio is
    taken within each such pair, so that both ran under the same load of the machine."""
    instances = {entry: ["app", entry, json.dumps(case)] for entry in ENTRY_POINTS}
    run_instance(bare_app_dir, env, "bare_app")  # warms the OS file cache (and the bytecode cache)
    for args in instances.values():
        run_instance(ROOT, env, *args)
    bare_imports, runs = [], {entry: [] for entry in instances}
    for _ in range(RUNS):
        for entry, args in instances.items():
            bare_imports.append(run_instance(bare_app_dir, env, "bare_app")["import"])
            run = run_instance(ROOT, env, *args)
            runs[entry].append({**run, "ratio": run["import"] / bare_imports[-1]})
    return statistics.median(bare_imports), {
        entry: {
            key: statistics.median(run[key] for run in timed)
            for key in ("import", "ratio", "first", "second")
        }
        for entry, timed in runs.items()
    }


def import_profile(module: str, directory: Path, env: dict) -> tuple[list, Counter]:
    """`python -X importtime`: the direct imports of `module` by cumulative time, and the time
    spent in each top-level package (µs)."""
    answer = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    direct, by_package = [], Counter()
    for line in answer.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        by_package[name.strip().split(".")[0]] += int(own)
        if depth == 1:
            direct.append((int(cumulative), name.strip()))
    return sorted(direct, reverse=True), by_package


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def emulator():
    """moto's server in its own process: the AWS the instances talk to."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "moto's server did not start"
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture(scope="module")
def bare_app_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("bare")
    (directory / "bare_app.py").write_text(BARE_APP)
    return directory


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def test_cold_start_of_each_entry_point_next_to_a_bare_chalice_app(
    emulator, bare_app_dir, tmp_path
):
    seeded = tmp_path / "seed-cache"
    case = run_instance(ROOT, environment(emulator, seeded, False), "seed")
    print()
    print(f"cold start, median of {RUNS} fresh interpreters (Python {sys.version.split()[0]}):")
    print("  (every function imports app.py; a 1st call less a 2nd is what its cold start adds)")
    for cold_bytecode, label in ((False, "bytecode cached"), (True, "no bytecode cache")):
        env = environment(emulator, tmp_path / ("cold" if cold_bytecode else "warm"), cold_bytecode)
        bare, timed = cold_starts(bare_app_dir, env, case)
        print(f"  {label}:")
        print(f"    {'':26}{'import':>10}{'import/bare':>13}{'1st call':>11}{'2nd call':>11}")
        print(f"    {'bare Chalice app + boto3':26}{_ms(bare):>10}")
        for entry, times in timed.items():
            print(
                f"    {'app, ' + entry + ' function':26}{_ms(times['import']):>10}"
                f"{times['ratio']:12.2f}x{_ms(times['first']):>11}{_ms(times['second']):>11}"
            )
    direct, by_package = import_profile("app", ROOT, environment(emulator, seeded, False))
    print("  slowest imports of app.py (cumulative, one run, bytecode cached):")
    for microseconds, name in direct[:8]:
        print(f"    {microseconds / 1000:7.1f} ms  {name}")
    print(
        "  time by package (one run): "
        + ", ".join(
            f"{name} {microseconds / 1000:.0f} ms"
            for name, microseconds in by_package.most_common(8)
        )
    )
