"""Caching headers of public views: a short `Cache-Control`, an `ETag`, 304 on a match.

A view's ETag comes from its snapshot's version and what else the view depends on (its
path, its query, for the views that change with time alone the part of the clock they show:
`clock_changes.period_of`), so it is known before rendering: a revalidation costs the
snapshot read and nothing more.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Callable

from chalice import Response

MAX_AGE_SECONDS = 10
_RENDERED_CACHE_SIZE = 64
_rendered: OrderedDict[str, str] = OrderedDict()


def etag_of(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return f'"{digest}"'


def matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    offered = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return etag in offered


def respond(
    headers: dict[str, str],
    etag: str,
    content_type: str,
    render: Callable[[], str],
    extra_headers: dict[str, str] | None = None,
    headers_of_body: Callable[[str], dict[str, str]] | None = None,
    reuse: bool = True,
) -> Response:
    """200 with the rendered body, or 304 when the client holds this version already.
    `headers_of_body` adds headers that depend on the body (a policy naming its hashes).
    Without `reuse`, the body is rendered anew rather than taken from the bodies rendered
    for the same ETag (which may be older than what it shows, such as a chart's points)."""
    sent = {
        "Cache-Control": f"public, max-age={MAX_AGE_SECONDS}",
        "ETag": etag,
        **(extra_headers or {}),
    }
    if matches(headers.get("if-none-match"), etag):
        return Response(body="", status_code=304, headers=sent)
    body = _rendered.get(etag) if reuse else None
    if body is None:
        body = render()
        _rendered[etag] = body
        if len(_rendered) > _RENDERED_CACHE_SIZE:
            _rendered.popitem(last=False)
    if headers_of_body is not None:
        sent.update(headers_of_body(body))
    return Response(body=body, status_code=200, headers={"Content-Type": content_type, **sent})


def uncached(
    body: str, status: int, content_type: str, extra_headers: dict[str, str] | None = None
) -> Response:
    """Errors and private pages: never kept by a shared cache."""
    return Response(
        body=body,
        status_code=status,
        headers={
            "Content-Type": content_type,
            "Cache-Control": "no-store",
            **(extra_headers or {}),
        },
    )
