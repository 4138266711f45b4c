"""Bodies over a raw socket to the local stack: read whole, in chunks, or not at all.

A body that ends before its `Content-Length` must never reach the app half-read, and bytes
of a body the server did not read must never be taken for the next request."""

import json
import re
import socket

import pytest
import requests

from chalicelib.local.server import BODY_TIMEOUT_SECONDS
from tests.e2e.stack import LocalStack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    stack = LocalStack(tmp_path_factory.mktemp("bodies") / "data")
    stack.start()
    created = stack.admin("bootstrap")
    yield stack, created
    stack.stop()


def exchange(stack, head: bytes, body: bytes = b"", *, half_close: bool = False) -> bytes:
    """What the server answers to `head` + `body` on one connection, until it closes it, goes
    quiet or has answered twice. `exchange.closed` tells whether the server closed it."""
    exchange.closed = False
    with socket.create_connection(("127.0.0.1", stack.port), timeout=30) as connection:
        connection.sendall(head + body)
        if half_close:
            connection.shutdown(socket.SHUT_WR)
        connection.settimeout(BODY_TIMEOUT_SECONDS + 10)
        received = b""
        while True:
            try:
                part = connection.recv(65536)
            except TimeoutError:
                break
            if not part:
                exchange.closed = True
                break
            received += part
            if half_close is False and received.count(b"HTTP/1.1 ") >= 2:
                break
        return received


def request_head(created, method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines.append(f"Authorization: OAuth {created['api_key']}")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def component_names(stack, created) -> list[str]:
    answer = stack.get(f"/v1/pages/{created['page_id']}/components", created["api_key"])
    return [component["name"] for component in answer.json()]


def statuses(received: bytes) -> list[int]:
    # A body carries no line end of its own: the next status line may follow it directly.
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] (\d{3}) ", received)]


def test_a_body_cut_short_by_a_client_that_gives_up_is_400_and_changes_nothing(running):
    stack, created = running
    body = json.dumps({"component": {"name": "half"}}).encode()
    head = request_head(
        created,
        "POST",
        f"/v1/pages/{created['page_id']}/components",
        {"Content-Type": "application/json", "Content-Length": str(len(body) + 40)},
    )
    received = exchange(stack, head, body, half_close=True)
    assert statuses(received) == [400]
    assert b'{"error": "Bad request"}' in received
    assert "half" not in component_names(stack, created)


def test_a_stalled_body_is_400_after_the_timeout_and_the_connection_closes(running):
    stack, created = running
    body = json.dumps({"component": {"name": "stalled"}}).encode()
    head = request_head(
        created,
        "POST",
        f"/v1/pages/{created['page_id']}/components",
        {"Content-Type": "application/json", "Content-Length": str(len(body) + 40)},
    )
    received = exchange(stack, head, body)
    assert statuses(received) == [400]
    assert exchange.closed
    assert "stalled" not in component_names(stack, created)


def test_a_chunked_body_is_read_whole_and_nothing_is_left_for_a_next_request(running):
    stack, created = running
    body = json.dumps({"component": {"name": "chunked"}}).encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7)
    )
    head = request_head(
        created,
        "POST",
        f"/v1/pages/{created['page_id']}/components",
        {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    follow_up = request_head(created, "GET", f"/v1/pages/{created['page_id']}", {})
    received = exchange(stack, head, chunks + b"0\r\n\r\n" + follow_up)
    assert statuses(received) == [201, 200]
    assert component_names(stack, created).count("chunked") == 1


def test_malformed_chunks_are_400(running):
    stack, created = running
    head = request_head(
        created,
        "POST",
        f"/v1/pages/{created['page_id']}/components",
        {"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    received = exchange(stack, head, b"zz\r\n{}\r\n0\r\n\r\n", half_close=True)
    assert statuses(received) == [400]


def test_a_declared_length_over_the_gateway_bound_is_413_without_reading(running):
    stack, created = running
    head = request_head(
        created,
        "POST",
        f"/v1/pages/{created['page_id']}/components",
        {"Content-Type": "application/json", "Content-Length": str(11 * 1024 * 1024)},
    )
    received = exchange(stack, head, b"{", half_close=True)
    assert statuses(received) == [413]
    assert b'"error": "Request entity too large"' in received


def test_a_body_over_the_app_limit_is_413_over_http(running):
    stack, created = running
    body = json.dumps({"component": {"name": "big"}, "filler": "x" * (1024 * 1024)}).encode()
    answer = requests.post(
        f"{stack.url}/v1/pages/{created['page_id']}/components",
        data=body,
        headers={
            "Authorization": f"OAuth {created['api_key']}",
            "Content-Type": "application/json",
        },
        timeout=30,
    )
    assert answer.status_code == 413
    assert answer.json()["error"] == "Request entity too large"
