"""The deploy rehearsal's AWS: moto's server on a free loopback port, in the rehearsal's own
process (so it ends with it, however it ends), never `make run`'s emulator.

Three additions to moto, where its CloudFormation does less than AWS's:
- A REST API made by CloudFormation gets the routes of its definition (`Body`), as API
  Gateway imports them. moto's takes only the API's `Name` (which API Gateway reads from the
  definition's `info.title` when the template gives none) and makes no route, and then
  refuses the stage's deployment of an API "without any methods".
- A table made by CloudFormation has the time to live of its `TimeToLiveSpecification`,
  which moto's leaves off.
- A stack made by a change set (what `aws cloudformation deploy` does) has the outputs of its
  template; moto's keeps those of the empty stack the change set started from.
"""

import logging
from collections.abc import Callable
from typing import Any

from moto.apigateway.models import RestAPI, apigateway_backends
from moto.cloudformation.models import CloudFormationBackend
from moto.cloudformation.parsing import get_model_map
from moto.dynamodb.models import Table, dynamodb_backends
from moto.moto_server.threaded_moto_server import ThreadedMotoServer


def _also_on_creation(
    model: type,
    complete: Callable[[Any, dict, str, str], None],
    prepare: Callable[[dict], dict] = lambda properties: properties,
) -> None:
    """`model`'s creation by CloudFormation, its properties given to `prepare` first and
    `complete(created, properties, account_id, region_name)` called after."""
    create = model.create_from_cloudformation_json.__func__

    def create_and_complete(
        cls,
        resource_name: str,
        cloudformation_json: dict,
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ):
        properties = prepare(cloudformation_json["Properties"])
        created = create(
            cls,
            resource_name,
            {**cloudformation_json, "Properties": properties},
            account_id,
            region_name,
            **kwargs,
        )
        complete(created, properties, account_id, region_name)
        return created

    model.create_from_cloudformation_json = classmethod(create_and_complete)


def _named_from_its_definition(properties: dict) -> dict:
    definition = properties.get("Body")
    if definition is None or properties.get("Name"):
        return properties
    return {**properties, "Name": definition["info"]["title"]}


def http_method(key: str) -> str:
    """The method of a definition's path key: API Gateway's extension for any method is `ANY`
    (moto would take the key itself for a method's name)."""
    return "ANY" if key == "x-amazon-apigateway-any-method" else key.upper()


def _import_routes(api: RestAPI, properties: dict, account_id: str, region_name: str) -> None:
    definition = properties.get("Body")
    if definition is None:
        return
    # moto imports OpenAPI 3 only; the paths and their integrations read the same in
    # Swagger 2, which is what Chalice writes.
    paths = {
        path: {http_method(key): method for key, method in methods.items()}
        for path, methods in definition["paths"].items()
    }
    imported = {"openapi": "3.0.1", "info": definition["info"], "paths": paths}
    backend = apigateway_backends[account_id][region_name]
    backend.put_rest_api(api.id, imported, fail_on_warnings=False, mode="overwrite")
    for response_type, response in definition.get(
        "x-amazon-apigateway-gateway-responses", {}
    ).items():
        backend.put_gateway_response(
            api.id,
            response_type,
            status_code=response.get("statusCode"),
            response_parameters=response.get("responseParameters"),
            response_templates=response.get("responseTemplates"),
        )


def _turn_on_ttl(table: Table, properties: dict, account_id: str, region_name: str) -> None:
    ttl = properties.get("TimeToLiveSpecification")
    if ttl:
        dynamodb_backends[account_id][region_name].update_time_to_live(table.name, ttl)


_execute_change_set = CloudFormationBackend.execute_change_set


def _execute_change_set_with_outputs(
    self: CloudFormationBackend, change_set_name: str, stack_name: str | None = None
) -> None:
    _execute_change_set(self, change_set_name, stack_name)
    change_set = self.change_sets.get(change_set_name) or next(
        found for found in self.change_sets.values() if found.change_set_name == change_set_name
    )
    stack = self.stacks[change_set.stack_id]
    stack.template_dict = change_set.template_dict
    stack.output_map = stack._create_output_map()


def creatable_types() -> set[str]:
    """The resource types moto's CloudFormation creates (it ignores any other)."""
    return set(get_model_map())


_extended = False


class RehearsalEmulator:
    def __init__(self) -> None:
        global _extended
        if not _extended:
            _also_on_creation(RestAPI, _import_routes, prepare=_named_from_its_definition)
            _also_on_creation(Table, _turn_on_ttl)
            CloudFormationBackend.execute_change_set = _execute_change_set_with_outputs
            _extended = True
        # A line per request would bury the rehearsal's own report.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)

    def start(self) -> str:
        """Starts it; its endpoint URL. `localhost`, not 127.0.0.1: moto reads a template
        from a path-style S3 URL (what the CLI makes of `--endpoint-url`) only on that host."""
        self.server.start()
        _, port = self.server.get_host_and_port()
        return f"http://localhost:{port}"

    def stop(self) -> None:
        self.server.stop()
