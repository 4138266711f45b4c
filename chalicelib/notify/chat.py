"""Chat messages: one notification as each platform's incoming webhook takes it.

The fan-out says once what an incident update is (`content.incident_content`'s `chat` part:
plain text and links); a delivery makes each platform's message of it once per batch and
puts each recipient's own unsubscribe link in (a string replace, as for email):

- Slack: `{"text", "blocks"}`, Block Kit section and context blocks in `mrkdwn`, where `&`,
  `<` and `>` are escaped (Slack's control characters: unescaped, text could mention
  `<!channel>` or hide a link).
- Microsoft Teams: a Workflows message holding one Adaptive Card (1.4); what people wrote goes
  in `RichTextBlock` text runs, which no host reads as Markdown.
- Discord: one embed; Markdown's characters in what people wrote are backslash-escaped, and
  `allowed_mentions` parses no mention, so `@everyone` in an update pings nobody.
- Google Chat: a `cardsV2` card; card text is HTML, so what people wrote is HTML-escaped.

Each field is cut, at a character, to its platform's documented limit.
"""

from __future__ import annotations

import html
import json
import re
import secrets
from collections.abc import Callable

from chalicelib.domain.chat_platforms import DISCORD, GOOGLE_CHAT, SLACK, TEAMS

ELLIPSIS = "…"
# Colors of an update, by what it says: resolved, maintenance, or the incident's impact.
HEX_COLORS = {
    "resolved": "#2fcc66",
    "maintenance": "#3498db",
    "none": "#3498db",
    "minor": "#f1c40f",
    "major": "#e67e22",
    "critical": "#e74c3c",
}
TEAMS_COLORS = {
    "resolved": "Good",
    "maintenance": "Accent",
    "none": "Accent",
    "minor": "Warning",
    "major": "Attention",
    "critical": "Attention",
}
COMPONENT_LEVELS = {
    "operational": "resolved",
    "under_maintenance": "maintenance",
    "degraded_performance": "minor",
    "partial_outage": "major",
    "major_outage": "critical",
}
# Components listed one by one (one line, block or widget each); the rest are counted.
COMPONENTS_SHOWN = 20
# Limits (characters) from each platform's documentation.
SLACK_TEXT = 3000  # a section's text; also the top-level `text` we send
TEAMS_TEXT = 4000  # ours: a card is at most 28 KB
DISCORD_TITLE, DISCORD_DESCRIPTION, DISCORD_FIELD_VALUE = 256, 4096, 1024
DISCORD_AUTHOR, DISCORD_EMBED_TOTAL = 256, 6000
GOOGLE_TEXT = 4000  # ours: a message (cards included) is at most 32,000 bytes
GOOGLE_HEADER = 200  # ours: the header shows one line of each
_DISCORD_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]()<@])")
# What a recipient's unsubscribe link may take in a Discord embed's total, beyond the marker.
UNSUBSCRIBE_ROOM = 400


def _length(text: str) -> int:
    """Characters as the platforms count them at most (UTF-16 code units, as JavaScript)."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str, limit: int, escape: Callable[[str], str] = lambda text: text) -> str:
    """`escape(text)`, cut at a character of `text` (never inside an escape) with an
    ellipsis so that it holds at most `limit` characters."""
    shown = escape(text)
    if _length(shown) <= limit:
        return shown
    keep = min(len(text), limit)
    while keep > 0:
        shown = escape(text[:keep].rstrip()) + ELLIPSIS
        excess = _length(shown) - limit
        if excess <= 0:
            return shown
        keep -= excess
    return ELLIPSIS


def slack_escape(text: str) -> str:
    return html.escape(text, quote=False)


def discord_escape(text: str) -> str:
    return _DISCORD_MARKDOWN.sub(r"\\\1", text)


def google_escape(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


def _level(chat: dict) -> str:
    if chat["status"] in ("resolved", "completed", "postmortem"):
        return "resolved"
    if chat["scheduled"]:
        return "maintenance"
    return chat["impact"] if chat["impact"] in HEX_COLORS else "none"


def _summary(chat: dict) -> str:
    return f"[{chat['page']}] {chat['title']}: {chat['status_label']}"


def _listed(lines: list[str], limit: int, joiner: str = "\n") -> str:
    """As many of `lines` as hold in `limit` characters, and how many more there are."""
    shown: list[str] = []
    for number, line in enumerate(lines):
        more = f"and {len(lines) - number} more"
        candidate = joiner.join([*shown, line])
        rest = len(lines) - number - 1
        room = _length(candidate) + (_length(joiner + more) if rest else 0)
        if number >= COMPONENTS_SHOWN or room > limit:
            return joiner.join([*shown, more])
        shown.append(line)
    return joiner.join(shown)


def slack(chat: dict, unsubscribe: str) -> dict:
    escape = slack_escape
    lines = [f"_{escape(chat['intro'])}_"] if chat["intro"] else []
    lines.append(f"*<{chat['link']}|{fit(chat['title'], 300, escape)}>*")
    lines.append(f"*{escape(chat['status_label'])}* · {fit(chat['page'], 300, escape)}")
    if chat["window"]:
        start, end = chat["window"]
        lines.append(f"Scheduled: {escape(start)} until {escape(end)}")
    blocks = [_slack_section("\n".join(lines))]
    if chat["body"]:
        blocks.append(_slack_section(fit(chat["body"], SLACK_TEXT, escape)))
    if chat["components"]:
        items = [
            f"• {fit(c['name'], 300, escape)}: {escape(c['label'])}" for c in chat["components"]
        ]
        heading = "*Affected components*\n"
        blocks.append(_slack_section(heading + _listed(items, SLACK_TEXT - len(heading))))
    footer = [
        f"Posted {escape(chat['when_text'])}",
        f"<{chat['link']}|{escape(chat['link_text'])}>",
        f"<{unsubscribe}|Unsubscribe>",
    ]
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(footer)}]})
    return {
        "text": fit(_summary(chat), SLACK_TEXT, escape),
        "blocks": blocks,
        "unfurl_links": False,
        "unfurl_media": False,
    }


def _slack_section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _run(text: str, **style) -> dict:
    return {"type": "TextRun", "text": text, **style}


def _rich(*runs: dict) -> dict:
    return {"type": "RichTextBlock", "inlines": list(runs)}


def teams(chat: dict, unsubscribe: str) -> dict:
    level = _level(chat)
    body = [_rich(_run(chat["intro"], isSubtle=True))] if chat["intro"] else []
    body.append(_rich(_run(fit(chat["title"], 300), size="Large", weight="Bolder")))
    body.append(
        _rich(
            _run(chat["status_label"], weight="Bolder", color=TEAMS_COLORS[level]),
            _run(f" · {fit(chat['page'], 300)}", isSubtle=True),
        )
    )
    if chat["window"]:
        start, end = chat["window"]
        body.append(_rich(_run(f"Scheduled: {start} until {end}")))
    if chat["body"]:
        body.append(_rich(_run(fit(chat["body"], TEAMS_TEXT))))
    components = chat["components"]
    if components:
        body.append(_rich(_run("Affected components", weight="Bolder")))
        for component in components[:COMPONENTS_SHOWN]:
            color = TEAMS_COLORS[COMPONENT_LEVELS.get(component["status"], "none")]
            body.append(
                _rich(
                    _run(f"{fit(component['name'], 300)}: "),
                    _run(component["label"], weight="Bolder", color=color),
                )
            )
        if len(components) > COMPONENTS_SHOWN:
            body.append(_rich(_run(f"and {len(components) - COMPONENTS_SHOWN} more")))
    body.append(_rich(_run(f"Posted {chat['when_text']}", isSubtle=True, size="Small")))
    card = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "fallbackText": fit(_summary(chat), TEAMS_TEXT),
        "body": body,
        "actions": [
            {"type": "Action.OpenUrl", "title": chat["link_text"], "url": chat["link"]},
            {"type": "Action.OpenUrl", "title": "Unsubscribe", "url": unsubscribe},
        ],
        "msteams": {"width": "Full"},
    }
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": card,
            }
        ],
    }


def discord(chat: dict, unsubscribe: str) -> dict:
    escape = discord_escape
    fields = [{"name": "Status", "value": chat["status_label"], "inline": True}]
    if chat["window"]:
        start, end = chat["window"]
        fields.append({"name": "Scheduled", "value": f"{start} until {end}"})
    if chat["components"]:
        items = [f"{fit(c['name'], 300, escape)}: {c['label']}" for c in chat["components"]]
        fields.append({"name": "Affected components", "value": _listed(items, DISCORD_FIELD_VALUE)})
    links = f"[{chat['link_text']}]({chat['link']}) · [Unsubscribe]({unsubscribe})"
    fields.append({"name": "Links", "value": links})
    embed = {
        "title": fit(chat["title"], DISCORD_TITLE, escape),
        "url": chat["link"],
        "color": int(HEX_COLORS[_level(chat)][1:], 16),
        "timestamp": chat["when"],
        "author": {"name": fit(chat["page"], DISCORD_AUTHOR)},
        "fields": fields,
    }
    # Every embed's text together holds at most 6,000 characters: the text gets what is left.
    used = _length(embed["title"]) + _length(embed["author"]["name"])
    used += sum(_length(field["name"]) + _length(field["value"]) for field in fields)
    used += UNSUBSCRIBE_ROOM - len(unsubscribe)  # the marker stands for a longer link
    room = min(DISCORD_DESCRIPTION, DISCORD_EMBED_TOTAL - used)
    if chat["body"] and room > 0:
        embed["description"] = fit(chat["body"], room, escape)
    return {"allowed_mentions": {"parse": []}, "embeds": [embed]}


def google_chat(chat: dict, unsubscribe: str) -> dict:
    escape = google_escape
    color = HEX_COLORS[_level(chat)]
    widgets = (
        [{"textParagraph": {"text": f"<i>{escape(chat['intro'])}</i>"}}] if chat["intro"] else []
    )
    status = f'<font color="{color}"><b>{escape(chat["status_label"])}</b></font>'
    widgets.append({"textParagraph": {"text": status}})
    if chat["window"]:
        start, end = chat["window"]
        text = escape(f"{start} until {end}")
        widgets.append({"decoratedText": {"topLabel": "Scheduled", "text": text}})
    if chat["body"]:
        widgets.append({"textParagraph": {"text": fit(chat["body"], GOOGLE_TEXT, escape)}})
    sections = [{"widgets": widgets}]
    components = chat["components"]
    if components:
        listed = [
            {"decoratedText": {"text": fit(c["name"], 300, escape), "bottomLabel": c["label"]}}
            for c in components[:COMPONENTS_SHOWN]
        ]
        if len(components) > COMPONENTS_SHOWN:
            more = f"and {len(components) - COMPONENTS_SHOWN} more"
            listed.append({"textParagraph": {"text": more}})
        sections.append({"header": "Affected components", "widgets": listed})
    buttons = [
        {"text": chat["link_text"], "onClick": {"openLink": {"url": chat["link"]}}},
        {"text": "Unsubscribe", "onClick": {"openLink": {"url": unsubscribe}}},
    ]
    sections.append(
        {
            "widgets": [
                {"textParagraph": {"text": f"Posted {escape(chat['when_text'])}"}},
                {"buttonList": {"buttons": buttons}},
            ]
        }
    )
    # The header is plain text (no formatting is read in it).
    header = {
        "title": fit(chat["title"], GOOGLE_HEADER),
        "subtitle": fit(f"{chat['page']} · {chat['status_label']}", GOOGLE_HEADER),
    }
    return {
        "fallbackText": fit(_summary(chat), GOOGLE_TEXT),
        "cardsV2": [{"cardId": "status-update", "card": {"header": header, "sections": sections}}],
    }


MESSAGES: dict[str, Callable[[dict, str], dict]] = {
    SLACK: slack,
    TEAMS: teams,
    DISCORD: discord,
    GOOGLE_CHAT: google_chat,
}


def bodies(platform: str, chat: dict) -> Callable[[str], bytes]:
    """The platform's message of `chat` as JSON, for one unsubscribe link after another: made
    once, with an unguessable marker where the link goes."""
    marker = f"@@unsubscribe-{secrets.token_hex(6)}@@"
    encoded = json.dumps(MESSAGES[platform](chat, marker))

    def body(unsubscribe_url: str) -> bytes:
        return encoded.replace(marker, json.dumps(unsubscribe_url)[1:-1]).encode()

    return body
