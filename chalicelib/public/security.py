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


def for_html(body: str) -> dict[str, str]:
    """An HTML page: the policy names the hashes of the style elements in `body`."""
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
        "frame-ancestors 'none'",
    ]
    return {**common(), "Content-Security-Policy": "; ".join(policy), "X-Frame-Options": "DENY"}


def for_data(*, embeddable: bool = False) -> dict[str, str]:
    """JSON, feeds, images, scripts: nothing to run or frame; the embed script is fetched by
    other sites' pages."""
    if embeddable:
        return {**common(), "Cross-Origin-Resource-Policy": "cross-origin"}
    return {**common(), "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"}
