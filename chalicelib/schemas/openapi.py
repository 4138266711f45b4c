"""The OpenAPI 3.1 document, made from the registered operations and their pydantic schemas.

Built on the first request for it (it needs every schema), then kept: the routes are all
registered when `app.py` is imported, so the document cannot change afterwards. It lists every
path the app serves (the archived `.json` form of each as a path of its own), every status an
operation can answer, and the constraints the schemas enforce (`tests/api/test_fuzz.py` holds
the server to it).
"""

from functools import cache

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from chalicelib import schemas
from chalicelib.http import errors
from chalicelib.http.routing import (
    ARCHIVED_SUFFIX,
    OPERATIONS,
    Operation,
    documented_paths,
    path_parameters,
)

_REF = "#/components/schemas/{model}"
_HTML = "text/html; charset=utf-8"
_MESSAGES = {
    200: "Success (the archived style's answer to a create)",
    202: "Accepted and recorded, but nothing changed: no alert named a component of the page",
    302: "Found: the page's own icon",
    304: "Not modified (`If-None-Match` matched the `ETag`)",
    400: errors.BAD_REQUEST,
    401: errors.UNAUTHENTICATED,
    403: errors.FORBIDDEN,
    404: errors.NOT_FOUND,
    405: errors.METHOD_NOT_ALLOWED,
    409: errors.CONFLICT,
    413: errors.TOO_LARGE,
    422: errors.UNPROCESSABLE,
    429: errors.RATE_LIMITED,
    503: errors.UNAVAILABLE,
}
# What any authenticated route may answer: a malformed key, query or body (400), no key (401),
# a role it lacks (403), an id it cannot reach (404), a field refused (422), the rate (429).
_API_ERRORS = (400, 401, 403, 404, 422, 429)
_WRITE_ERRORS = (409,)  # a write that kept losing its race
_BODY_ERRORS = (413,)  # a body over the limit of chalicelib/http/decode.py
# A public view: a malformed period (400), a private page (401), no such page (404).
_PUBLIC_ERRORS = (304, 400, 401, 404)
_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
}
_ARCHIVED_NOTE = "The archived style of `{path}`."
_FORM_NOTE = (
    "The body may also be form-urlencoded with bracketed keys (`page[name]=Acme`, "
    "`incident[component_ids][]=abc`)."
)


class _Models:
    """Every schema the operations name, and the `$ref` of each in the mode it is used:
    bodies as they are validated, responses as they are written."""

    def __init__(self, operations: list[Operation]):
        wanted: dict[tuple[type[BaseModel], str], None] = {}
        for operation in operations:
            if operation.body:
                wanted[(getattr(schemas, operation.body), "validation")] = None
            if operation.query:
                wanted[(getattr(schemas, operation.query), "validation")] = None
            for response in (operation.response, operation.archived_response):
                if response:
                    wanted[(getattr(schemas, response), "serialization")] = None
        self.refs, definitions = models_json_schema(list(wanted), ref_template=_REF)
        self.definitions = dict(definitions.get("$defs", {}))

    def ref(self, name: str, mode: str) -> dict:
        return self.refs[(getattr(schemas, name), mode)]

    def query_fields(self, name: str) -> tuple[dict, set[str]]:
        ref = self.ref(name, "validation")["$ref"].rsplit("/", 1)[-1]
        definition = self.definitions[ref]
        return definition.get("properties", {}), set(definition.get("required", ()))


def _without_null(schema: dict) -> dict:
    """A query parameter is absent rather than null."""
    rest = {
        key: value
        for key, value in schema.items()
        if key not in ("anyOf", "title") and not (key == "default" and value is None)
    }
    options = schema.get("anyOf")
    if not options:
        return rest
    kept = [option for option in options if option.get("type") != "null"]
    return {**rest, **kept[0]} if len(kept) == 1 else {**rest, "anyOf": kept}


def _parameters(operation: Operation, path: str, models: _Models) -> list[dict]:
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in path_parameters(path)
    ]
    if operation.query is not None:
        fields, required = models.query_fields(operation.query)
        for name, schema in fields.items():
            schema = _without_null(schema)
            parameters.append(
                {
                    "name": name,
                    "in": "query",
                    "required": name in required,
                    "description": schema.pop("description", ""),
                    "schema": schema,
                }
            )
    return parameters


def _statuses(operation: Operation) -> tuple[int, ...]:
    statuses = operation.answers
    if operation.body is not None:
        statuses += _BODY_ERRORS
    if operation.tag == "public status page":
        return statuses + _PUBLIC_ERRORS
    if not operation.authenticated:
        return statuses
    statuses += _API_ERRORS
    if operation.method != "get":
        statuses += _WRITE_ERRORS
    return statuses


def _error_content(operation: Operation) -> dict:
    """A public HTML view refuses with an HTML page for people (but a path parameter that
    cannot name anything is refused by the router, in JSON); everything else with the
    contract's JSON body."""
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    if operation.content_type == _HTML:
        content[_HTML] = {"schema": {"type": "string"}}
    return content


def _responses(operation: Operation, models: _Models, archived: bool) -> dict:
    success: dict = {"description": "Success"}
    response = (archived and operation.archived_response) or operation.response
    if response is not None:
        schema = models.ref(response, "serialization")
        if operation.many:
            schema = {"type": "array", "items": schema}
        success["content"] = {operation.content_type: {"schema": schema}}
    elif operation.content_type != "application/json":
        success["content"] = {operation.content_type: {"schema": {"type": "string"}}}
    responses = {str(operation.status): success}
    for status in sorted(set(_statuses(operation))):
        answer: dict = {"description": _MESSAGES[status]}
        if status >= 400:
            answer["content"] = _error_content(operation)
        elif status < 300 and "content" in success:
            answer["content"] = success["content"]  # another success, with the same body
        responses[str(status)] = answer
    return responses


def _operation_id(operation: Operation, path: str) -> str:
    name = f"{operation.method}_{path}".replace(ARCHIVED_SUFFIX, "_json")
    for character in "/{}-.":
        name = name.replace(character, "" if character in "{}" else "_")
    return name


def _operation(operation: Operation, path: str, models: _Models) -> dict:
    documented: dict = {
        "summary": operation.summary,
        "tags": [operation.tag],
        "operationId": _operation_id(operation, path),
        "parameters": _parameters(operation, path, models),
        "responses": _responses(operation, models, archived=path != operation.path),
    }
    notes = []
    if path != operation.path:
        notes.append(_ARCHIVED_NOTE.format(path=operation.path))
    if operation.body is not None:
        documented["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": models.ref(operation.body, "validation")}},
        }
        notes.append(_FORM_NOTE)
    if notes:
        documented["description"] = " ".join(notes)
    if not operation.authenticated:
        documented["security"] = []
    return documented


@cache
def document() -> dict:
    operations = list(OPERATIONS)
    models = _Models(operations)
    definitions = dict(models.definitions)
    definitions["Error"] = _ERROR_SCHEMA
    paths: dict[str, dict] = {}
    for operation in operations:
        for path in documented_paths(operation.path, operation.style):
            paths.setdefault(path, {})[operation.method] = _operation(operation, path, models)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Status page management API",
            "version": "1.0.0",
            "description": "Statuspage-style management API: pages, components, incidents, "
            "postmortems, subscribers, metrics and access control.",
        },
        "servers": [{"url": "/"}],
        "security": [{"api_key": []}, {"api_key_query": []}],
        "paths": paths,
        "components": {
            "schemas": definitions,
            "securitySchemes": {
                "api_key": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`OAuth <API_KEY>`",
                },
                "api_key_query": {"type": "apiKey", "in": "query", "name": "api_key"},
            },
        },
    }
