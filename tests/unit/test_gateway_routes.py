"""The app finds a greedy resource's route as Chalice's local gateway finds a path's route (the
matcher `make run`, `chalice local` and the test client route by), for every route of the app,
both path styles, the literals that share a place with a parameter, and paths of no route."""

import itertools

import pytest
from chalice.local import RouteMatcher

from chalicelib.http import gateway, routing


@pytest.fixture(scope="module")
def routes() -> dict:
    from app import app

    return app.routes


def local_route(matcher: RouteMatcher, path: str) -> tuple[str, dict] | None:
    try:
        found = matcher.match_route(path)
    except ValueError:
        return None
    # Only the route's own parameters (the matcher keeps what other routes captured on the way).
    return found.route, {
        name: found.captured[name] for name in routing.path_parameters(found.route)
    }


def app_route(table: gateway.RouteTable, path: str) -> tuple[str, dict] | None:
    found = table.match(path)
    return (found.route, found.params) if found else None


def literals_by_place(routes) -> dict[int, set[str]]:
    """Every literal segment of a route, by its place in the path."""
    places: dict[int, set[str]] = {}
    for route in routes:
        for place, segment in enumerate(route.split("/")):
            if not segment.startswith("{"):
                places.setdefault(place, set()).add(segment)
    return places


def paths_of(route: str, literals: dict[int, set[str]]):
    """The route with plain values, its `.json` form, and each parameter in turn given a
    literal that another route has in its place (`incidents/unresolved`, `incidents/new`)."""
    parts = route.split("/")
    plain = ["p" + str(place) if part.startswith("{") else part for place, part in enumerate(parts)]
    yield "/".join(plain)
    yield "/".join(plain) + ".json"
    yield "/".join(plain) + "/"
    for place, part in enumerate(parts):
        if part.startswith("{"):
            for literal in sorted(literals.get(place, ())):
                yield "/".join([*plain[:place], literal, *plain[place + 1 :]])
                yield "/".join([*plain[:place], literal + ".json", *plain[place + 1 :]])


def test_every_route_is_found_as_the_local_gateway_finds_it(routes):
    matcher = RouteMatcher(list(routes))
    table = gateway.RouteTable(routes)
    literals = literals_by_place(routes)
    checked = 0
    for route in routes:
        for path in paths_of(route, literals):
            if path == "//":
                continue  # Python's URL parser takes it for a host (below)
            assert app_route(table, path) == local_route(matcher, path), path
            checked += 1
    assert checked > 2 * len(routes)


@pytest.mark.parametrize(
    "path",
    ["/", "/nowhere", "/v1", "/v1/", "/v1/pages/x/y/z/unknown", "/s", "/s/../v1", "/s/x/../.."],
)
def test_a_path_of_no_route_is_found_as_the_local_gateway_finds_it(routes, path):
    assert app_route(gateway.RouteTable(routes), path) == local_route(
        RouteMatcher(list(routes)), path
    )


@pytest.mark.parametrize("path", ["//", "/v1//pages", "/s//history", "/v1/pages//", "v1/pages"])
def test_a_path_with_an_empty_segment_names_no_route(routes, path):
    # The local gateway would hand the app an empty parameter, which it refuses (404) too.
    assert gateway.RouteTable(routes).match(path) is None


def test_every_route_is_found_at_its_own_path(routes):
    table = gateway.RouteTable(routes)
    for route in routes:
        params = routing.path_parameters(route)
        values = {name: f"v{index}x" for index, name in enumerate(params)}
        found = table.match(route.format(**values))
        assert found is not None and (found.route, found.params) == (route, values), route


def test_the_greedy_path_is_the_resource_with_its_proxy_parameter():
    event = {"requestContext": {"resourcePath": "/{proxy+}"}, "pathParameters": {"proxy": "v1/a"}}
    assert gateway.requested_path(event) == "/v1/a"
    nested = {"requestContext": {"resourcePath": "/v1/{proxy+}"}, "pathParameters": {"proxy": "a"}}
    assert gateway.requested_path(nested) == "/v1/a"
    for resource in ("/", "/v1/pages/{page_id}", None):
        assert gateway.requested_path({"requestContext": {"resourcePath": resource}}) is None


def test_a_routed_event_is_the_routes_own_and_leaves_the_request_as_it_was():
    event = {
        "resource": "/{proxy+}",
        "path": "/v1/pages/abc",
        "body": "eA==",
        "isBase64Encoded": True,
        "headers": {"Authorization": "OAuth k"},
        "pathParameters": {"proxy": "v1/pages/abc"},
        "requestContext": {"resourcePath": "/{proxy+}", "httpMethod": "PUT", "stage": "api"},
    }
    routed = gateway.routed_event(event, gateway.Match("/v1/pages/{page_id}", {"page_id": "abc"}))
    assert routed["resource"] == routed["requestContext"]["resourcePath"] == "/v1/pages/{page_id}"
    assert routed["pathParameters"] == {"page_id": "abc"}
    unchanged = ("path", "body", "isBase64Encoded", "headers")
    assert all(routed[key] == event[key] for key in unchanged)
    assert routed["requestContext"]["httpMethod"] == "PUT"
    assert event["requestContext"]["resourcePath"] == "/{proxy+}"  # a copy, not the event
    no_parameters = gateway.routed_event(event, gateway.Match("/sms_countries.json", {}))
    assert no_parameters["pathParameters"] is None  # as API Gateway sends it


def test_literal_segments_are_preferred_in_every_order_of_registration():
    routes = ["/a/{x}/c", "/a/b/{y}", "/a/b/c", "/a/{x}/{y}"]
    for order in itertools.permutations(routes):
        table = gateway.RouteTable(dict.fromkeys(order))
        assert table.match("/a/b/c").route == "/a/b/c"
        assert table.match("/a/b/d").route == "/a/b/{y}"
        assert table.match("/a/z/c").route == "/a/{x}/c"
        assert table.match("/a/z/d") == gateway.Match("/a/{x}/{y}", {"x": "z", "y": "d"})
