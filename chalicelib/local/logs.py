"""The local stack's log lines, the same in each of its processes, with every secret masked.

They are the JSON lines of the functions on AWS (`chalicelib/observability/logs.py`), on
standard error; `LOG_FORMAT=text` writes a line of words per record instead (`time LEVEL
logger message`). The HTTP server's access line is in the common log format either way.

A secret never reaches a log line (the access log of chalicelib/local/server.py, or any line
of the `logging` module in any of the stack's processes): `masked_target` rewrites a request
target, `masked_text` every target-like word of a line, before it is written.

What is a secret in a target:
- the value of a query parameter whose name, once decoded as the app decodes it
  (`?api%5Fkey=` is `api_key` to Chalice and to API Gateway), is in `SECRET_QUERY_NAMES`
  (`api_key`, `token`, `csrf`, `password`);
- the path segment after one of `SECRET_PATH_AFTER`: the token of a sign-in link
  (`/s/{page}/sign-in/{token}`, `/sign-in/{token}` on a page's own host) and of a
  subscription's links (`/s/{page}/subscriptions/{token}/manage`), an integration's alert
  address (`/v1/integrations/{token}/alerts`; the ids of `/v1/pages/{id}/integrations/{id}`
  are masked with them, which costs nothing). A new route with a token in
  its path adds its segment here (tests/unit/test_log_masking.py checks every route);
- anything shaped like an API key (`credentials.new_api_key`), wherever it was sent.
"""

import logging
import os
import re
from urllib.parse import unquote, unquote_plus

from chalicelib.observability import logs as structured_logs

MASK = "[masked]"
# `token` (an alert post's, a link's), `csrf` (a form's token, sent in a query by a careless
# client), `password`: whatever a client puts there.
SECRET_QUERY_NAMES = frozenset({"api_key", "token", "csrf", "password"})
SECRET_PATH_AFTER = frozenset({"sign-in", "subscriptions", "integrations"})

_NOISY = structured_logs.NOISY
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
# A user id, a dot, 32 random bytes in URL-safe base64 (chalicelib/domain/credentials.py).
_API_KEY_SHAPE = re.compile(r"[0-9a-z]{16}\.[A-Za-z0-9_-]{43}")
_QUERY_SEPARATORS = re.compile(r"([&;])")
_WORD = re.compile(r"\S+")
# Names and segments are compared decoded until they stop changing: `api%255Fkey` is not
# `api_key` to the app, but masking more than it reads costs nothing.
_DECODINGS = 3


def _decoded(text: str, decode=unquote) -> str:
    for _ in range(_DECODINGS):
        once = decode(text)
        if once == text:
            break
        text = once
    return text


def _holds_api_key(text: str) -> bool:
    return bool(_API_KEY_SHAPE.search(text) or _API_KEY_SHAPE.search(_decoded(text)))


def _masked_path(path: str) -> str:
    segments = path.split("/")
    for at in range(len(segments)):
        after_secret_name = at > 0 and _decoded(segments[at - 1]).lower() in SECRET_PATH_AFTER
        if segments[at] and (after_secret_name or _holds_api_key(segments[at])):
            segments[at] = MASK
    return "/".join(segments)


def _names_a_secret_path(value: str) -> bool:
    """A link given as a value (`?next=/s/p/sign-in/...`)."""
    path = _decoded(value, unquote_plus)
    return _masked_path(path) != path


def _masked_query(query: str) -> str:
    parts = _QUERY_SEPARATORS.split(query)
    for at, part in enumerate(parts):
        name, equals, value = part.partition("=")
        secret = _decoded(name, unquote_plus).strip().lower() in SECRET_QUERY_NAMES
        if equals and (secret or _holds_api_key(value) or _names_a_secret_path(value)):
            parts[at] = f"{name}={MASK}"
    return "".join(parts)


def masked_target(target: str) -> str:
    """A request target (`/path?query`, or a whole URL) as a log line may show it."""
    path, question_mark, query = target.partition("?")
    return _masked_path(path) + question_mark + _masked_query(query)


def _masked_word(word: str) -> str:
    masked = masked_target(word)
    # A query without its `?` (a request line cut apart at a space): its names still count.
    return masked if "?" in word else _masked_query(masked)


def masked_text(text: str) -> str:
    """`text` with each word masked as a target: a log line names a target among other words
    (`"GET /x?api_key=... HTTP/1.1" 200 -`, `the app did not answer GET /x in time`)."""
    return _WORD.sub(lambda word: _masked_word(word.group()), text)


class _MaskSecrets(logging.Filter):
    """On a handler: every record it writes, from any logger, is masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = masked_text(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = masked_text(record.exc_text)
        return True


def _formatter() -> logging.Formatter:
    if os.environ.get("LOG_FORMAT", "json").strip().lower() == "text":
        return logging.Formatter(TEXT_FORMAT)
    return structured_logs.JsonLines(redact=masked_text)


def configure() -> None:
    """Every handler of the root logger (one on standard error, unless there is one) writes
    the stack's lines, masked."""
    logging.basicConfig(level=logging.INFO)
    for noisy in _NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(_formatter())
        if not any(isinstance(each, _MaskSecrets) for each in handler.filters):
            handler.addFilter(_MaskSecrets())
