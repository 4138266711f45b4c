"""Chat subscribers: a Slack, Microsoft Teams, Discord or Google Chat channel, reached by the
incoming-webhook URL its owner made for it. Each platform is a subscriber kind of its own
(`slack` and `teams` are Statuspage's own `mode` values), so the lists, counts, claims and
recipients keep them apart as they do email, SMS and webhooks.

A URL of a platform's own webhook host says which platform it is; any other URL (a proxy, a
test's local sink) names its platform explicitly.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

SLACK, TEAMS, DISCORD, GOOGLE_CHAT = "slack", "teams", "discord", "google_chat"
LABELS = {
    SLACK: "Slack",
    TEAMS: "Microsoft Teams",
    DISCORD: "Discord",
    GOOGLE_CHAT: "Google Chat",
}
PLATFORMS = tuple(LABELS)
# A URL's bytes are part of DynamoDB keys (a list entry's sort key holds at most 1,024): the
# platforms' own URLs are ASCII and a few hundred characters long.
MAX_URL_LENGTH = 900

_DISCORD_HOSTS = {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"}
_DISCORD_PATH = re.compile(r"^/api(/v\d+)?/webhooks/")
# Teams takes incoming webhooks through Workflows (Power Automate: `*.logic.azure.com`, and
# the newer `*.api.powerplatform.com`); connectors' `*.webhook.office.com` take the same body.
_TEAMS_HOST_ENDINGS = (
    ".logic.azure.com",
    ".powerautomate.com",
    ".api.powerplatform.com",
    ".webhook.office.com",
)


def detected(url: str) -> str | None:
    """The platform whose webhook host `url` is on, or None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().rstrip(".")
    if host in ("hooks.slack.com", "hooks.slack-gov.com"):
        return SLACK
    if host in _DISCORD_HOSTS and _DISCORD_PATH.match(parts.path):
        return DISCORD
    if host == "chat.googleapis.com":
        return GOOGLE_CHAT
    if host.endswith(_TEAMS_HOST_ENDINGS):
        return TEAMS
    return None


def is_chat(kind: str) -> bool:
    return kind in LABELS


def described(kind: str, url: str) -> str:
    """A channel as a page shows it: its platform and host, never the whole URL (whoever
    holds the URL may post to the channel, and a notification's links reach everyone in it)."""
    host = urlsplit(url).hostname or ""
    return f"a {LABELS.get(kind, kind)} channel ({host})"
