"""Security headers of the public pages.

An HTML page runs no script, styles itself only with its own `<style>` elements (allowed by
their hashes, so injected markup cannot add any), shows images from the web, posts forms only
to itself and is never framed. Every answer forbids content sniffing and keeps the referrer to
the origin when leaving the site. The embed script is meant to run on other sites, so it
carries no framing rule.
"""

import base64
import hashlib
import re

REFERRER_POLICY = "strict-origin-when-cross-origin"
_STYLE_ELEMENT = re.compile(r"<style>(.*?)</style>", re.DOTALL)


def common() -> dict[str, str]:
    return {"X-Content-Type-Options": "nosniff", "Referrer-Policy": REFERRER_POLICY}


def for_html(
    body: str, *, sources: dict[str, str] | None = None, framed_by_self: bool = False
) -> dict[str, str]:
    """An HTML page: the policy names the hashes of the style elements in `body`. `sources`
    adds directives (the console's own script and preview frame); `framed_by_self` lets a
    page of this origin frame it (the console's preview of a public page)."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
        for style in _STYLE_ELEMENT.findall(body)
    ]
    policy = [
        "default-src 'none'",
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
