"""Request bodies, JSON, form-urlencoded or multipart (`multipart.py`), decoded into one
nested dict.

Form keys follow the Rails convention the API's clients use: `a[b]=1` is `{"a": {"b": "1"}}`,
`a[c][]=x` is `{"a": {"c": ["x"]}}` and `a[][b]=1&a[][b]=2` is a list of two objects. Values
stay strings; the schemas coerce them (`t`, `f`, `true`, `false`, `1`, `0` for booleans).

Limits hold before anything is decoded or stored: a body of at most `MAX_BODY_BYTES`, nested
at most `MAX_NESTING` levels (DynamoDB stores 32 levels of maps and lists, and nothing deeper
has a use here). Each refusal names its limit.
"""

import json
import re
from urllib.parse import parse_qsl

from chalicelib.http import errors, multipart

_KEY = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
_PART = re.compile(r"\[([^\[\]]*)\]")

JSON_TYPES = ("application/json", "text/json")
FORM_TYPE = "application/x-www-form-urlencoded"

# A 3,000-point metric batch, the largest body the API takes, is about 300 KB as a form.
MAX_BODY_BYTES = 1024 * 1024
MAX_NESTING = 32


def decode_body(raw: bytes | str | None, content_type: str | None) -> dict:
    """The body as a dict; a body that does not match its Content-Type is a 400."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    media_type = (content_type or "").split(";")[0].strip().lower()
    if media_type == multipart.MEDIA_TYPE:  # files: a larger limit, checked there
        return decode_pairs(multipart.pairs_of(raw, content_type or ""))
    if len(raw) > MAX_BODY_BYTES:
        raise errors.too_large(MAX_BODY_BYTES)
    if not raw.strip():
        return {}
    if not media_type:
        # No header at all: take the body for what it plainly is.
        media_type = JSON_TYPES[0] if raw.lstrip()[:1] in (b"{", b"[") else FORM_TYPE
    if media_type in JSON_TYPES or media_type.endswith("+json"):
        return _decode_json(raw)
    if media_type == FORM_TYPE:
        return decode_form(_text(raw))
    raise errors.bad_request()


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.bad_request() from None


def _decode_json(raw: bytes) -> dict:
    text = _text(raw)
    try:
        body = json.loads(text)
    except RecursionError:
        # Far deeper than any limit: the parser gave up before we could measure it.
        raise _too_deep() from None
    except ValueError:
        raise errors.bad_request() from None
    if not isinstance(body, dict):
        raise errors.bad_request()
    if _depth(body) > MAX_NESTING:
        raise _too_deep()
    if not storable(body, text):
        raise errors.bad_request()
    return body


# JSON may escape half of a UTF-16 surrogate pair alone (`"\ud800"`): Python decodes it into
# a string no store or answer can encode, which failed later as a conflict retried in vain.
# Only a body that escapes a surrogate at all is looked at (a valid pair is storable).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def storable(value, text: str) -> bool:
    """Whether every key and string of `value`, decoded from the JSON `text`, is encodable
    as UTF-8 (only a text that escapes a surrogate at all is looked at)."""
    if not _SURROGATE_ESCAPE.search(text):
        return True
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _depth(value) -> int:
    """How many levels of objects and arrays `value` nests (a scalar is 0), counted without
    recursion so that no body can exhaust the stack."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item
        deepest = max(deepest, level)
        pending.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _too_deep() -> errors.ApiError:
    return errors.invalid("body", f"nests more than {MAX_NESTING} levels")


def decode_form(text: str) -> dict:
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise errors.bad_request() from None
    return decode_pairs(pairs)


def decode_pairs(pairs: list[tuple[str, str | multipart.UploadedFile]]) -> dict:
    """Bracketed keys and their values into one nested dict."""
    result: dict = {}
    for key, value in pairs:
        match = _KEY.match(key)
        if not match:
            raise errors.bad_request()
        path = [match.group(1)] + _PART.findall(match.group(2))
        if len(path) > MAX_NESTING:
            raise _too_deep()
        _assign(result, path, value)
    return result


def _assign(container: dict, path: list[str], value: str) -> None:
    head, rest = path[0], path[1:]
    if not rest:
        if isinstance(container.get(head), (dict, list)):
            raise errors.bad_request()
        container[head] = value
        return
    if rest[0] == "":
        items = container.setdefault(head, [])
        if not isinstance(items, list):
            raise errors.bad_request()
        if len(rest) == 1:
            items.append(value)
            return
        # `a[][b]=..`: a new object starts when the last one already holds this key.
        if not items or not isinstance(items[-1], dict) or rest[1] in items[-1]:
            items.append({})
        _assign(items[-1], rest[1:], value)
        return
    child = container.setdefault(head, {})
    if not isinstance(child, dict):
        raise errors.bad_request()
    _assign(child, rest, value)
