"""Route registration: one handler serves both path styles, and every answer passes here.

A handler takes an `ApiRequest` and returns data (a pydantic model, a list of them, a dict)
or a `Reply`. This module decodes the body, strips the archived `.json` suffix, authenticates,
counts the rate limit and turns every `ApiError` (and any surprise) into the contract's body.
Each registration is also recorded as an `Operation`, from which the OpenAPI document is made.

A route names its schemas (`body="ComponentCreate"`) rather than holding them: registering
every route is part of importing `app.py`, which every function of the app does, and the
schemas are imported only when a request first validates or renders one.
"""

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from chalice import Blueprint, Response
from pynamodb.exceptions import DeleteError, PutError, TransactWriteError, UpdateError

from chalicelib import schemas
from chalicelib.domain.errors import DomainError
from chalicelib.http import auth, errors, gateway, multipart, ratelimit
from chalicelib.http.decode import decode_body
from chalicelib.observability import logs as structured_logs
from chalicelib.store.models import Page

logger = logging.getLogger(__name__)

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
    body: str | None  # schemas by name (`schemas.<name>`)
    response: str | None
    many: bool
    status: int
    authenticated: bool
    query: str | None
    style: Style
    content_type: str = "application/json"  # of the success answer
    answers: tuple[int, ...] = ()  # statuses beyond the usual ones (see schemas/openapi.py)
    archived_response: str | None = None  # the `.json` form's, when it differs


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
    body_schema: str | None = None  # the route's, by name
    query_schema: str | None = None
    principal: auth.Principal | None = None
    _body: dict | None = None

    @property
    def body(self) -> dict:
        if self._body is None:
            self._body = decode_body(self.raw_body, self.content_type)
        return self._body

    def parse(self, schema: type | None = None) -> Any:
        """The body validated by `schema`, by default the schema the route names as its body;
        a wrapped body (`{"page": {...}}`) may come bare. A file in it (a multipart body) is
        refused: no API field takes one, and a field that keeps whatever it is given would."""
        schema = schema or getattr(schemas, self.body_schema)
        body = self.body
        multipart.refuse_files(body)
        wrapper = wrapper_of(schema)
        if wrapper and body and not any(name in body for name in _names_of(schema, wrapper)):
            body = {wrapper: body}
        return errors.validated(schema, body, wrapper)

    def parse_query(self) -> Any:
        """The query parameters validated by the route's query schema (422 naming the
        parameter)."""
        return errors.validated(getattr(schemas, self.query_schema), self.query)

    def page(self, role: str | None = None) -> Page:
        """The path's page, if the caller reaches it (and holds `role` there)."""
        return auth.page_for(self.principal, self.params["page_id"], role)


def wrapper_of(schema: type) -> str | None:
    """The name of the object a body is wrapped in (`page`, `component`), if it is one."""
    fields = schema.model_fields
    if len(fields) != 1:
        return None
    ((name, info),) = fields.items()
    annotation = info.annotation
    return name if _is_schema(annotation) else None


def _is_schema(value: Any) -> bool:
    """A pydantic model (told by its fields, so that this module need not import pydantic)."""
    return isinstance(value, type) and hasattr(value, "model_fields")


def _names_of(schema: type, field_name: str) -> set[str]:
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
    if _is_schema(type(data)):
        return data.model_dump(mode="json")
    if isinstance(data, (list, tuple)):
        return [render(item) for item in data]
    return data


def documented_paths(path: str, style: Style) -> list[str]:
    """Every path a client may call for `path`: the served ones, and the `.json` form of a
    path ending in a parameter (served by the same route)."""
    served = served_paths(path, style)
    if style is not Style.CURRENT and path.endswith("}"):
        served.append(path + ARCHIVED_SUFFIX)
    return served


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
        body: str | None = None,
        response: str | None = None,
        many: bool = False,
        status: int = 200,
        authenticated: bool = True,
        query: str | None = None,
        style: Style = Style.BOTH,
        content_type: str = "application/json",
        answers: tuple[int, ...] = (),
        archived_response: str | None = None,
    ) -> Callable:
        """`body`, `response` and `query` name schemas of `chalicelib.schemas`; the handler's
        `request.parse()` and `request.parse_query()` validate with `body` and `query`.
        `content_type` and `answers` (statuses of this route's own) are for the document."""

        def register(handler: Callable[[ApiRequest], Any]) -> Callable:
            view = self._view(handler, status, authenticated, body, query)
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
                        content_type,
                        answers,
                        archived_response,
                    )
                )
            return handler

        return register

    def _view(
        self,
        handler: Callable,
        status: int,
        authenticated: bool,
        body_schema: str | None,
        query_schema: str | None,
    ) -> Callable:
        blueprint = self.blueprint

        def view(**params: str) -> Response:
            response = answer(**params)
            if blueprint.current_request.method == "HEAD":
                response.body = ""  # the GET's status and headers, without its body
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            if authenticated:
                # A key's answers (subscriber lists, webhook secrets) are kept by no cache.
                response.headers.setdefault("Cache-Control", "no-store")
            return response

        def answer(**params: str) -> Response:
            try:
                request = api_request(blueprint.current_request, params)
                request.body_schema, request.query_schema = body_schema, query_schema
                if authenticated:
                    request.principal = auth.authenticate(
                        auth.presented_key(request.headers, request.query), params.get("page_id")
                    )
                    ratelimit.check(request.principal.key_hash)
                    structured_logs.annotate(organization_id=request.principal.organization_id)
                if body_schema:
                    _ = request.body  # decoded before any rule runs: an undecodable body is a 400
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
            except (PutError, UpdateError, DeleteError, TransactWriteError) as error:
                if not _lost_a_race(error):
                    logger.exception("write failed in %s", handler.__name__)
                    return error_response(errors.ApiError(500, errors.INTERNAL))
                return error_response(errors.conflict())
            except Exception as error:
                if errors.is_validation_error(error):
                    return error_response(errors.from_validation_error(error))
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


def api_request(current, params: dict[str, str]) -> ApiRequest:
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


# The answer to a path no route serves below a prefix whose readers are people, not programs
# (the console's screens): its own page, not the contract's JSON.
_UNROUTED_SCREENS: dict[str, Callable[[], Response]] = {}


def answer_unrouted_with(prefix: str, screen: Callable[[], Response]) -> None:
    _UNROUTED_SCREENS[prefix] = screen


def unrouted_answer(path: str) -> Response:
    """The answer to `path`, which no route serves: the screen of the prefix it is under,
    else the contract's 404."""
    for prefix, screen in _UNROUTED_SCREENS.items():
        if path == prefix or path.startswith(prefix + "/"):
            return screen()
    return error_response(errors.not_found())


def contract_answers(event, get_response: Callable) -> Response:
    """HTTP middleware: a path no route serves (on AWS: a greedy resource's request the app
    found no route for, `gateway.unrouted`) is the contract's 404, or its prefix's screen;
    Chalice's own answer to a known path with a method it does not serve becomes the
    contract's 405 (its body would otherwise be Chalice's shape)."""
    if gateway.unrouted(event):
        return unrouted_answer("/" + (event.uri_params or {}).get(gateway.PROXY, ""))
    response = get_response(event)
    body = response.body
    if response.status_code == 405 and isinstance(body, dict) and "Code" in body:
        allowed = {"Allow": response.headers["Allow"]} if "Allow" in response.headers else {}
        return error_response(errors.ApiError(405, errors.METHOD_NOT_ALLOWED, headers=allowed))
    return response


def path_parameters(path: str) -> list[str]:
    return _PARAMETER.findall(path)
