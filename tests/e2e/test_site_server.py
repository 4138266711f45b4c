"""The front of `make run` (`chalicelib/local/site_server.py`): published files answered on
`PORT` without the app, everything else forwarded to it unchanged.

On the real stack: a hand-made mount in `{data_dir}/site/`, the API through the front, and
the files while the emulator or the API's process is stopped. In process, against apps of
the test's own: what the front answers itself (garbage, an app that is gone or silent)."""

import asyncio
import gzip
import json
import os
import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
import requests
import uvloop

from chalicelib.local import site_server
from chalicelib.local.site_files import SiteFiles
from tests.e2e.stack import LocalStack

PAGE = b"<!doctype html><title>Hand-made</title>" + b"<p>All systems operational</p>" * 900
ETAG = '"hand-made-1"'


def write_hand_made_mount(site: Path) -> None:
    """A mount as the publisher leaves one: its files first, the manifest last."""
    folder = site / "s" / "hand-made"
    (folder / "api" / "v2").mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_bytes(PAGE)
    (folder / "index.html.gz").write_bytes(gzip.compress(PAGE))
    (folder / "api" / "v2" / "summary.json").write_bytes(b'{"page": {"id": "hand-made"}}')
    headers = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "public, max-age=10"}
    manifest = {
        "page_id": "0123456789abcdef",
        "dynamic": False,
        "variant_keys": ["quarter", "month", "metric_period"],
        "files": {
            "": {
                "file": "index.html",
                "status": 200,
                "etag": ETAG,
                "modified": "2026-11-24T19:50:00Z",
                "headers": {**headers, "X-Frame-Options": "DENY"},
                "encodings": ["br", "gzip"],
            },
            "api/v2/summary.json": {
                "file": "api/v2/summary.json",
                "status": 200,
                "etag": '"summary-1"',
                "modified": "2026-11-24T19:50:00Z",
                "headers": {"Content-Type": "application/json"},
                "encodings": [],
            },
        },
    }
    (folder / "site.json").write_text(json.dumps(manifest))


def exchange(port: int, sent: bytes, *, answers: int, timeout: float = 10) -> tuple[bytes, bool]:
    """What the server answers on one connection to `sent`, until it closes or has given
    `answers` status lines; and whether it closed the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(sent)
        received = b""
        while len(re.findall(rb"HTTP/1\.1 \d{3} ", received)) < answers:
            try:
                part = connection.recv(65536)
            except TimeoutError:
                return received, False
            if not part:
                return received, True
            received += part
        try:
            connection.settimeout(0.5)
            closed = connection.recv(1) == b""
        except TimeoutError:
            closed = False
        return received, closed


def statuses(received: bytes) -> list[int]:
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]


# On the real stack.


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    stack = LocalStack(tmp_path_factory.mktemp("front") / "data")
    stack.start()
    created = stack.admin("bootstrap")
    write_hand_made_mount(stack.data_dir / "site")
    yield stack, created
    stack.stop()


def fetch(stack: LocalStack, path: str, headers: dict, **kwargs) -> requests.Response:
    return requests.get(stack.url + path, headers=headers, timeout=30, **kwargs)


@pytest.mark.e2e
def test_a_published_file_is_answered_with_its_manifest_headers(running):
    stack, _ = running
    answer = fetch(stack, "/s/hand-made", {"Accept-Encoding": "identity"})
    assert answer.status_code == 200
    assert answer.content == PAGE
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["ETag"] == ETAG
    assert answer.headers["Last-Modified"] == "Tue, 24 Nov 2026 19:50:00 GMT"
    assert answer.headers["Vary"] == "Accept-Encoding"
    assert "Date" in answer.headers

    zipped = fetch(stack, "/s/hand-made/", {"Accept-Encoding": "gzip"}, stream=True)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.raw.read()) == PAGE

    again = fetch(stack, "/s/hand-made", {"If-None-Match": ETAG})
    assert again.status_code == 304 and again.content == b""
    summary = stack.get("/s/hand-made/api/v2/summary.json")
    assert summary.json() == {"page": {"id": "hand-made"}}


@pytest.mark.e2e
def test_head_and_get_on_one_kept_alive_connection(running):
    stack, _ = running
    with requests.Session() as session:
        head = session.head(f"{stack.url}/s/hand-made", timeout=10)
        assert head.status_code == 200 and head.content == b""
        assert int(head.headers["Content-Length"]) > 0
        assert session.get(f"{stack.url}/s/hand-made", timeout=10).content.endswith(b"</p>")
        # The app's own server writes a body after a HEAD's head (here its 405); the client
        # gets the head alone, and the connection stays in step.
        forwarded = session.head(f"{stack.url}/v1/openapi.json", timeout=10)
        assert forwarded.status_code == 405 and forwarded.content == b""
        assert int(forwarded.headers["Content-Length"]) > 0
        assert session.get(f"{stack.url}/v1/openapi.json", timeout=10).json()["openapi"]


@pytest.mark.e2e
def test_the_api_answers_through_the_front(running):
    stack, created = running
    document = stack.get("/v1/openapi.json")
    assert document.status_code == 200 and document.json()["openapi"]
    path = f"/v1/pages/{created['page_id']}/components"
    made = stack.send("POST", path, created["api_key"], {"component": {"name": "Through"}})
    assert made.status_code == 201, made.text
    listed = stack.get(path, created["api_key"])
    assert "Through" in [component["name"] for component in listed.json()]
    assert stack.get("/v1/pages").json() == {"error": "Could not authenticate"}
    # A page not published (by this test) is the app's: its own 404.
    missing = stack.get("/s/no-such-page")
    assert missing.status_code == 404


@pytest.mark.e2e
def test_a_70_kb_header_is_the_contracts_431(running):
    stack, _ = running
    sent = b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    received, closed = exchange(stack.port, sent, answers=1)
    head, _, body = received.partition(b"\r\n\r\n")
    assert statuses(received) == [431] and closed
    assert b"Content-Type: application/json" in head
    assert json.loads(body) == {"error": "Request header fields too large"}


@pytest.mark.e2e
def test_a_client_naming_another_in_x_forwarded_for_is_still_itself(running):
    """The console's sign-in counts failures per client: behind the front, a client is the
    address the front names, never the one a request claims."""
    stack, _ = running
    email = f"nobody-{time.time_ns()}@example.com"
    with requests.Session() as browser:

        def attempt(claimed: str) -> int:
            form = browser.get(f"{stack.url}/manage/sign-in", timeout=30).text
            token = re.search(r'name="csrf" value="([^"]*)"', form).group(1)
            answer = browser.post(
                f"{stack.url}/manage/sign-in",
                data={"email": email, "password": "guess", "csrf": token},
                headers={"X-Forwarded-For": claimed},
                allow_redirects=False,
                timeout=30,
            )
            return answer.status_code

        assert [attempt(f"198.51.100.{n}") for n in range(5)] == [401] * 5
        assert attempt("198.51.100.99") == 429


@pytest.mark.e2e
def test_answers_come_in_the_order_of_pipelined_requests(running):
    stack, created = running
    body = json.dumps({"component": {"name": "Pipelined"}}).encode()
    key = created["api_key"]
    sent = (
        f"POST /v1/pages/{created['page_id']}/components HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: OAuth {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    sent += b"GET /s/hand-made/api/v2/summary.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    sent += b"GET /v1/pages HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    received, closed = exchange(stack.port, sent, answers=3)
    assert statuses(received) == [201, 200, 401]
    assert received.index(b'"Pipelined"') < received.index(b'{"page": {"id": "hand-made"}}')
    assert closed


@pytest.mark.e2e
def test_a_client_expecting_100_continue_gets_it_before_sending_its_body(running):
    stack, created = running
    body = json.dumps({"component": {"name": "Expected"}}).encode()
    head = (
        f"POST /v1/pages/{created['page_id']}/components HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: OAuth {created['api_key']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", stack.port), timeout=10) as connection:
        connection.sendall(head)
        assert connection.recv(1024) == b"HTTP/1.1 100 Continue\r\n\r\n"
        connection.sendall(body)
        received = b""
        while part := connection.recv(65536):
            received += part
    assert statuses(received) == [201]


@pytest.mark.e2e
def test_a_path_leaving_the_site_folder_is_404(running):
    stack, _ = running
    for target in ("/s/hand-made/%2e%2e/%2e%2e/site.json", "/s/hand-made/..%2fsite.json"):
        received, _ = exchange(
            stack.port, f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), answers=1
        )
        assert statuses(received) == [404], target
        assert b"The requested resource could not be found" in received


@pytest.mark.e2e
@pytest.mark.parametrize("stopped", ["emulator", "the API's process"])
def test_files_are_answered_while_the_emulator_or_the_api_is_stopped(running, stopped):
    stack, _ = running
    pid = stack.process.pid if stopped == "the API's process" else stack.child_pid("emulator")
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = requests.get(f"{stack.url}/s/hand-made", timeout=2)
        elapsed = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert answer.status_code == 200 and answer.content == PAGE
    assert elapsed < 2.0


# In process: the front against apps of the test's own.


class Front:
    """The front on a free port in a thread of this process, before an app at `api_port`."""

    def __init__(self, site: Path, api_port: int):
        listening = site_server.listen(0)
        self.port = listening.getsockname()[1]
        self.loop = uvloop.new_event_loop()
        self.front = site_server.Front(SiteFiles(site), api_port)
        self.task = self.loop.create_task(site_server.serve(self.front, listening))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(5)


class SilentApp:
    """An app that accepts connections and never answers."""

    def __init__(self):
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.port = self.listening.getsockname()[1]
        self.accepted = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.listening.accept()[0])
            except OSError:
                return


@pytest.fixture
def site(tmp_path) -> Path:
    write_hand_made_mount(tmp_path / "site")
    return tmp_path / "site"


@pytest.fixture
def unreachable_app(site):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    front = Front(site, port)
    yield front
    front.stop()


def test_garbage_is_400_and_closes_and_the_front_goes_on(unreachable_app):
    for garbage in (
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(64) + b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\x00b\r\n\r\n",
        b"NOT A REQUEST\r\n\r\n",
        b"GET /s/hand-made HTTP/1.1\r\n" + b"X-Long: " + b"a" * 1_000_000 + b"\r\n\r\n",
    ):
        received, closed = exchange(unreachable_app.port, garbage, answers=1)
        assert statuses(received)[0] in (400, 431), garbage[:20]
        assert closed
    received, _ = exchange(
        unreachable_app.port, b"GET /s/hand-made HTTP/1.1\r\nHost: x\r\n\r\n", answers=1
    )
    assert statuses(received) == [200]


def test_an_unreachable_app_is_502_and_files_still_answer(unreachable_app):
    received, closed = exchange(
        unreachable_app.port, b"GET /v1/pages HTTP/1.1\r\nHost: x\r\n\r\n", answers=1
    )
    assert statuses(received) == [502]
    assert received.endswith(b'{"error": "Bad gateway"}') and closed


def test_an_app_that_does_not_answer_is_504(site, monkeypatch):
    monkeypatch.setattr(site_server, "APP_TIMEOUT_SECONDS", 0.5)
    app = SilentApp()
    front = Front(site, app.port)
    try:
        sent = (
            b"GET /s/hand-made HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/pages HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        received, closed = exchange(front.port, sent, answers=2)
    finally:
        front.stop()
        app.listening.close()
    assert statuses(received) == [200, 504]
    assert received.endswith(b'{"error": "Gateway timeout"}') and closed
