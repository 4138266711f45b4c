"""The Lambda cold start: importing `app` next to importing a bare Chalice app.

Each import runs in a fresh interpreter, as a new Lambda instance does, twice over: with the
bytecode cache warm, and with an empty one (`PYTHONPYCACHEPREFIX`), which is what Lambda sees,
since the deployment package holds no `.pyc` and `/var/task` is read-only.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench
ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
BARE_APP = """\
from chalice import Chalice

app = Chalice(app_name="bare")


@app.route("/")
def index():
    return {"hello": "world"}
"""
# Printed by the child: how long `import <module>` took, and which modules it loaded.
TIMED_IMPORT = """\
import importlib, json, sys, time
started = time.perf_counter()
importlib.import_module(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - started, "modules": sorted(sys.modules)}))
"""
NEVER_ON_LAMBDA = ("moto", "pytest", "chalicelib.local", "tests")


def environment(cache_dir: str | None) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(STAGE="prod", AWS_DEFAULT_REGION="us-east-1")
    env.pop("AWS_ENDPOINT_URL", None)
    if cache_dir:
        env["PYTHONPYCACHEPREFIX"] = cache_dir
    return env


def timed_import(module: str, directory: Path, cold_bytecode: bool) -> dict:
    with tempfile.TemporaryDirectory() as cache_dir:
        answer = subprocess.run(
            [sys.executable, "-c", TIMED_IMPORT, module],
            cwd=directory,
            env=environment(cache_dir if cold_bytecode else None),
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(answer.stdout)


def median_seconds(module: str, directory: Path, cold_bytecode: bool) -> float:
    timed_import(module, directory, cold_bytecode)  # warms the OS file cache (and the .pyc)
    return statistics.median(
        timed_import(module, directory, cold_bytecode)["seconds"] for _ in range(RUNS)
    )


def import_profile(module: str, directory: Path) -> tuple[list, Counter]:
    """`python -X importtime`: the direct imports of `module` by cumulative time, and the time
    spent in each top-level package (µs)."""
    answer = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=directory,
        env=environment(None),
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


@pytest.fixture(scope="module")
def bare_app_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("bare")
    (directory / "bare_app.py").write_text(BARE_APP)
    return directory


def test_importing_app_pulls_no_test_or_local_stack_code():
    loaded = timed_import("app", ROOT, cold_bytecode=False)["modules"]
    for prefix in NEVER_ON_LAMBDA:
        found = [name for name in loaded if name == prefix or name.startswith(prefix + ".")]
        assert not found, f"importing app imports {found}"


def test_import_time_of_app_next_to_a_bare_chalice_app(bare_app_dir):
    print()
    print(f"import time, median of {RUNS} fresh interpreters (Python {sys.version.split()[0]}):")
    for cold_bytecode, label in ((False, "bytecode cached"), (True, "no bytecode cache")):
        app_seconds = median_seconds("app", ROOT, cold_bytecode)
        bare_seconds = median_seconds("bare_app", bare_app_dir, cold_bytecode)
        print(
            f"  {label:18} app {app_seconds * 1000:7.1f} ms   bare Chalice app "
            f"{bare_seconds * 1000:6.1f} ms   ratio {app_seconds / bare_seconds:5.1f}x"
        )
    direct, by_package = import_profile("app", ROOT)
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
