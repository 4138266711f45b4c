"""The local stack's outbox: the emails and text messages it sent, newest first, at
`/_local/outbox` on the stack's port. Only `make run` serves it (`server.py`, the local
server of the app); the deployed app has no such route.

An email shows as a reader's mail client shows it: its HTML part in a sandboxed frame, from
`/_local/outbox/{id}.html` (no script runs; a link opens in a new tab, a GET as a reader's
click is, so a confirmation link confirms), with its plain-text part below. A text message
shows as sent, its links clickable. The messages come from the emulator's process
(`sent_messages.py`): what was sent since the stack started, the last 500.
"""

from __future__ import annotations

import json
import re
import urllib.request
from datetime import UTC, datetime
from email import message_from_string, policy
from email.message import EmailMessage
from html import escape

from chalicelib.environment import emulator_url
from chalicelib.local import sent_messages

PATH = "/_local/outbox"
_EMAIL = re.compile(r"^/_local/outbox/([A-Za-z0-9-]{1,100})\.html$")
_LINK = re.compile(r"https?://[^\s<>\"']+")
_PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; frame-ancestors 'none'"
)
# An email's HTML: no script, no form; its links open a tab of their own (`<base>`), which
# the sandbox lets escape it; its images load as a mail client's do.
_EMAIL_POLICY = (
    "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; "
    "style-src 'unsafe-inline'; img-src http: https: data:; frame-ancestors 'self'"
)
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 56rem; color: #222; }
article { border: 1px solid #ccc; border-radius: 6px; margin: 1rem 0; padding: 0.75rem 1rem; }
.meta { color: #555; font-size: 0.9rem; }
iframe { width: 100%; height: 32rem; border: 1px solid #ddd; border-radius: 4px; }
pre { white-space: pre-wrap; word-break: break-word; }
"""

Answer = tuple[int, dict[str, str], bytes]


def serves(path: str) -> bool:
    path = path.partition("?")[0]
    return path == PATH or path.startswith(PATH + "/")


def answer(method: str, path: str, host: str | None) -> Answer:
    """The outbox's answer to `method path` (a path it `serves`) on `Host: host`. Only a
    loopback name shows it: a page of another site that a DNS rebinding pointed at this
    machine must not read the links the stack mailed (sign-in links among them)."""
    if not _is_loopback(host):
        return _json(404, {"error": "The requested resource could not be found"})
    if method not in ("GET", "HEAD"):
        return _json(405, {"error": "Method not allowed"}, {"Allow": "GET, HEAD"})
    path = path.partition("?")[0]
    try:
        messages = _sent()
    except OSError as error:
        return _json(502, {"error": f"the emulator did not answer: {error}"})
    if path == PATH:
        return _html(200, _page(messages), _PAGE_POLICY)
    found = _EMAIL.match(path)
    email = next(
        (m for m in messages if found and m["kind"] == "email" and m["id"] == found.group(1)),
        None,
    )
    if email is None:
        return _json(404, {"error": "The requested resource could not be found"})
    return _html(200, _opened_in_new_tabs(_part(_parsed(email), "html")), _EMAIL_POLICY)


def _is_loopback(host: str | None) -> bool:
    name = (host or "").strip().lower()
    name = name[1:].partition("]")[0] if name.startswith("[") else name.rpartition(":")[0] or name
    return name in ("127.0.0.1", "localhost", "::1") or name.endswith(".localhost")


def _sent() -> list[dict]:
    with urllib.request.urlopen(emulator_url() + sent_messages.PATH, timeout=10) as answered:
        return json.loads(answered.read())


def _parsed(email: dict) -> EmailMessage:
    return message_from_string(email["raw"], policy=policy.default)


def _part(message: EmailMessage, subtype: str) -> str:
    part = message.get_body((subtype,))
    return part.get_content() if part is not None else ""


def _opened_in_new_tabs(html: str) -> str:
    base = '<base target="_blank">'
    head = re.search(r"<head[^>]*>", html, re.IGNORECASE)
    return html[: head.end()] + base + html[head.end() :] if head else base + html


def _page(messages: list[dict]) -> str:
    entries = "\n".join(
        _email_entry(m) if m["kind"] == "email" else _text_entry(m) for m in messages
    )
    empty = "<p>Nothing sent since the stack started.</p>" if not messages else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Outbox: the local stack</title><style>{_STYLE}</style></head><body>"
        "<h1>Outbox</h1><p>The emails and text messages this local stack sent, newest first "
        f"(since it started, the last {sent_messages.MAX_KEPT}). Reload for new ones.</p>"
        f"{empty}{entries}</body></html>"
    )


def _email_entry(email: dict) -> str:
    message = _parsed(email)
    to = ", ".join(email["to"]) or str(message["To"] or "")
    return (
        '<article class="email">'
        f'<p class="meta">Email, {_when(email)}, to {escape(to)}, '
        f"from {escape(str(message['From'] or ''))}</p>"
        f"<h2>{escape(str(message['Subject'] or ''))}</h2>"
        f'<iframe src="{PATH}/{escape(email["id"])}.html" title="the email as sent" '
        'sandbox="allow-popups allow-popups-to-escape-sandbox"></iframe>'
        "<details><summary>Plain-text part</summary>"
        f"<pre>{_linked(_part(message, 'plain'))}</pre></details></article>"
    )


def _text_entry(text: dict) -> str:
    return (
        '<article class="sms">'
        f'<p class="meta">Text message, {_when(text)}, to {escape(", ".join(text["to"]))}</p>'
        f"<p>{_linked(text['text'])}</p></article>"
    )


def _when(message: dict) -> str:
    moment = datetime.fromtimestamp(message["sent_at"], UTC)
    return f'<time datetime="{moment.isoformat()}">{moment:%Y-%m-%d %H:%M:%S} UTC</time>'


def _linked(text: str) -> str:
    """`text` escaped, its web links clickable (opening a tab of their own)."""
    shown, start = [], 0
    for found in _LINK.finditer(text):
        url = found.group(0)
        shown.append(escape(text[start : found.start()]))
        shown.append(f'<a href="{escape(url)}" target="_blank" rel="noopener">{escape(url)}</a>')
        start = found.end()
    shown.append(escape(text[start:]))
    return "".join(shown)


def _html(status: int, body: str, content_policy: str) -> Answer:
    headers = {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Content-Security-Policy": content_policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    return status, headers, body.encode()


def _json(status: int, body: dict, headers: dict | None = None) -> Answer:
    content = {"Content-Type": "application/json", "Cache-Control": "no-store", **(headers or {})}
    return status, content, json.dumps(body).encode()
