"""On AWS every request reaches the app through one greedy resource (`/{proxy+}`, and `/`):
the app answers it exactly as it answered the route's own resource before.

Each request is sent twice as API Gateway's proxy event: once as the route's resource sent it
(its `resourcePath` and parameters found by Chalice's local gateway's matcher, not the app's),
once as the greedy resource sends it. Status, headers and body must be the same.
"""

import base64
import json
import re

import pytest
from chalice.local import RouteMatcher
from urllib3 import encode_multipart_formdata

from chalicelib.http import errors, gateway
from tests.console.test_branding_screens import IMAGE_ACCEPT, PNG
from tests.unit.test_gateway_routes import local_route
from tests.unit.test_structured_logs import invocations, logged, root_logger  # noqa: F401

NOT_FOUND = {"error": errors.NOT_FOUND}
# A fresh sign-in form's token, new with every answer.
_SIGN_IN_TOKEN = re.compile(r'(manage_sign_in=|name=\\"csrf\\" value=\\")[A-Za-z0-9_-]+')


def proxy_event(app, method, path, headers, body, resource, params) -> dict:
    """A REST API proxy event, as API Gateway sends it to the function (stage `api`)."""
    query = None
    if "?" in path:
        path, raw_query = path.split("?", 1)
        query = {}
        for pair in raw_query.split("&"):
            name, _, value = pair.partition("=")
            query.setdefault(name, []).append(value)
    headers = {"Host": "abc123.execute-api.us-east-1.amazonaws.com", **headers}
    content_type = headers.get("Content-Type", "").split(";")[0]
    binary = body is not None and content_type in app.api.binary_types
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in query.items()} if query else None,
        "multiValueQueryStringParameters": query,
        "pathParameters": params or None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": resource,
            "httpMethod": method,
            "path": "/api" + path,
            "stage": "api",
            "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
            "identity": {"sourceIp": "198.51.100.7"},
        },
        "body": (base64.b64encode(body).decode() if binary else body.decode())
        if body is not None
        else None,
        "isBase64Encoded": binary,
    }


def through_route(app, method, path, headers=None, body=None) -> dict:
    """The answer to the event of the route's own resource, as before."""
    route, params = local_route(RouteMatcher(list(app.routes)), path.split("?", 1)[0])
    event = proxy_event(app, method, path, headers or {}, body, route, params)
    return app(event, None)


def through_greedy(app, method, path, headers=None, body=None) -> dict:
    """The answer to the event of the greedy resource (the root's own resource for `/`)."""
    bare = path.split("?", 1)[0]
    if bare == "/":
        event = proxy_event(app, method, path, headers or {}, body, "/", None)
    else:
        params = {gateway.PROXY: bare[1:]}
        event = proxy_event(app, method, path, headers or {}, body, gateway.GREEDY_RESOURCE, params)
    return app(event, None)


def assert_same_answer(app, method, path, headers=None, body=None) -> dict:
    before = through_route(app, method, path, headers, body)
    now = through_greedy(app, method, path, headers, body)
    assert steady(now) == steady(before), f"{method} {path}"
    return now


def steady(answer: dict) -> str:
    return _SIGN_IN_TOKEN.sub(r"\1<token>", json.dumps(answer, sort_keys=True))


@pytest.fixture
def incident_id(world) -> str:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Outage", "body": "Down"}}
    )
    assert answer.status == 201, answer.text
    return answer.json["id"]


@pytest.fixture
def component_id(world) -> str:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "Search"}}
    )
    return answer.json["id"]


API_PATHS = [
    "/v1/pages",
    "/v1/pages/{page}",
    "/v1/pages/{page}.json",
    "/v1/pages/{page}/components",
    "/v1/pages/{page}/components.json",
    "/v1/pages/{page}/components/{component}",
    "/v1/pages/{page}/components/{component}.json",
    "/v1/pages/{page}/incidents",
    "/v1/pages/{page}/incidents.json",
    "/v1/pages/{page}/incidents/{incident}",
    "/v1/pages/{page}/incidents/{incident}.json",
    "/v1/pages/{page}/incidents/unresolved",
    "/v1/pages/{page}/incidents/unresolved.json",
    "/v1/pages/{page}/incidents?limit=1&page=1",
    "/v1/pages/{page}/subscribers?api_key={key}",
    "/v1/organizations/{organization}/users",
    "/v0/organizations/{organization}/subscribers.json",
    "/sms_countries.json",
    "/v1/metrics_providers.json",
]

PUBLIC_PATHS = [
    "/s/{page}",
    "/s/{page}/api/v2/summary.json",
    "/s/{page}/api/v2/incidents/unresolved.json",
    "/s/{page}/history",
    "/s/{page}/history.rss",
    "/s/{page}/incidents/{incident}",
    "/s/{page}/embed/status.js",
    "/s/{page}/subscribe",
    "/",
    "/api/v2/summary.json",
    "/history",
]

CONSOLE_PATHS = [
    "/manage",
    "/manage/sign-in",
    "/manage/pages/{page}/incidents",
    "/manage/pages/{page}/incidents/{incident}",
    "/manage/pages/{page}/incidents/new",
    "/manage/pages/{page}/incidents/backfill",
]


def filled(path: str, world, incident_id: str, component_id: str) -> str:
    return path.format(
        page=world.page_id,
        incident=incident_id,
        component=component_id,
        organization=world.organization_id,
        key=world.api_key,
    )


@pytest.mark.parametrize("path", API_PATHS)
def test_an_api_path_answers_through_the_greedy_resource_as_through_its_route(
    chalice_app, world, incident_id, component_id, path
):
    path = filled(path, world, incident_id, component_id)
    auth = {"Authorization": f"OAuth {world.api_key}"}
    answer = assert_same_answer(chalice_app, "GET", path, auth)
    assert answer["statusCode"] == 200, (path, answer["body"])


@pytest.mark.parametrize("path", PUBLIC_PATHS + CONSOLE_PATHS)
def test_a_public_or_console_path_answers_through_the_greedy_resource_as_through_its_route(
    chalice_app, world, incident_id, component_id, path
):
    path = filled(path, world, incident_id, component_id)
    for method in ("GET", "HEAD"):
        assert_same_answer(chalice_app, method, path, {"Accept": "text/html"})


def test_an_update_through_the_greedy_resource_is_the_routes_update(
    chalice_app, world, component_id, freeze_clock
):
    from datetime import UTC, datetime

    freeze_clock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    headers = {"Authorization": f"OAuth {world.api_key}", "Content-Type": "application/json"}
    body = json.dumps({"component": {"status": "major_outage"}}).encode()
    for path in (
        f"/v1/pages/{world.page_id}/components/{component_id}",
        f"/v1/pages/{world.page_id}/components/{component_id}.json",
    ):
        answer = assert_same_answer(chalice_app, "PATCH", path, headers, body)
        assert answer["statusCode"] == 200, answer["body"]
        assert json.loads(answer["body"])["status"] == "major_outage"


def test_a_binary_body_reaches_the_route_as_bytes(chalice_app, world):
    body, content_type = encode_multipart_formdata(
        [
            ("incident[name]", "Uploaded"),
            (
                "incident[metadata][a][b]",
                ("a.bin", b"\x00\x01\xffbinary", "application/octet-stream"),
            ),
        ]
    )
    headers = {"Authorization": f"OAuth {world.api_key}", "Content-Type": content_type}
    path = f"/v1/pages/{world.page_id}/incidents"
    answer = assert_same_answer(chalice_app, "POST", path, headers, body)
    # The file was read from the bytes: refused by name, as the API refuses every file.
    assert answer["statusCode"] == 422, answer["body"]
    assert list(json.loads(answer["body"])["errors"]) == ["incident.metadata.a.b"]


def test_a_binary_answer_is_base64_as_before(chalice_app, world):
    from chalicelib.sitestore import branding

    name = branding.store(world.page_id, PNG, "png", "image/png")
    path = f"/s/{world.page_id}/branding/{name}"
    answer = assert_same_answer(chalice_app, "GET", path, {"Accept": IMAGE_ACCEPT})
    assert answer["statusCode"] == 200
    assert answer["isBase64Encoded"] is True
    assert base64.b64decode(answer["body"]) == PNG


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PATCH", "/v1/pages"),
        ("DELETE", "/v1/pages/{page}/components.json"),
        ("OPTIONS", "/v1/pages/{page}"),
        ("POST", "/v1/pages/{page}/incidents/{incident}.json"),
        ("PUT", "/s/{page}/api/v2/summary.json"),
        ("DELETE", "/manage"),
    ],
)
def test_a_method_a_route_does_not_serve_is_the_contracts_405(
    chalice_app, world, incident_id, component_id, method, path
):
    path = filled(path, world, incident_id, component_id)
    answer = assert_same_answer(chalice_app, method, path, {"Authorization": "OAuth x"})
    assert answer["statusCode"] == 405
    assert json.loads(answer["body"]) == {"error": errors.METHOD_NOT_ALLOWED}
    assert answer["headers"]["Allow"]


@pytest.mark.parametrize(
    "path",
    [
        "/nowhere",
        "/v1",
        "/v1/",
        "/v1/nowhere/at/all",
        "/v1/pages/x/y/z/unknown",
        "/s",
        "/s/p/q/r/s/t/u",
        "/manageable",
        "/api/v3/summary.json",
    ],
)
def test_a_path_no_route_serves_is_the_contracts_404_and_echoes_nothing(chalice_app, path):
    key = "OAuth do-not-echo-this-key"
    for method in ("GET", "POST", "HEAD"):
        answer = through_greedy(chalice_app, method, path, {"Authorization": key})
        assert answer["statusCode"] == 404, (method, path)
        assert json.loads(answer["body"]) == NOT_FOUND
        assert answer["headers"] == {"Content-Type": "application/json"}
        assert "do-not-echo" not in json.dumps(answer)
    assert gateway.GREEDY_RESOURCE not in chalice_app.routes  # answered before Chalice routed


@pytest.mark.parametrize("path", ["/manage/nope", "/manage/nowhere/at/all/x"])
def test_a_console_path_no_screen_serves_is_the_consoles_not_found_page(chalice_app, path):
    answer = through_greedy(chalice_app, "GET", path, {})
    assert answer["statusCode"] == 404
    assert answer["headers"]["Content-Type"].startswith("text/html")
    assert "<h1>Not found</h1>" in answer["body"] and 'href="/manage"' in answer["body"]


def test_a_trailing_slash_is_the_path_without_it(chalice_app, world):
    auth = {"Authorization": f"OAuth {world.api_key}"}
    with_slash = through_greedy(chalice_app, "GET", f"/v1/pages/{world.page_id}/", auth)
    assert with_slash == through_route(chalice_app, "GET", f"/v1/pages/{world.page_id}", auth)


def test_an_event_of_a_routes_own_resource_is_left_as_it_is(chalice_app, world):
    event = proxy_event(
        chalice_app, "GET", "/sms_countries.json", {}, None, "/sms_countries.json", None
    )
    assert gateway.requested_path(event) is None
    assert chalice_app(event, None)["statusCode"] == 200


def test_each_greedy_request_has_its_invocation_line_with_its_route(
    chalice_app,
    world,
    logged,  # noqa: F811 (the fixture, imported)
):
    auth = {"Authorization": f"OAuth {world.api_key}"}
    assert (
        through_greedy(chalice_app, "GET", f"/v1/pages/{world.page_id}", auth)["statusCode"] == 200
    )
    assert through_greedy(chalice_app, "GET", "/v1/nowhere", auth)["statusCode"] == 404

    routed, unrouted = invocations(logged())
    assert (routed["function"], routed["route"]) == ("get_page", "GET /v1/pages/{page_id}")
    assert (routed["page_id"], routed["status"]) == (world.page_id, 200)
    assert (unrouted["route"], unrouted["status"]) == (f"GET {gateway.GREEDY_RESOURCE}", 404)
