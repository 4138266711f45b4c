"""Each chat platform's incoming-webhook message, as its documentation states it: a JSON Schema
per platform (`<platform>.json`, written from the documentation each names), and the rules a
schema cannot state (totals over many fields, sizes in bytes, Slack's control characters).

`assert_valid(platform, message)` fails with every way `message` breaks them.
"""

import json
import re
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

HERE = Path(__file__).parent
PLATFORMS = ("slack", "teams", "discord", "google_chat")
# Slack's `<...>` in mrkdwn: a link `<url|text>` (the only kind this service writes).
_SLACK_LINK = re.compile(r"<https?://[^|<>\s]+\|[^<>]*>")
_SLACK_ENTITY = re.compile(r"&(?!amp;|lt;|gt;)")


@cache
def validator(platform: str) -> Draft202012Validator:
    schema = json.loads((HERE / f"{platform}.json").read_text())
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _discord_total(message: dict) -> int:
    total = 0
    for embed in message.get("embeds", []):
        total += _length(embed.get("title", "")) + _length(embed.get("description", ""))
        total += _length(embed.get("footer", {}).get("text", ""))
        total += _length(embed.get("author", {}).get("name", ""))
        for field in embed.get("fields", []):
            total += _length(field["name"]) + _length(field["value"])
    return total


def _slack_texts(message: dict) -> list[str]:
    texts = [message["text"]]
    for block in message.get("blocks", []):
        for text in [block.get("text"), *block.get("fields", []), *block.get("elements", [])]:
            if isinstance(text, dict) and text.get("type") == "mrkdwn":
                texts.append(text["text"])
    return texts


def problems(platform: str, message: dict) -> list[str]:
    found = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator(platform).iter_errors(message)
    ]
    size = len(json.dumps(message).encode())
    if platform == "discord" and _discord_total(message) > 6000:
        found.append(f"embeds hold {_discord_total(message)} characters, more than 6,000")
    if platform == "teams" and size > 28 * 1024:
        found.append(f"the card is {size} bytes, more than 28 KB")
    if platform == "google_chat" and size > 32000:
        found.append(f"the message is {size} bytes, more than 32,000")
    if platform == "slack":
        for text in _slack_texts(message):
            bare = _SLACK_LINK.sub("", text)
            if "<" in bare or ">" in bare or _SLACK_ENTITY.search(bare):
                found.append(f"unescaped control character in {text!r}")
    return found


def assert_valid(platform: str, message: dict) -> None:
    found = problems(platform, message)
    assert not found, f"{platform} message breaks its documented schema: {found}"
