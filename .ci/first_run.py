"""The newcomer's path on a fresh clone, before anything else installs: `make run`, wait for
the API, `make bootstrap`, a write and reads over HTTP (a public page view included), Ctrl-C;
then `make run` again and the write is still there. Standard library only: it runs before the
venv exists."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

BASE = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"
READY = "Status page API ready on"
STOP_WITHIN_SECONDS = 2


def start() -> tuple[subprocess.Popen, list[str]]:
    process = subprocess.Popen(
        ["make", "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if READY in line:
            return process, lines
    sys.exit("make run ended before it was ready:\n" + "".join(lines[-60:]))


def stop(process: subprocess.Popen) -> float:
    """Ctrl-C as a terminal sends it: to the whole process group."""
    began = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        sys.exit("make run did not stop within 30 s of Ctrl-C")
    return time.monotonic() - began


def call(method: str, path: str, key: str | None = None, body: dict | None = None):
    request = urllib.request.Request(
        BASE + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"OAuth {key}"} if key else {}),
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        payload = answer.read()
        return answer.status, payload


def main() -> None:
    began = time.monotonic()
    process, _ = start()
    print(f"first run: make run ready after {time.monotonic() - began:.0f} s", flush=True)
    try:
        bootstrap = subprocess.run(
            ["make", "-s", "bootstrap"], capture_output=True, text=True, check=True, timeout=120
        )
        created = json.loads(bootstrap.stdout)
        key, page = created["api_key"], created["page_id"]
        status, body = call(
            "POST", f"/v1/pages/{page}/components", key, {"component": {"name": "Newcomer API"}}
        )
        assert status == 201, (status, body)
        component = json.loads(body)
        status, body = call("GET", f"/v1/pages/{page}/components/{component['id']}", key)
        assert status == 200 and json.loads(body)["name"] == "Newcomer API", (status, body)
        read_before = json.loads(body)
        status, body = call("GET", f"/s/{page}")
        assert status == 200 and b"Newcomer API" in body, status
    finally:
        seconds = stop(process)
    print(
        f"first run: bootstrap, write, reads ok; stopped {seconds:.2f} s after Ctrl-C", flush=True
    )
    assert seconds <= STOP_WITHIN_SECONDS, f"the stack took {seconds:.2f} s to stop"

    process, _ = start()
    try:
        status, body = call("GET", f"/v1/pages/{page}/components/{component['id']}", key)
        assert status == 200 and json.loads(body) == read_before, (status, body)
        status, body = call("GET", f"/s/{page}/api/v2/summary.json")
        assert status == 200 and "Newcomer API" in body.decode(), status
    finally:
        stop(process)
    print("first run: after a restart the key, the page and the write are all there", flush=True)


if __name__ == "__main__":
    main()
