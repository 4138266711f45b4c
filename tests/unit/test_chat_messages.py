"""Chat messages (issue 32, item 13): each platform's message of an incident update holds to
the platform's documented schema and limits, and what people wrote is never read as markup."""

import json

import pytest

from chalicelib.domain import chat_platforms
from chalicelib.notify import chat
from tests.chat_schemas import PLATFORMS, assert_valid, problems

UNSUBSCRIBE = "http://127.0.0.1:8000/s/page1/subscriptions/sub1-abc/unsubscribe"
HOSTILE = (
    "<!channel> <@U123> @everyone @here <users/all> **bold** _it_ ~s~ `code` ||spoiler|| "
    "[click](https://evil.example) <https://evil.example|click> # head\n- item\n> quote "
    "<b>html</b> <script>alert(1)</script> &amp; a & b {{DATE(2017-02-14T06:08:39Z,SHORT)}}"
)


def chat_content(**changes) -> dict:
    content = {
        "page": "Acme",
        "intro": None,
        "title": "API down",
        "status": "investigating",
        "status_label": "Investigating",
        "impact": "major",
        "scheduled": False,
        "body": "We are looking into it.",
        "components": [{"name": "API", "status": "major_outage", "label": "Major Outage"}],
        "window": None,
        "when": "2030-04-02T10:00:00Z",
        "when_text": "Apr 2, 2030 - 10:00 UTC",
        "link": "http://127.0.0.1:8000/s/page1/incidents/inc1",
        "link_text": "View the incident",
    }
    return {**content, **changes}


def message(platform: str, content: dict) -> dict:
    return json.loads(chat.bodies(platform, content)(UNSUBSCRIBE))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_incident_update_is_a_valid_message_with_its_links(platform):
    sent = message(platform, chat_content())
    assert_valid(platform, sent)
    raw = json.dumps(sent)
    assert UNSUBSCRIBE in raw and "http://127.0.0.1:8000/s/page1/incidents/inc1" in raw
    assert "API down" in raw and "Investigating" in raw and "Major Outage" in raw


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_maintenance_with_its_window_and_no_body_is_valid(platform):
    content = chat_content(
        intro="Scheduled maintenance",
        status="scheduled",
        status_label="Scheduled",
        impact="maintenance",
        scheduled=True,
        body="",
        components=[],
        window=["Apr 2, 2030 - 10:00 UTC", "Apr 2, 2030 - 12:00 UTC"],
    )
    sent = message(platform, content)
    assert_valid(platform, sent)
    assert "Apr 2, 2030 - 12:00 UTC" in json.dumps(sent)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_longest_update_is_cut_to_the_platforms_limits(platform):
    many = [
        {
            "name": f"Component {n} " + "x" * 200,
            "status": "partial_outage",
            "label": "Partial Outage",
        }
        for n in range(60)
    ]
    content = chat_content(
        page="P" * 255, title="T" * 255, body="<&*_>" * 4000 + "😀" * 3000, components=many
    )
    assert_valid(platform, message(platform, content))


def test_slack_escapes_its_control_characters():
    sent = message("slack", chat_content(title=HOSTILE, body=HOSTILE, page=HOSTILE))
    assert_valid("slack", sent)  # no `<` or `>` but its own links', no bare `&`
    text = json.dumps(sent)
    assert "<!channel>" not in text and "<@U123>" not in text
    assert "&lt;!channel&gt;" in sent["blocks"][1]["text"]["text"]
    assert "&amp;amp;" in sent["blocks"][1]["text"]["text"]


def test_the_slack_check_catches_an_unescaped_mention():
    sent = message("slack", chat_content())
    sent["blocks"][1]["text"]["text"] = "<!channel> look"
    assert problems("slack", sent)


def test_discord_escapes_markdown_and_pings_nobody():
    sent = message("discord", chat_content(title=HOSTILE, body=HOSTILE))
    assert_valid("discord", sent)
    assert sent["allowed_mentions"] == {"parse": []}
    embed = sent["embeds"][0]
    for text in (embed["title"], embed["description"]):
        assert "\\*\\*bold\\*\\*" in text and "\\[click\\]\\(https" in text
        assert "\\@everyone" in text and "\\|\\|spoiler\\|\\|" in text and "\\<\\@U123\\>" in text
        assert "\\`code\\`" in text and "\\# head" in text and "\\- item" in text


def test_teams_puts_what_people_wrote_in_text_runs_only():
    sent = message("teams", chat_content(title=HOSTILE, body=HOSTILE, page=HOSTILE))
    assert_valid("teams", sent)
    card = sent["attachments"][0]["content"]
    assert card["version"] == "1.4"
    # TextBlock reads Markdown; a TextRun never does.
    assert all(element["type"] == "RichTextBlock" for element in card["body"])
    runs = [run["text"] for element in card["body"] for run in element["inlines"]]
    assert HOSTILE in runs


def test_google_chat_escapes_html_in_card_text():
    sent = message("google_chat", chat_content(body=HOSTILE, components=[]))
    assert_valid("google_chat", sent)
    widgets = sent["cardsV2"][0]["card"]["sections"][0]["widgets"]
    body = next(w["textParagraph"]["text"] for w in widgets if "alert" in json.dumps(w))
    assert "<script>" not in body and "&lt;script&gt;" in body and "<b>html" not in body
    assert "&lt;users/all&gt;" in body and "&amp;amp;" in body
    assert "<br>" in body  # its line breaks, as card HTML writes them


@pytest.mark.parametrize(
    "url, platform",
    [
        ("https://hooks.slack.com/services/T000/B000/XXXX", "slack"),
        ("https://discord.com/api/webhooks/123/abc", "discord"),
        ("https://discordapp.com/api/v10/webhooks/123/abc", "discord"),
        ("https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t", "google_chat"),
        (
            "https://prod-01.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke",
            "teams",
        ),
        ("https://default1.environment.api.powerplatform.com/powerautomate/automations/x", "teams"),
        ("https://acme.webhook.office.com/webhookb2/abc", "teams"),
        ("https://discord.com/channels/1/2", None),
        ("https://hooks.example.com/slack", None),
        ("http://127.0.0.1:9000/hook", None),
    ],
)
def test_the_platform_is_detected_from_the_webhook_host(url, platform):
    assert chat_platforms.detected(url) == platform


def test_a_channel_is_described_without_its_url():
    url = "https://hooks.slack.com/services/T000/B000/SECRET"
    described = chat_platforms.described("slack", url)
    assert described == "a Slack channel (hooks.slack.com)" and "SECRET" not in described


@pytest.mark.parametrize("limit", [1, 5, 50])
def test_fit_never_cuts_an_escape(limit):
    cut = chat.fit("&&&&&&&&&&", limit, chat.slack_escape)
    assert len(cut) <= limit
    assert cut.rstrip(chat.ELLIPSIS).count("&") == cut.count("&amp;")
