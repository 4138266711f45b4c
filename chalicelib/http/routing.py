"""Route registration: one handler serves both path styles, and every answer passes here.

A handler takes an `ApiRequest` and returns data (a pydantic model, a list of them, a dict)
or a `Reply`. This module decodes the body, strips the archived `.json` suffix, authenticates,
counts the rate limit and turns every `ApiError` (and any surprise) into the contract's body.
Each registration is also recorded as an `Operation`, from which the OpenAPI document is made.
"""

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from chalice import Blueprint, Response
from pydantic import BaseModel, ValidationError
from pynamodb.exceptions import DeleteError, PutError, TransactWriteError, UpdateError

from chalicelib.domain.errors import DomainError
from chalicelib.http import auth, errors, ratelimit
from chalicelib.http.decode import decode_body
from chalicelib.store.models import Page

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
ARCHIVED_SUFFIX = ".json"
_PARAMETER = re.compile(r"\{(\w+)\}")
# Ids, subdomains and the like; anything else cannot name a resource of ours.
_PLAUSIBLE_PARAMETER = re.compile(r"^[A-Za-z0-9_\-]{1,128}$")


class Style(Enum):
    BOTH = "both"  # `/pages/{id}` and `/pages/{id}.json`
    CURRENT = "current"
    ARCHIVED = "archived"


@dataclass
class Operation:
    """One method on one path, as the OpenAPI document lists it."""

    path: str
    method: str
    summary: str
    tag: str
    body: type[BaseModel] | None
    response: type[BaseModel] | None
    many: bool
    status: int
    authenticated: bool
    query: type[BaseModel] | None
    style: Style


OPERATIONS: list[Operation] = []


@dataclass
class Reply:
    """A handler's answer when the route's usual status or headers do not fit."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class ApiRequest:
    params: dict[str, str]
    query: dict[str, str]
    query_lists: dict[str, list[str]]
    headers: dict[str, str]
    archived: bool
    raw_body: bytes | None
    content_type: str | None
    principal: auth.Principal | None = None
    _body: dict | None = None

    @property
    def body(self) -> dict:
        if self._body is None:
            self._body = decode_body(self.raw_body, self.content_type)
        return self._body

    def parse(self, schema: type[M]) -> M:
        """The body validated by `schema`; a wrapped body (`{"page": {...}}`) may come bare."""
        body = self.body
        wrapper = wrapper_of(schema)
        if wrapper and body and not any(name in body for name in _names_of(schema, wrapper)):
            body = {wrapper: body}
        try:
            return schema.model_validate(body)
        except ValidationError as error:
            raise errors.from_validation_error(error, wrapper) from None

    def parse_query(self, schema: type[M]) -> M:
        """The query parameters validated by `schema` (422 naming the parameter)."""
        try:
            return schema.model_validate(self.query)
        except ValidationError as error:
            raise errors.from_validation_error(error) from None

    def page(self, role: str | None = None) -> Page:
        """The path's page, if the caller reaches it (and holds `role` there)."""
        return auth.page_for(self.principal, self.params["page_id"], role)


def wrapper_of(schema: type[BaseModel]) -> str | None:
    """The name of the object a body is wrapped in (`page`, `component`), if it is one."""
    fields = schema.model_fields
    if len(fields) != 1:
        return None
    ((name, info),) = fields.items()
    annotation = info.annotation
    return name if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _names_of(schema: type[BaseModel], field_name: str) -> set[str]:
    """The keys a body may use for `field_name`: its name and its aliases."""
    alias = schema.model_fields[field_name].validation_alias
    names = {field_name}
    if alias is not None and hasattr(alias, "choices"):
        names.update(choice for choice in alias.choices if isinstance(choice, str))
    return names


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        body=json.dumps(body),
        status_code=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def error_response(error: errors.ApiError) -> Response:
    return json_response(error.body(), error.status, error.headers)


def render(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, (list, tuple)):
        return [render(item) for item in data]
    return data


def served_paths(path: str, style: Style) -> list[str]:
    """The paths Chalice must know for `path`. A path ending in a parameter serves its `.json`
    form as it is (the parameter then ends in `.json`), so it needs no second route."""
    if style is Style.CURRENT or path.endswith("}"):
        return [path]
    archived = path if path.endswith(ARCHIVED_SUFFIX) else path + ARCHIVED_SUFFIX
    return [archived] if style is Style.ARCHIVED else [path, archived]


class Router:
    """Registers handlers of one resource on its blueprint."""

    def __init__(self, blueprint: Blueprint, tag: str):
        self.blueprint = blueprint
        self.tag = tag

    def route(
        self,
        path: str,
        methods: list[str],
        *,
        summary: str,
        body: type[BaseModel] | None = None,
        response: type[BaseModel] | None = None,
        many: bool = False,
        status: int = 200,
        authenticated: bool = True,
        query: type[BaseModel] | None = None,
        style: Style = Style.BOTH,
    ) -> Callable:
        def register(handler: Callable[[ApiRequest], Any]) -> Callable:
            view = self._view(handler, status, authenticated)
            for served in served_paths(path, style):
                self.blueprint.route(
                    served, methods=methods, content_types=["*/*"], name=handler.__name__
                )(view)
            for method in methods:
                if method == "HEAD":
                    continue  # GET without the body; the document lists the GET
                OPERATIONS.append(
                    Operation(
                        path,
                        method.lower(),
                        summary,
                        self.tag,
                        body,
                        response,
                        many,
                        status,
                        authenticated,
                        query,
                        style,
                    )
                )
            return handler

        return register

    def _view(self, handler: Callable, status: int, authenticated: bool) -> Callable:
        blueprint = self.blueprint

        def view(**params: str) -> Response:
            response = answer(**params)
            if blueprint.current_request.method == "HEAD":
                response.body = ""  # the GET's status and headers, without its body
            return response

        def answer(**params: str) -> Response:
            try:
                request = _api_request(blueprint.current_request, params)
                if authenticated:
                    request.principal = auth.authenticate(
                        auth.presented_key(request.headers, request.query), params.get("page_id")
                    )
                    ratelimit.check(request.principal.key_hash)
                result = handler(request)
                if isinstance(result, Response):
                    return result
                if isinstance(result, Reply):
                    if result.body is None:
                        return Response(body="", status_code=result.status, headers=result.headers)
                    return json_response(render(result.body), result.status, result.headers)
                if result is None:
                    return Response(body="", status_code=status)
                return json_response(render(result), status)
            except errors.ApiError as error:
                return error_response(error)
            except DomainError as error:
                return error_response(errors.from_domain(error))
            except ValidationError as error:
                return error_response(errors.from_validation_error(error))
            except (PutError, UpdateError, DeleteError, TransactWriteError) as error:
                if not _lost_a_race(error):
                    logger.exception("write failed in %s", handler.__name__)
                    return error_response(errors.ApiError(500, errors.INTERNAL))
                return error_response(errors.conflict())
            except Exception:
                logger.exception("unhandled error in %s", handler.__name__)
                return error_response(errors.ApiError(500, errors.INTERNAL))

        view.__name__ = handler.__name__
        return view


def _lost_a_race(error: Exception) -> bool:
    """A conditional write that failed because another writer changed the item first."""
    return getattr(error, "cause_response_code", None) in (
        "ConditionalCheckFailedException",
        "TransactionCanceledException",
        "TransactionConflictException",
    )


def _api_request(current, params: dict[str, str]) -> ApiRequest:
    params = dict(params)
    archived = current.context.get("resourcePath", "").endswith(ARCHIVED_SUFFIX)
    if params:
        last = list(params)[-1]
        if params[last].endswith(ARCHIVED_SUFFIX):
            params[last] = params[last][: -len(ARCHIVED_SUFFIX)]
            archived = True
    for value in params.values():
        if not _PLAUSIBLE_PARAMETER.match(value):
            raise errors.not_found()
    query_params = current.query_params
    query = dict(query_params) if query_params else {}
    query_lists = {key: query_params.getlist(key) for key in query_params} if query_params else {}
    headers = {key.lower(): value for key, value in current.headers.items()}
    return ApiRequest(
        params=params,
        query=query,
        query_lists=query_lists,
        headers=headers,
        archived=archived,
        raw_body=current.raw_body,
        content_type=headers.get("content-type"),
    )


def contract_answers(event, get_response: Callable) -> Response:
    """HTTP middleware: Chalice's own answer to a known path with a method it does not serve
    becomes the contract's 405 (its body would otherwise be Chalice's shape)."""
    response = get_response(event)
    body = response.body
    if response.status_code == 405 and isinstance(body, dict) and "Code" in body:
        allowed = {"Allow": response.headers["Allow"]} if "Allow" in response.headers else {}
        return error_response(errors.ApiError(405, errors.METHOD_NOT_ALLOWED, headers=allowed))
    return response


def path_parameters(path: str) -> list[str]:
    return _PARAMETER.findall(path)
