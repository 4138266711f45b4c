"""The packaged REST API with two resources, `/` and `/{proxy+}`, every method to the app.

`chalice package` writes one API Gateway resource per path segment of every route, and one
operation per route and method: 298 resources, at the default quota of 300 a REST API, and
270 KB of the template's 350. The app finds each path's route itself
(`chalicelib/http/gateway.py`), as it does under `make run`, so the API needs no resource of
its own per route: `python -m infra.greedy_routes dist/sam.json` (`make package` runs it after
`chalice package`) rewrites the definition's paths to the root and one greedy resource, each
with `x-amazon-apigateway-any-method` and the integration Chalice gave every route (Lambda
proxy to the API function). The rest of the definition stays as Chalice and
`infra/resources.json` wrote it: the binary media types, the gateway responses.

Every request now reaches the function, so a wrong method is the app's 405 and an unknown path
its 404, both in the contract's body (the gateway's 404 for them was the contract's body too).
"""

import json
import sys
from pathlib import Path

from chalicelib.http.gateway import GREEDY_RESOURCE, PROXY

REST_API = "RestAPI"
ANY_METHOD = "x-amazon-apigateway-any-method"
# What differs between Chalice's operations without changing what API Gateway does with them:
# the route's own parameters and the handler's docstring.
PER_ROUTE = ("parameters", "summary", "description")


def shared_operation(paths: dict) -> dict:
    """The one operation every route and method of Chalice's definition has, but for its
    parameters and docs. A route with anything of its own (an authorizer, an API key, CORS'
    OPTIONS, another integration) would be lost behind a greedy resource: refused."""
    shapes = {}
    for path, methods in paths.items():
        for method, operation in methods.items():
            shared = {key: value for key, value in operation.items() if key not in PER_ROUTE}
            shapes.setdefault(json.dumps(shared, sort_keys=True), f"{method.upper()} {path}")
    if len(shapes) != 1:
        raise ValueError(
            "routes differ beyond their parameters, so one greedy resource cannot serve them "
            f"all: {', '.join(sorted(shapes.values()))}"
        )
    return json.loads(next(iter(shapes)))


def greedy_paths(paths: dict) -> dict:
    operation = shared_operation(paths)
    proxy = {"name": PROXY, "in": "path", "required": True, "type": "string"}
    return {
        "/": {ANY_METHOD: operation},
        GREEDY_RESOURCE: {ANY_METHOD: {**operation, "parameters": [proxy]}},
    }


def rewrite(template: dict) -> dict:
    """`template` with its REST API's paths made greedy (in place, and returned)."""
    definition = template["Resources"][REST_API]["Properties"]["DefinitionBody"]
    definition["paths"] = greedy_paths(definition["paths"])
    return template


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "dist/sam.json"
    with open(path) as file:
        template = json.load(file)
    before = len(template["Resources"][REST_API]["Properties"]["DefinitionBody"]["paths"])
    # Written whole, then renamed over the template: no reader sees half of it.
    written = Path(path).with_suffix(".greedy.json")
    written.write_text(json.dumps(rewrite(template), indent=2) + "\n")
    written.replace(path)
    print(f"{path}: {before} routes served by the API's resources / and {GREEDY_RESOURCE}")


if __name__ == "__main__":
    main()
