"""The OpenAPI 3.1 document, made from the registered operations and their pydantic schemas.

Built on the first request for it (it needs every schema), then kept: the routes are all
registered when `app.py` is imported, so the document cannot change afterwards.
"""

from functools import cache

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from chalicelib import schemas
from chalicelib.http import errors
from chalicelib.http.routing import OPERATIONS, Operation, Style, path_parameters

_REF = "#/components/schemas/{model}"
_ERRORS = {
    "400": errors.BAD_REQUEST,
    "401": errors.UNAUTHENTICATED,
    "403": errors.FORBIDDEN,
    "404": errors.NOT_FOUND,
    "422": errors.UNPROCESSABLE,
    "429": errors.RATE_LIMITED,
}
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


def _models(operations: list[Operation]) -> list[type[BaseModel]]:
    names = dict.fromkeys(
        name for operation in operations for name in (operation.body, operation.response) if name
    )
    return [getattr(schemas, name) for name in names]


def _parameters(operation: Operation) -> list[dict]:
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in path_parameters(operation.path)
    ]
    if operation.query is not None:
        for name, info in getattr(schemas, operation.query).model_fields.items():
            parameters.append(
                {
                    "name": name,
                    "in": "query",
                    "required": False,
                    "description": info.description or "",
                    "schema": {
                        "type": "integer" if info.annotation in (int, int | None) else "string"
                    },
                }
            )
    return parameters


def _responses(operation: Operation) -> dict:
    if operation.response is None:
        success: dict = {"description": "Success"}
    else:
        schema = {"$ref": _REF.format(model=operation.response)}
        if operation.many:
            schema = {"type": "array", "items": schema}
        success = {"description": "Success", "content": {"application/json": {"schema": schema}}}
    responses = {str(operation.status): success}
    for code, message in _ERRORS.items():
        if code == "401" and not operation.authenticated:
            continue
        responses[code] = {
            "description": message,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    return responses


def _operation(operation: Operation) -> dict:
    documented: dict = {
        "summary": operation.summary,
        "tags": [operation.tag],
        "operationId": f"{operation.method}_{operation.path}".replace("/", "_")
        .replace("{", "")
        .replace("}", "")
        .replace("-", "_"),
        "parameters": _parameters(operation),
        "responses": _responses(operation),
    }
    if operation.body is not None:
        documented["requestBody"] = {
            "required": True,
            "content": {
                media_type: {"schema": {"$ref": _REF.format(model=operation.body)}}
                for media_type in ("application/json", "application/x-www-form-urlencoded")
            },
        }
    if not operation.authenticated:
        documented["security"] = []
    if operation.style is not Style.CURRENT:
        documented["description"] = "Also served in the archived style, with a `.json` suffix."
    return documented


@cache
def document() -> dict:
    operations = list(OPERATIONS)
    _, definitions = models_json_schema(
        [(model, "validation") for model in _models(operations)], ref_template=_REF
    )
    schemas = dict(definitions.get("$defs", {}))
    schemas["Error"] = _ERROR_SCHEMA
    paths: dict[str, dict] = {}
    for operation in operations:
        paths.setdefault(operation.path, {})[operation.method] = _operation(operation)
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
            "schemas": schemas,
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
