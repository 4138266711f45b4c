"""Security headers of the pages this service serves: the public pages and the console's.

An HTML page runs no script but the service's own (the files of `public/static/*.js`, inlined in a
`<script>` element and allowed by their hashes: injected markup can add none, nor load any
from elsewhere), styles itself only with its own `<style>` elements (allowed by their
hashes), shows images from the web, posts forms only to itself and is never framed. Every
answer forbids content sniffing and keeps the referrer to the origin when leaving the site.
The embed script is meant to run on other sites, so it carries no framing rule.
"""

import base64
import hashlib
import re
from functools import cache
from pathlib import Path

REFERRER_POLICY = "strict-origin-when-cross-origin"
_STYLE_ELEMENT = re.compile(r"<style>(.*?)</style>", re.DOTALL)
# The only scripts a page inlines are the public page's (the console's preview frames it; the
# console's own script is served from its origin, allowed by `sources`).
_SCRIPTS = Path(__file__).parents[1] / "public" / "static"


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@cache
def _own_scripts() -> dict[str, str]:
    """Each first-party script as a page inlines it, and its hash."""
    found = {}
    for path in sorted(_SCRIPTS.glob("*.js")):
        text = path.read_text()
        found[f"<script>{text}</script>"] = _hash(text)
    return found


def common() -> dict[str, str]:
    return {"X-Content-Type-Options": "nosniff", "Referrer-Policy": REFERRER_POLICY}


def for_html(
    body: str, *, sources: dict[str, str] | None = None, framed_by_self: bool = False
) -> dict[str, str]:
    """An HTML page: the policy names the hashes of the style elements in `body`. `sources`
    adds directives (the console's own script and preview frame); `framed_by_self` lets a
    page of this origin frame it (the console's preview of a public page)."""
    hashes = [_hash(style) for style in _STYLE_ELEMENT.findall(body)]
    # Only a script of our own, whole, is allowed: not whatever a <script> element holds.
    scripts = [digest for element, digest in _own_scripts().items() if element in body]
    policy = [
        "default-src 'none'",
        *([f"script-src {' '.join(scripts)}"] if scripts else []),
        "style-src " + (" ".join(hashes) or "'none'"),
        "img-src https: http: data:",
        "form-action 'self'",
        "base-uri 'none'",
        *(f"{directive} {value}" for directive, value in (sources or {}).items()),
        "frame-ancestors " + ("'self'" if framed_by_self else "'none'"),
    ]
    framing = "SAMEORIGIN" if framed_by_self else "DENY"
    return {**common(), "Content-Security-Policy": "; ".join(policy), "X-Frame-Options": framing}


def for_data(*, embeddable: bool = False) -> dict[str, str]:
    """JSON, feeds, images, scripts: nothing to run or frame; the embed script is fetched by
    other sites' pages."""
    if embeddable:
        return {**common(), "Cross-Origin-Resource-Policy": "cross-origin"}
    return {**common(), "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"}
