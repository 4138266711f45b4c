"""Clients that hold the front's connections (`chalicelib/local/site_server.py`): a head that
never comes, stops halfway or trickles in; a head too large; a body trickling; a client that
reads none of its answers; a client that says it is someone else. In process, as in
`test_site_server.py`: the front on a free port before an app of the test's own."""

import json
import socket
import threading
import time

import pytest

from chalicelib.local import site_server
from tests.e2e.test_site_server import Front, statuses, write_hand_made_mount

FILE_REQUEST = b"GET /s/hand-made HTTP/1.1\r\nHost: x\r\n\r\n"


class RecordingApp:
    """An app that answers every request 200 and keeps the heads it was sent."""

    def __init__(self):
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.port = self.listening.getsockname()[1]
        self.heads: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection = self.listening.accept()[0]
            except OSError:
                return
            with connection:
                received = b""
                while b"\r\n\r\n" not in received:
                    part = connection.recv(65536)
                    if not part:
                        break
                    received += part
                self.heads.append(received.split(b"\r\n\r\n")[0])
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
                )

    def close(self) -> None:
        self.listening.close()


@pytest.fixture
def app():
    recording = RecordingApp()
    yield recording
    recording.close()


@pytest.fixture
def front(tmp_path, app):
    write_hand_made_mount(tmp_path / "site")
    running = Front(tmp_path / "site", app.port)
    yield running
    running.stop()


def until_closed(connection: socket.socket, limit: float) -> tuple[bytes, float | None]:
    """What the connection receives until the front closes it, and after how many seconds
    (None: still open after `limit`)."""
    started = time.monotonic()
    received = b""
    connection.settimeout(0.2)
    while time.monotonic() - started < limit:
        try:
            part = connection.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return received, time.monotonic() - started
        if not part:
            return received, time.monotonic() - started
        received += part
    return received, None


def test_a_head_that_stops_trickles_or_never_comes_is_closed_within_a_few_seconds(
    front, monkeypatch
):
    assert site_server.HEAD_TIMEOUT_SECONDS <= 5  # the default, as API Gateway's few seconds
    # Held to a shorter one here: what is measured is that the front keeps to it.
    monkeypatch.setattr(site_server, "HEAD_TIMEOUT_SECONDS", 1.5)
    results: dict[str, tuple[bytes, float | None]] = {}

    def silent() -> None:
        with socket.create_connection(("127.0.0.1", front.port)) as connection:
            results["nothing"] = until_closed(connection, 15)

    def half() -> None:
        with socket.create_connection(("127.0.0.1", front.port)) as connection:
            connection.sendall(b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nAccept: appl")
            results["half a head"] = until_closed(connection, 15)

    def trickle() -> None:
        head = b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100 + b"\r\n\r\n"
        with socket.create_connection(("127.0.0.1", front.port)) as connection:
            started = time.monotonic()
            connection.settimeout(0.3)
            received = b""
            for byte in head:  # a byte, then a while listening for the front's answer
                try:
                    connection.sendall(bytes([byte]))
                    received = connection.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    pass
                break
            more, _ = until_closed(connection, 15)
            results["a byte a second"] = (received + more, time.monotonic() - started)

    threads = [threading.Thread(target=run) for run in (silent, half, trickle)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    received, after = results["nothing"]
    assert after is not None and after < site_server.HEAD_TIMEOUT_SECONDS + 2.5
    assert received == b""  # no request: nothing to answer
    for name in ("half a head", "a byte a second"):
        received, after = results[name]
        assert after is not None and after < site_server.HEAD_TIMEOUT_SECONDS + 2.5, name
        assert statuses(received) == [400], name
        assert received.endswith(b'{"error": "Bad request"}'), name
    assert gone(front)


def gone(front: Front, limit: float = 5) -> bool:
    """Whether the front holds no connection within `limit` seconds (a closed one may linger
    `LINGER_SECONDS` for the client's last bytes)."""
    deadline = time.monotonic() + limit
    while front.front.connections and time.monotonic() < deadline:
        time.sleep(0.1)
    return not front.front.connections


def test_a_70_kb_header_is_431_in_the_contracts_json_and_never_reaches_the_app(front, app):
    too_large = b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
    too_many = b"GET /v1/pages HTTP/1.1\r\nHost: x\r\n"
    too_many += b"".join(b"X-Field-%d: %d\r\n" % (n, n) for n in range(150)) + b"\r\n"
    for sent in (too_large, too_many):
        with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
            connection.sendall(sent)
            received, after = until_closed(connection, 10)
        assert after is not None
        head, _, body = received.partition(b"\r\n\r\n")
        assert statuses(received) == [431]
        assert b"Content-Type: application/json" in head
        assert json.loads(body) == {"error": "Request header fields too large"}
    assert app.heads == []
    # A head just under the bounds goes through.
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
        connection.sendall(
            b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 60_000 + b"\r\n\r\n"
        )
        received, _ = until_closed(connection, 10)
    assert statuses(received) == [200]


def test_a_kept_alive_connection_waits_for_its_next_request_then_closes(front, monkeypatch):
    monkeypatch.setattr(site_server, "HEAD_TIMEOUT_SECONDS", 0.5)
    monkeypatch.setattr(site_server, "KEEP_ALIVE_SECONDS", 1.5)
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
        connection.sendall(FILE_REQUEST)
        time.sleep(0.9)  # past the head's timeout, within the keep-alive
        connection.sendall(FILE_REQUEST)
        received, after = until_closed(connection, 10)
    assert statuses(received) == [200, 200]
    # Closed about KEEP_ALIVE_SECONDS after the second answer (checked once a second).
    assert after is not None and 1.0 < after < 3.5


def test_a_body_trickling_past_its_deadline_is_400(front, monkeypatch, app):
    monkeypatch.setattr(site_server, "BODY_DEADLINE_SECONDS", 1.0)
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
        connection.sendall(b"POST /v1/pages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        connection.settimeout(0.3)
        received = b""
        for _ in range(20):  # a byte every 0.3 s: never quiet for BODY_TIMEOUT_SECONDS
            try:
                connection.sendall(b"a")
                received = connection.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                pass
            break
    assert statuses(received) == [400]
    assert app.heads == []


def test_a_client_that_reads_none_of_its_answers_is_dropped(front, monkeypatch):
    monkeypatch.setattr(site_server, "WRITE_TIMEOUT_SECONDS", 1.0)
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        # Answers of 27 KB each, far more than the buffers on the way hold.
        sent = 0
        connection.settimeout(0.5)
        try:
            while sent < 4000:
                connection.sendall(FILE_REQUEST * 50)
                sent += 50
        except (TimeoutError, OSError):
            pass  # the front stopped reading: its answers are not being read
        assert gone(front, 8)


def test_the_app_hears_the_clients_address_not_the_one_it_claims(front, app):
    sent = b"GET /v1/pages HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n"
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as connection:
        connection.sendall(sent)
        received, _ = until_closed(connection, 10)
    assert statuses(received) == [200]
    (head,) = app.heads
    forwarded = [line for line in head.split(b"\r\n") if line.lower().startswith(b"x-forwarded")]
    assert forwarded == [b"X-Forwarded-For: 127.0.0.1"]
