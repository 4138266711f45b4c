"""Plain `chalice local` in a checkout, as the project's brief names it: beside `make run` it
serves the API and the public page from the stack's emulator, whatever AWS settings the shell
holds; without the emulator it stops at once with one line naming what to run first."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.aws_shell import REAL_LOOKING_AWS
from tests.e2e.console_driver import first_start_of
from tests.e2e.stack import ROOT, LocalStack, free_port, wait_for

pytestmark = pytest.mark.e2e

CHALICE = str(Path(sys.executable).parent / "chalice")


def chalice_local(port: int, **environment: str) -> subprocess.Popen:
    """`chalice local --port <port> --no-autoreload` in the checkout, its stage the default."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("AWS_", "PYTEST")) and name not in ("STAGE", "SITE_DIR")
    }
    env.update(environment)
    return subprocess.Popen(
        [CHALICE, "local", "--port", str(port), "--no-autoreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def answers(url: str) -> bool:
    try:
        requests.get(url, timeout=1)
        return True
    except requests.ConnectionError:
        return False


def test_chalice_local_beside_make_run_serves_api_and_public_page(tmp_path):
    stack = LocalStack(tmp_path / "data").start()
    port = free_port()
    # The same data directory as the stack's, as two commands run in one checkout share
    # `.data/`: a page made private through either withdraws the same published files.
    served = chalice_local(
        port,
        **REAL_LOOKING_AWS,
        MOTO_PORT=str(stack.moto_port),
        DATA_DIR=str(stack.data_dir),
    )
    try:
        owner = first_start_of(stack)
        url = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: answers(url), timeout=30), served.stderr
        pages = requests.get(
            url + "/v1/pages", headers={"Authorization": f"OAuth {owner['api_key']}"}, timeout=10
        )
        assert pages.status_code == 200, pages.text
        assert [page["id"] for page in pages.json()] == [owner["page_id"]]
        page = requests.get(f"{url}/s/{owner['page_id']}", timeout=10)
        assert page.status_code == 200
        assert page.headers["Content-Type"].startswith("text/html")
        summary = requests.get(f"{url}/s/{owner['page_id']}/api/v2/summary.json", timeout=10)
        assert summary.json()["page"]["id"] == owner["page_id"]
    finally:
        served.terminate()
        served.wait(timeout=10)
        stack.stop()


def test_chalice_local_without_emulator_exits_at_once_with_one_line():
    moto_port = free_port()  # nothing listens there
    started = time.monotonic()
    stopped = chalice_local(free_port(), MOTO_PORT=str(moto_port))
    out, err = stopped.communicate(timeout=30)
    assert time.monotonic() - started < 10
    assert stopped.returncode != 0
    assert err == (
        f"error: the local emulator is not answering on 127.0.0.1:{moto_port}: "
        "start it first with `make run`\n"
    )
    assert out == ""
