"""Log lines as JSON, one a line, with what each invocation is about.

Every line (of any module's `logging.getLogger(__name__)`) is one JSON object, formatted by
Powertools' `LambdaPowertoolsFormatter`: `level`, `location`, `message`, `timestamp` (UTC),
`service`, and the invocation's keys: `request_id` (Lambda's `aws_request_id`; the local
server's id of the HTTP request), `function` (the route's handler or the event function),
`page_id` and `organization_id` when the path or the messages name them. Each invocation ends
with one line of its own (`INVOCATION`) that adds `duration_ms` and the outcome: `status` for
a request, `messages`, `handled` and `failed` for an event function.

On Lambda the lines go to standard output, which CloudWatch Logs reads; the local stack
installs the same formatter (`chalicelib/local/logs.py`).
"""

import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from chalice import Chalice, Response
from chalice.app import MiddlewareHandler, Request, SNSEvent, SQSEvent

SERVICE = "statuspage"
INVOCATION = "invocation"
# Per-request and per-client lines of the libraries: far more than anyone reads.
NOISY = ("werkzeug", "botocore", "pynamodb", "urllib3")
# The local stack's event context (chalicelib/local/events.py) names no invocation.
_UNNAMED_REQUEST = "local"

# Not the logger named after the app: Chalice gives that one a level and a handler of its own.
logger = logging.getLogger(__name__)
# Powertools keeps the invocation's keys in a context variable that every formatter reads:
# each thread (and each task) has its own.
_keys = LambdaPowertoolsFormatter()


class JsonLines(LambdaPowertoolsFormatter):
    """Powertools' JSON lines; `redact` rewrites each traceback (the local stack masks the
    secrets an exception's text may quote, as its filter masks each message)."""

    def __init__(self, redact: Callable[[str], str] | None = None):
        super().__init__(
            utc=True,
            use_rfc3339=True,
            # The traceback's text says it all; a frame list would repeat it unredacted.
            serialize_stacktrace=False,
            log_record_order=["level", "message", "timestamp", "location"],
            service=SERVICE,
        )
        self.redact = redact or (lambda text: text)

    def formatException(self, ei) -> str:
        return self.redact(super().formatException(ei))


def install(handler: logging.Handler, level: int = logging.INFO) -> None:
    """`handler` becomes the root logger's only handler."""
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for noisy in NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)


def configure_on_lambda() -> None:
    """On Lambda: JSON lines on standard output, in place of the runtime's text handler.
    Elsewhere nothing changes (tests keep pytest's handlers; the local stack installs its
    own)."""
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(JsonLines())
        install(handler)


def annotate(**keys: Any) -> None:
    """Add keys to every line of the current invocation (those that are not None)."""
    known = {name: value for name, value in keys.items() if value is not None}
    if known:
        _keys.thread_safe_append_keys(**known)


def current_keys() -> dict[str, Any]:
    """The keys of the invocation running in this context (empty outside any)."""
    return dict(_keys.thread_safe_get_current_keys())


@contextmanager
def _invocation(**keys: Any) -> Iterator[None]:
    """The keys, for the lines logged within; what was there before is restored after (a
    thread of the local stack runs one invocation after another)."""
    before = current_keys()
    _keys.thread_safe_clear_keys()
    annotate(**keys)
    try:
        yield
    finally:
        _keys.thread_safe_clear_keys()
        annotate(**before)


def _request_id(context: Any) -> str:
    given = getattr(context, "aws_request_id", None)
    return given if given and given != _UNNAMED_REQUEST else uuid.uuid4().hex


def _handler_of(get_response: Callable) -> Callable:
    while isinstance(get_response, MiddlewareHandler):
        get_response = get_response.next_handler
    return get_response


def _messages(event: Any) -> list[str]:
    if isinstance(event, SQSEvent):
        return [record.body for record in event]
    return [event.message] if isinstance(event, SNSEvent) else []


def _bodies(messages: list[str]) -> list[dict]:
    """The messages that are JSON objects, to find the page they name."""
    bodies = []
    for body in messages:
        try:
            parsed = json.loads(body)
        except (TypeError, ValueError):
            continue
        if isinstance(parsed, dict):
            bodies.append(parsed)
    return bodies


def _one_of(values: list) -> str | None:
    """The value the messages share, if they share one."""
    distinct = {value for value in values if isinstance(value, str)}
    return distinct.pop() if len(distinct) == 1 else None


def _answer_request(app: Chalice, request: Request, get_response: Callable) -> Response:
    route = request.context.get("resourcePath", "")
    entry = app.routes.get(route, {}).get(request.method)
    params = request.uri_params or {}
    started = time.perf_counter()
    with _invocation(
        request_id=_request_id(request.lambda_context),
        function=entry.view_name if entry else None,
        route=f"{request.method} {route}",
        page_id=params.get("page_id"),
        organization_id=params.get("organization_id"),
    ):
        response = get_response(request)
        status = response.status_code
        logger.log(
            logging.ERROR if status >= 500 else logging.INFO,
            INVOCATION,
            extra={"status": status, "duration_ms": _since(started)},
        )
    return response


def _handle_event(event: Any, get_response: Callable) -> Any:
    messages = _messages(event)
    bodies = _bodies(messages)
    count = len(messages) if isinstance(event, SQSEvent) else 1
    started = time.perf_counter()
    with _invocation(
        request_id=_request_id(event.context),
        function=getattr(_handler_of(get_response), "__name__", None),
        page_id=_one_of([body.get("page_id") for body in bodies]),
        organization_id=_one_of([body.get("organization_id") for body in bodies]),
    ):
        outcome = {"messages": count, "handled": 0, "failed": count}
        try:
            result = get_response(event)
            outcome.update(handled=count, failed=0)
            return result
        finally:
            # A raise fails the whole batch: its messages come back.
            level = logging.ERROR if outcome["failed"] else logging.INFO
            logger.log(level, INVOCATION, extra={**outcome, "duration_ms": _since(started)})


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def observe(app: Chalice) -> None:
    """JSON lines on Lambda, and one line per invocation of every route and event function
    of `app`, with its keys on every line logged within. Call it before registering other
    middleware: the first is the outermost, so the line has the final status."""
    configure_on_lambda()

    def each_invocation(event: Any, get_response: Callable) -> Any:
        if isinstance(event, Request):
            return _answer_request(app, event, get_response)
        return _handle_event(event, get_response)

    app.register_middleware(each_invocation, "all")
