"""What API Gateway hands the API function, turned into what Chalice dispatches on.

On AWS the REST API has two resources, `/` and the greedy `/{proxy+}`, each with every method
(`infra/greedy_routes.py` writes them into the packaged template): one resource per path
segment of every route came to 298, at API Gateway's default quota of 300 a REST API. A
greedy resource hands the function `resourcePath` `/{proxy+}` and the rest of the path in the
`proxy` parameter, while Chalice dispatches on `resourcePath` and the route's own parameters.
So before Chalice reads the event, `App` finds the route the path names and writes the event
API Gateway sent before for that route: its `resourcePath` and its `pathParameters`. A method
the route does not serve is then Chalice's 405, and a path no route matches keeps the greedy
resource (`unrouted`): `routing.contract_answers` answers both in the contract's body, inside
the app's middleware, so that each has its invocation's log line.

An event whose `resourcePath` is a route already (`chalice local`, `make run`, the test
client, the root resource `/`) is handed to Chalice as it is.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalice import Chalice
from chalice.app import Request

# The greedy resource's parameter, named in the template as it is here.
PROXY = "proxy"
GREEDY_SEGMENT = "{" + PROXY + "+}"
GREEDY_RESOURCE = "/" + GREEDY_SEGMENT


@dataclass(frozen=True)
class Match:
    route: str
    params: dict[str, str]


class RouteTable:
    """The routes of an app, matched as Chalice's local gateway matches them
    (`chalice.local.RouteMatcher`, which the Lambda package does not carry): the routes in
    sorted order, the first whose segments all match, so that a literal segment wins over a
    parameter (`{` sorts after every character of a literal), as API Gateway picks a literal
    resource over a parameter's."""

    def __init__(self, routes: Mapping[str, Any]):
        self._by_length: dict[int, list[tuple[str, list[str]]]] = {}
        for route in sorted(routes):
            parts = route.split("/")
            self._by_length.setdefault(len(parts), []).append((route, parts))

    def match(self, path: str) -> Match | None:
        if "//" in path or not path.startswith("/"):
            return None  # an empty segment names nothing (no id or subdomain is empty)
        # API Gateway drops a trailing slash but the root's; so does Chalice's local gateway.
        if path != "/" and path.endswith("/"):
            path = path[:-1]
        parts = path.split("/")
        for route, pattern in self._by_length.get(len(parts), []):
            params = {}
            for given, expected in zip(parts, pattern, strict=True):
                if expected.startswith("{") and expected.endswith("}"):
                    params[expected[1:-1]] = given
                elif given != expected:
                    break
            else:
                return Match(route, params)
        return None


def requested_path(event: dict) -> str | None:
    """The path a greedy resource's event asks for, or None for any other event.

    Built from the resource and its `proxy` parameter rather than `event["path"]` (which holds
    a custom domain's base path too): API Gateway hands over `proxy` as it hands over every
    path parameter, so each segment comes out as the route's own parameter came before.
    """
    resource = event.get("requestContext", {}).get("resourcePath")
    if not isinstance(resource, str) or not resource.endswith(GREEDY_RESOURCE):
        return None
    rest = (event.get("pathParameters") or {}).get(PROXY, "")
    return resource[: -len(GREEDY_SEGMENT)] + rest


def routed_event(event: dict, match: Match) -> dict:
    """`event` as API Gateway sends it for a resource of `match.route` (a copy)."""
    return {
        **event,
        "resource": match.route,
        # API Gateway sends null, not {}, for a route without parameters.
        "pathParameters": match.params or None,
        "requestContext": {**event["requestContext"], "resourcePath": match.route},
    }


def unrouted(request: Request) -> bool:
    """A greedy resource's request whose path no route matches (`App` found none)."""
    return request.path.endswith(GREEDY_RESOURCE)


class App(Chalice):
    """The Chalice app, answering the greedy resources' events as their routes' own. Its
    middleware must answer `unrouted` requests (app.py registers `routing.contract_answers`):
    Chalice would take the greedy resource for a route of no method, and answer 405."""

    _table: RouteTable | None = None

    def __call__(self, event: Any, context: Any) -> dict[str, Any]:
        path = requested_path(event) if isinstance(event, dict) else None
        if path is None or event["requestContext"]["resourcePath"] in self.routes:
            return super().__call__(event, context)
        if self._table is None:  # every route is registered by then: importing app.py did it
            self._table = RouteTable(self.routes)
        match = self._table.match(path)
        return super().__call__(event if match is None else routed_event(event, match), context)
