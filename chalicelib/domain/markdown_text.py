"""Markdown written by users: stored without harmful markup, rendered sanitized.

Saving keeps the author's Markdown as written but takes out what could run in a reader's
browser: script-like elements, `on*=` event attributes and `javascript:` URLs. Rendering turns
the Markdown into HTML and sanitizes that again with nh3, so nothing stored can do harm; or,
for the plain-text part of an email, into the text a reader sees (`render_text`).
"""

import re
from functools import lru_cache
from html.parser import HTMLParser

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


@lru_cache(maxsize=1024)
def render_text(text: str) -> str:
    """Markdown to the plain text a reader of the rendered HTML sees: no `**` or `#`; links
    as `text (url)`, list items as `- ` or `1. `, quotes as `> `, code blocks indented by four
    spaces, paragraphs apart by a blank line."""
    writer = _PlainText()
    writer.feed(render_html(text))
    writer.close()
    return writer.text()


_PARAGRAPHS = frozenset(
    "p div h1 h2 h3 h4 h5 h6 table blockquote dl dt dd details summary figure figcaption "
    "section article header footer".split()
)
_LINK_SCHEMES = ("http://", "https://", "mailto:")


class _PlainText(HTMLParser):
    """The text of sanitized HTML (`render_html`'s), line by line."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.words: list[str] = []  # the line being gathered
        # A blank line is due before the next one: the quote depth it was asked at, or None.
        self.blank: int | None = None
        self.quotes = 0
        self.lists: list[list] = []  # [ordered, next number] per open list
        self.marker = ""  # a list item's, for its first line
        self.code: list[str] | None = None  # inside <pre>
        self.links: list[tuple[str, int]] = []  # href, where its words start
        self.cells = 0  # of the table row so far

    def text(self) -> str:
        self._end_line()
        return "\n".join(self.lines).strip("\n")

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag in _PARAGRAPHS or tag == "hr":
            self._end_line(blank=True)
            self.quotes += tag == "blockquote"
            if tag == "hr":
                self._write("----")
                self.blank = self.quotes
        elif tag in ("ul", "ol"):
            self._end_line(blank=not self.lists)
            self.lists.append([tag == "ol", int(attributes.get("start") or 1)])
        elif tag == "li":
            self._end_line()
            if self.lists:
                ordered, number = self.lists[-1]
                self.marker = f"{number}. " if ordered else "- "
                self.lists[-1][1] += 1
        elif tag == "pre":
            self._end_line(blank=True)
            self.code = []
        elif tag == "br":
            self._end_line()
        elif tag == "tr":
            self._end_line()
            self.cells = 0
        elif tag in ("td", "th"):
            self.words.append(" | " if self.cells else "")
            self.cells += 1
        elif tag == "a":
            self.links.append((attributes.get("href") or "", len(self.words)))
        elif tag == "img":
            self.words.append(attributes.get("alt") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in _PARAGRAPHS:
            self._end_line(blank=True)
            self.quotes -= tag == "blockquote" and self.quotes > 0
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self._end_line(blank=not self.lists)
        elif tag == "li":
            self._end_line()
        elif tag == "pre" and self.code is not None:
            code, self.code = "".join(self.code).rstrip("\n"), None
            for line in code.split("\n"):
                self._write("    " + line, keep_spaces=True)
            self.blank = self.quotes
        elif tag == "tr":
            self._end_line()
        elif tag == "a" and self.links:
            href, start = self.links.pop()
            label = " ".join("".join(self.words[start:]).split())
            shown = href.removeprefix("mailto:")
            if href.lower().startswith(_LINK_SCHEMES) and label not in (href, shown):
                self.words.append(f" ({href})" if label else href)

    def handle_data(self, data: str) -> None:
        if self.code is not None:
            self.code.append(data)
        else:
            self.words.append(data)

    def _end_line(self, blank: bool = False) -> None:
        text = " ".join("".join(self.words).split())
        self.words = []
        if text:
            self._write(text)
        if blank and self.lines and self.blank is None:
            self.blank = self.quotes

    def _write(self, text: str, keep_spaces: bool = False) -> None:
        quote = "> " * self.quotes
        if self.blank is not None and self.lines:
            self.lines.append(("> " * min(self.blank, self.quotes)).rstrip())
        self.blank = None
        indent = "  " * max(len(self.lists) - 1, 0)
        lead = indent + (self.marker or ("   " if self.lists else ""))
        self.marker = ""
        line = quote + lead + text
        self.lines.append(line if keep_spaces else line.rstrip())
