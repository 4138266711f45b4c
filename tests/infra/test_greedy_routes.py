"""The packaged REST API has two resources, `/` and `/{proxy+}`, every method to the app, and
the package check holds the template and the zip within AWS's limits (issue 46)."""

import json

import pytest
from chalice import Chalice, CORSConfig
from chalice.deploy.swagger import CFNSwaggerGenerator

from chalicelib.http import gateway
from infra import check_package, greedy_routes


def definition_of(app) -> dict:
    """The REST API's definition as `chalice package` writes it for `app`."""
    return CFNSwaggerGenerator().generate_swagger(app)


def template_of(definition: dict) -> dict:
    return {"Resources": {"RestAPI": {"Properties": {"DefinitionBody": definition}}}}


@pytest.fixture(scope="module")
def chalice_definition() -> dict:
    from app import app

    return definition_of(app)


def test_every_route_is_served_by_the_root_and_one_greedy_resource(chalice_definition):
    before = json.loads(json.dumps(chalice_definition))
    integrations = {
        json.dumps(operation["x-amazon-apigateway-integration"], sort_keys=True)
        for methods in before["paths"].values()
        for operation in methods.values()
    }
    template = greedy_routes.rewrite(template_of(chalice_definition))
    definition = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]

    assert set(definition["paths"]) == {"/", gateway.GREEDY_RESOURCE}
    for path, methods in definition["paths"].items():
        assert list(methods) == [greedy_routes.ANY_METHOD], path
        (operation,) = methods.values()
        # The one integration Chalice gave every route: Lambda proxy to the API function.
        assert {json.dumps(operation["x-amazon-apigateway-integration"], sort_keys=True)} == (
            integrations
        )
        assert operation["x-amazon-apigateway-integration"]["type"] == "aws_proxy"
    greedy = definition["paths"][gateway.GREEDY_RESOURCE][greedy_routes.ANY_METHOD]
    assert greedy["parameters"] == [
        {"name": gateway.PROXY, "in": "path", "required": True, "type": "string"}
    ]
    # The rest of the definition is as it was: binary bodies stay bytes.
    assert {key: value for key, value in definition.items() if key != "paths"} == {
        key: value for key, value in before.items() if key != "paths"
    }
    assert "image/png" in definition["x-amazon-apigateway-binary-media-types"]
    assert check_package.api_resources(template) == 2
    assert (
        check_package.api_resources(template_of(before))
        > check_package.LIMITS["API Gateway resources"]
    )


def test_a_route_of_its_own_kind_is_refused_not_lost_behind_the_greedy_resource():
    app = Chalice(app_name="mixed")

    @app.route("/plain")
    def plain():
        return {}

    @app.route("/shared/{item}", cors=CORSConfig(allow_origin="https://example.com"))
    def shared(item):
        return {}

    with pytest.raises(ValueError, match="OPTIONS /shared/{item}"):
        greedy_routes.greedy_paths(definition_of(app)["paths"])


def test_the_api_resources_are_the_distinct_prefixes_of_its_paths():
    paths = {"/": {}, "/a": {}, "/a/{b}": {}, "/a/{b}/c": {}, "/d/e": {}}
    assert check_package.api_resources(template_of({"paths": paths})) == 6  # /, /a, /d too


def test_a_figure_over_its_bound_is_named_with_both_numbers():
    measured = dict(check_package.LIMITS)
    assert check_package.limit_problems(measured) == []
    measured["API Gateway resources"] = 298
    assert check_package.limit_problems(measured) == [
        "API Gateway resources: 298, over the bound of 60"
    ]
