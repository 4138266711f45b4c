"""Paths and methods the service does not serve: the contract's 404 and 405, never an echo.

Chalice's test client routes as Chalice's local gateway does, so the unknown-path tests go
through the local stack's HTTP server (chalicelib/local/server.py) over a real socket.
"""

import http.client
import json

import pytest

NOT_FOUND = {"error": "The requested resource could not be found"}


@pytest.fixture(scope="module")
def local_server(chalice_app):
    from chalicelib.local import server

    running = server.start(chalice_app, "127.0.0.1", 0)
    yield running.server.server_address[1]
    running.shutdown()


def fetch(port: int, method: str, path: str, headers: dict | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize(
    "path",
    [
        "/nowhere",
        "/v1/nowhere/at/all",
        "/v1/pages/x/y/z/unknown",
        "/../../etc/passwd",
        "/v1/../../etc/passwd",
        "/s/../v1/pages",
        "/v1/pages/../../../x",
    ],
)
def test_unknown_path_is_404_and_never_echoes_the_key(world, local_server, path):
    status, headers, body = fetch(
        local_server, "GET", path, {"Authorization": f"OAuth {world.api_key}"}
    )
    assert status == 404
    assert json.loads(body) == NOT_FOUND
    assert world.api_key not in body
    assert all(world.api_key not in value for value in headers.values())


def test_a_console_path_no_screen_serves_is_a_page_with_the_way_back(local_server):
    status, headers, body = fetch(local_server, "GET", "/manage/nope?x=1")
    assert status == 404
    assert headers["Content-Type"].startswith("text/html")
    assert "<h1>Not found</h1>" in body and 'href="/manage"' in body
    assert "default-src" in headers["Content-Security-Policy"]


def test_known_path_is_still_served_by_the_local_server(world, local_server):
    status, _, body = fetch(
        local_server,
        "GET",
        f"/v1/pages/{world.page_id}",
        {"Authorization": f"OAuth {world.api_key}"},
    )
    assert status == 200
    assert json.loads(body)["id"] == world.page_id


def test_wrong_method_on_a_known_path_is_405_in_the_contract_shape(world):
    answer = world.api.request("PATCH", "/v1/pages")
    assert answer.status == 405
    assert answer.json == {"error": "Method not allowed"}
    assert "GET" in answer.headers["Allow"]


def test_wrong_method_is_405_over_the_local_server(world, local_server):
    status, _, body = fetch(
        local_server, "DELETE", "/v1/pages", {"Authorization": f"OAuth {world.api_key}"}
    )
    assert status == 405
    assert json.loads(body) == {"error": "Method not allowed"}


def test_access_log_masks_a_key_in_the_query(world, local_server, capsys):
    fetch(local_server, "GET", f"/v1/pages?api_key={world.api_key}&page=1")
    logged = capsys.readouterr().err
    assert "/v1/pages?api_key=[masked]&page=1" in logged
    assert world.api_key not in logged
