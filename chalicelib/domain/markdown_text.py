"""Markdown written by users: stored without harmful markup, rendered sanitized.

Saving keeps the author's Markdown as written but takes out what could run in a reader's
browser: script-like elements, `on*=` event attributes and `javascript:` URLs. Rendering turns
the Markdown into HTML and sanitizes that again with nh3, so nothing stored can do harm.
"""

import re
from functools import lru_cache

_DANGEROUS_ELEMENTS = re.compile(
    r"<(script|style|iframe|object|embed|frameset|frame|applet|meta|link|base)\b[^>]*>.*?</\1\s*>"
    r"|<(script|style|iframe|object|embed|frameset|frame|applet|meta|link|base)\b[^>]*/?>?",
    re.IGNORECASE | re.DOTALL,
)
_TAG = re.compile(r"<[a-zA-Z][^<>]*>")
_EVENT_ATTRIBUTE = re.compile(r"""\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
# `javascript:`, also written with entities, tabs or newlines inside, as browsers read it.
_SCRIPT_URL = re.compile(
    r"(j|&#0*106;|&#x0*6a;)(\s|&#\w+;)*a(\s)*v(\s)*a(\s)*s(\s)*c(\s)*r(\s)*i(\s)*p(\s)*t(\s)*:",
    re.IGNORECASE,
)


def _clean_tag(tag: str) -> str:
    tag = _EVENT_ATTRIBUTE.sub("", tag)
    return _SCRIPT_URL.sub("", tag)


def strip_harmful(text: str) -> str:
    """The Markdown source with harmful markup removed and everything else as written."""
    previous = None
    while previous != text:  # removing one piece can join the halves of another
        previous = text
        text = _DANGEROUS_ELEMENTS.sub("", text)
        text = _TAG.sub(lambda match: _clean_tag(match.group(0)), text)
        text = _SCRIPT_URL.sub("", text)
    return text


# A page view renders each update it shows; the same texts come back view after view, and a
# render (a Markdown parser made with its extensions, then nh3) costs milliseconds.
@lru_cache(maxsize=4096)
def render_html(text: str) -> str:
    """Markdown to sanitized HTML, safe to put in a page."""
    import markdown  # imported by the first render: saving needs only `strip_harmful`
    import nh3

    html = markdown.markdown(text or "", extensions=["extra", "sane_lists"])
    return nh3.clean(html, url_schemes={"http", "https", "mailto"})
