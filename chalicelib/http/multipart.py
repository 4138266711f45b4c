"""multipart/form-data bodies (RFC 7578), as browsers send a form that posts files.

A body becomes the same (key, value) pairs a form-urlencoded one does, so that `decode.py`
nests `incident[name]` and reads `csrf` alike; a file part's value is an `UploadedFile`. A file
input left empty (browsers send it with an empty file name and no bytes) is no pair at all.

The parser is strict: a body without its boundary, a part without a `form-data` name or a
body that never closes is a 400. Size is limited before parsing (`MAX_BODY_BYTES`).
"""

import re
from dataclasses import dataclass

from chalicelib.http import errors

MEDIA_TYPE = "multipart/form-data"
# A console form posts at most a few images of at most 1 MB each. On AWS a Lambda takes at
# most 6 MB per invocation and API Gateway hands it a binary body in base64 (4/3 the size).
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_PARTS = 256
MAX_HEADER_BYTES = 8 * 1024  # of one part's header lines
_BOUNDARY = re.compile(r""";\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))""", re.I)
# `name="incident[name]"`: browsers escape `"` and line breaks in names as %22, %0D, %0A.
_PARAMETER = re.compile(r""";\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"([^"]*)"|([^\s;"]+))""")


@dataclass(frozen=True)
class UploadedFile:
    """A file posted with a form: its name and type as the browser claimed them, its bytes."""

    filename: str
    content_type: str
    content: bytes


def pairs_of(raw: bytes, content_type: str) -> list[tuple[str, str | UploadedFile]]:
    """The body's fields in order, each as (name, text or file)."""
    if len(raw) > MAX_BODY_BYTES:
        raise errors.too_large(MAX_BODY_BYTES)
    if not raw.strip():
        return []  # as an empty body of any type: no fields
    delimiter = b"\r\n--" + _boundary(content_type)
    # The first delimiter may open the body: then no line break precedes it.
    pieces = (b"\r\n" + raw).split(delimiter)
    if len(pieces) - 2 > MAX_PARTS:
        raise errors.invalid("body", f"has more than {MAX_PARTS} parts")
    pairs: list[tuple[str, str | UploadedFile]] = []
    for piece in pieces[1:]:  # the first is the preamble, which no one reads
        if piece.startswith(b"--"):
            return pairs  # the close delimiter; what follows it is the epilogue
        pair = _field(_after_delimiter_line(piece))
        if pair is not None:
            pairs.append(pair)
    raise errors.bad_request()  # the body ended before its close delimiter


def _boundary(content_type: str) -> bytes:
    found = _BOUNDARY.search(content_type)
    if not found:
        raise errors.bad_request()
    return (found.group(1) or found.group(2)).encode("ascii", "replace")


def _after_delimiter_line(piece: bytes) -> bytes:
    """A part without the rest of its delimiter's line (transport padding, then CRLF)."""
    line_end = piece.find(b"\r\n")
    if line_end < 0 or piece[:line_end].strip(b" \t"):
        raise errors.bad_request()
    return piece[line_end + 2 :]


def _field(part: bytes) -> tuple[str, str | UploadedFile] | None:
    head_end = part.find(b"\r\n\r\n")
    if part.startswith(b"\r\n"):
        head, content = b"", part[2:]  # a part without header lines names no field
    elif 0 <= head_end <= MAX_HEADER_BYTES:
        head, content = part[:head_end], part[head_end + 4 :]
    else:
        raise errors.bad_request()
    headers = _headers(head)
    disposition, _, parameters = headers.get("content-disposition", "").partition(";")
    if disposition.strip().lower() != "form-data":
        raise errors.bad_request()
    values = {
        key.lower(): quoted or bare for key, quoted, bare in _PARAMETER.findall(";" + parameters)
    }
    name = values.get("name")
    if not name:
        raise errors.bad_request()
    if "filename" not in values:
        return name, _text(content)
    if not values["filename"] and not content:
        return None  # a file input left empty
    content_type = headers.get("content-type", "application/octet-stream").strip()
    return name, UploadedFile(values["filename"], content_type, content)


def _headers(head: bytes) -> dict[str, str]:
    headers = {}
    for line in _text(head).split("\r\n") if head else []:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise errors.bad_request()
        headers[name.strip().lower()] = value.strip()
    return headers


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.bad_request() from None


def refuse_files(body: dict) -> None:
    """A 422 naming each file in a decoded body: for handlers that take no file (the API's),
    so that no file reaches a field that keeps whatever it is given (a `metadata` object)."""
    found: dict[str, list[str]] = {}
    pending: list[tuple[str, object]] = [("", body)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, UploadedFile):
            found[path] = ["is a file; only the console's upload forms take files"]
        elif isinstance(value, dict):
            pending += [(f"{path}.{key}" if path else key, item) for key, item in value.items()]
        elif isinstance(value, list):
            pending += [(f"{path}.{index}", item) for index, item in enumerate(value)]
    if found:
        raise errors.unprocessable(dict(sorted(found.items())))
