"""Request bodies, JSON or form-urlencoded, decoded into one nested dict.

Form keys follow the Rails convention the API's clients use: `a[b]=1` is `{"a": {"b": "1"}}`,
`a[c][]=x` is `{"a": {"c": ["x"]}}` and `a[][b]=1&a[][b]=2` is a list of two objects. Values
stay strings; the schemas coerce them (`t`, `f`, `true`, `false`, `1`, `0` for booleans).
"""

import json
import re
from urllib.parse import parse_qsl

from chalicelib.http import errors

_KEY = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
_PART = re.compile(r"\[([^\[\]]*)\]")

JSON_TYPES = ("application/json", "text/json")
FORM_TYPE = "application/x-www-form-urlencoded"


def decode_body(raw: bytes | str | None, content_type: str | None) -> dict:
    """The body as a dict; a body that does not match its Content-Type is a 400."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if not raw.strip():
        return {}
    media_type = (content_type or "").split(";")[0].strip().lower()
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
    try:
        body = json.loads(_text(raw))
    except ValueError:
        raise errors.bad_request() from None
    if not isinstance(body, dict):
        raise errors.bad_request()
    return body


def decode_form(text: str) -> dict:
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise errors.bad_request() from None
    return decode_pairs(pairs)


def decode_pairs(pairs: list[tuple[str, str]]) -> dict:
    """Bracketed keys and their values into one nested dict."""
    result: dict = {}
    for key, value in pairs:
        match = _KEY.match(key)
        if not match:
            raise errors.bad_request()
        path = [match.group(1)] + _PART.findall(match.group(2))
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
