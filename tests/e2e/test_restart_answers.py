"""A restarted stack is right from its first answer (CONTRACT.md, "While starting"): after each
kind of stop (SIGKILL, Ctrl-C, SIGTERM then SIGKILL), reads of every write acknowledged
before it, and writes, are fired from the first millisecond of the restart, as a client that
retries fires them. Every answer is right or a `503` with `Retry-After: 1`: never a 401, 404
or 500 for something that exists, and none at all once the ready line is out."""

import signal
import threading
import time

import pytest
import requests

from tests.e2e.stack import LocalStack
from tests.e2e.test_durability import check, first_start_credentials, kill_group

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

STOPS = {
    "sigkill": (signal.SIGKILL,),
    "ctrl-c": (signal.SIGINT,),
    "sigterm then sigkill": (signal.SIGTERM, 0.2, signal.SIGKILL),
}
WRITES_BEFORE_EACH_STOP = 30
STARTING = {"error": "Service starting"}
READERS = 3


class Probe:
    """Reads of `expected` (path -> component) and component creations, fired back to back
    from several threads until every path has been read right once after the ready line."""

    def __init__(self, stack: LocalStack, owner: dict, expected: dict[str, dict]):
        self.stack, self.owner, self.expected = stack, owner, expected
        self.ready_at: float | None = None
        self.wrong: list[str] = []
        self.unanswered_since_ready: set[str] = set(expected)
        self.created: dict[str, dict] = {}
        self.starting = 0
        self.done = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        threads = [threading.Thread(target=self._read, args=(n,)) for n in range(READERS)]
        threads.append(threading.Thread(target=self._write))
        for thread in threads:
            thread.start()
        self.stack.wait_ready()
        self.ready_at = time.monotonic()
        deadline = self.ready_at + 60
        while self.unanswered_since_ready and time.monotonic() < deadline:
            time.sleep(0.05)
        self.done.set()
        for thread in threads:
            thread.join()

    def _answer(self, method: str, path: str, **kwargs) -> tuple[float, requests.Response | None]:
        sent = time.monotonic()
        headers = {"Authorization": f"OAuth {self.owner['api_key']}"}
        try:
            answer = requests.request(
                method, self.stack.url + path, headers=headers, timeout=30, **kwargs
            )
        except requests.ConnectionError:
            return sent, None  # nothing listens yet: a client retries at once
        return sent, answer

    def _starting(self, sent: float, answer: requests.Response) -> bool:
        """Whether this is the contract's 503, asked before the ready line."""
        if answer.status_code != 503:
            return False
        with self.lock:
            self.starting += 1
            if self.ready_at is not None and sent > self.ready_at:
                self.wrong.append(f"503 to a request sent after the ready line: {answer.text}")
        if answer.headers.get("Retry-After") != "1" or answer.json() != STARTING:
            self.wrong.append(f"a 503 unlike the contract's: {answer.headers} {answer.text}")
        return True

    def _read(self, first: int) -> None:
        paths = sorted(self.expected)
        at = first
        while not self.done.is_set():
            path = paths[at % len(paths)]
            at += 1
            sent, answer = self._answer("GET", path)
            if answer is None or self._starting(sent, answer):
                continue
            got = answer.json() if answer.status_code == 200 else None
            wanted = self.expected[path]
            if got is None or (got["id"], got["name"]) != (wanted["id"], wanted["name"]):
                self.wrong.append(f"GET {path}: {answer.status_code} {answer.text[:200]}")
            elif self.ready_at is not None and sent > self.ready_at:
                with self.lock:
                    self.unanswered_since_ready.discard(path)

    def _write(self) -> None:
        components = f"/v1/pages/{self.owner['page_id']}/components"
        while not self.done.is_set():
            name = f"written while starting {len(self.created)}"
            body = {"component": {"name": name}}
            sent, answer = self._answer("POST", components, json=body)
            if answer is None or self._starting(sent, answer):
                continue
            if answer.status_code != 201:
                self.wrong.append(f"POST {components}: {answer.status_code} {answer.text[:200]}")
                return
            created = answer.json()
            self.created[f"{components}/{created['id']}"] = created
            time.sleep(0.2)  # a few writes are enough; the reads are what is measured


def test_every_answer_of_a_restart_is_right_or_503_after_every_kind_of_stop(tmp_path):
    stack = LocalStack(tmp_path / "data").start()
    owner = first_start_credentials(stack)
    components = f"/v1/pages/{owner['page_id']}/components"
    expected: dict[str, dict] = {}
    seen = {}
    try:
        for stop, steps in STOPS.items():
            for number in range(WRITES_BEFORE_EACH_STOP):
                body = {"component": {"name": f"before {stop} {number}"}}
                created = check(stack.send("POST", components, owner["api_key"], body), 201)
                expected[f"{components}/{created['id']}"] = created
            kill_group(stack, *steps)
            probe = Probe(stack.launch(), owner, expected)
            probe.run()
            assert probe.wrong == [], stop
            assert not probe.unanswered_since_ready, stop
            expected.update(probe.created)  # acknowledged while starting: read after the next
            seen[stop] = (probe.starting, len(probe.created))
    finally:
        stack.stop()
    assert len(expected) >= len(STOPS) * WRITES_BEFORE_EACH_STOP
    print(f"503s while starting, writes acknowledged while starting, by stop: {seen}")
