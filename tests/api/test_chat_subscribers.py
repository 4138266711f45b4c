"""Chat subscribers through the API (issue 32, item 13): a channel's incoming-webhook URL, its
platform given or read from the URL's host; listed, counted and refused as other kinds."""

import pytest

from tests.webhook_sink import WebhookSink

SLACK_URL = "https://hooks.slack.com/services/T000/B000/XXXX"


def subscribers_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/subscribers{suffix}"


def subscribe_chat(world, url, platform=None, **extra):
    fields = {"chat_webhook_url": url, "email": "ops@example.com", **extra}
    if platform:
        fields["chat_platform"] = platform
    return world.api.post(subscribers_path(world), {"subscriber": fields})


@pytest.mark.parametrize(
    "url, platform",
    [
        (SLACK_URL, "slack"),
        ("https://prod-01.westus.logic.azure.com:443/workflows/abc/triggers/manual", "teams"),
        ("https://discord.com/api/webhooks/123/abc", "discord"),
        ("https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t", "google_chat"),
    ],
)
def test_the_platform_is_read_from_the_webhook_host(world, url, platform):
    answer = subscribe_chat(world, url)
    assert answer.status == 201, answer.text
    created = answer.json
    assert (created["mode"], created["chat_platform"]) == (platform, platform)
    assert created["chat_webhook_url"] == url
    assert created["endpoint"] is None  # a webhook's member stays a webhook's
    assert created["state"] == "active"  # made by the team, as a webhook subscriber is
    got = world.api.get(subscribers_path(world, f"/{created['id']}")).json
    assert got == created


@pytest.mark.parametrize("platform", ["slack", "teams", "discord", "google_chat"])
def test_any_url_takes_an_explicit_platform(world, platform):
    answer = subscribe_chat(world, "http://127.0.0.1:9/hook", platform)  # a test's sink
    assert answer.status == 201, answer.text
    assert answer.json["mode"] == platform


def test_a_form_body_makes_a_chat_subscriber_too(world):
    answer = world.api.post(
        subscribers_path(world, ".json"),
        {"subscriber": {"chat_webhook_url": SLACK_URL, "email": "ops@example.com"}},
        form=True,
    )
    assert answer.status == 201, answer.text
    assert answer.json["mode"] == "slack"


@pytest.mark.parametrize(
    "subscriber, field",
    [
        ({"chat_webhook_url": SLACK_URL}, "email"),
        (
            {"chat_webhook_url": "https://hooks.example.com/x", "email": "a@example.com"},
            "chat_platform",
        ),
        (
            {"chat_webhook_url": SLACK_URL, "chat_platform": "irc", "email": "a@example.com"},
            "chat_platform",
        ),
        ({"chat_platform": "slack", "email": "a@example.com"}, "chat_webhook_url"),
        ({"chat_webhook_url": "not a url", "email": "a@example.com"}, "chat_webhook_url"),
        (
            {"chat_webhook_url": SLACK_URL + "/" + "a" * 900, "email": "a@example.com"},
            "chat_webhook_url",
        ),
        ({"chat_webhook_url": SLACK_URL + "/é", "email": "a@example.com"}, "chat_webhook_url"),
        (
            {
                "chat_webhook_url": SLACK_URL,
                "endpoint": "https://h.example.com",
                "email": "a@example.com",
            },
            "endpoint",
        ),
    ],
)
def test_invalid_chat_subscribers_are_422_naming_the_field(world, subscriber, field):
    answer = world.api.post(subscribers_path(world), {"subscriber": subscriber})
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"], answer.json


def test_one_channel_subscribes_once(world):
    assert subscribe_chat(world, SLACK_URL).status == 201
    again = subscribe_chat(world, SLACK_URL)
    assert again.status == 422
    assert "chat_webhook_url" in again.json["errors"]


def test_the_pages_webhook_setting_allows_chat_channels(world):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"allow_webhook_subscribers": False}})
    answer = subscribe_chat(world, SLACK_URL)
    assert answer.status == 422
    assert "chat_webhook_url" in answer.json["errors"]


def test_a_loopback_channel_is_refused_where_private_targets_are(world, monkeypatch):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")
    with WebhookSink() as sink:
        answer = subscribe_chat(world, sink.url, "slack")
    assert answer.status == 422
    assert answer.json["errors"] == {"chat_webhook_url": ["must resolve to a public address"]}


def test_chat_subscribers_are_listed_filtered_and_counted_by_platform(world):
    subscribe_chat(world, SLACK_URL)
    subscribe_chat(world, "https://discord.com/api/webhooks/1/a")
    world.api.post(
        subscribers_path(world),
        {"subscriber": {"email": "mail@example.com", "skip_confirmation_notification": True}},
    )
    listed = world.api.get(subscribers_path(world, "?type=slack")).json
    assert [s["chat_webhook_url"] for s in listed] == [SLACK_URL]
    searched = world.api.get(subscribers_path(world, "?q=discord.com")).json
    assert [s["mode"] for s in searched] == ["discord"]
    count = world.api.get(subscribers_path(world, "/count")).json
    assert (count["slack"], count["discord"], count["teams"], count["email"]) == (1, 1, 0, 1)
    assert world.api.get(subscribers_path(world, "/count?type=discord")).json["discord"] == 1
    histogram = world.api.get(subscribers_path(world, "/histogram_by_state")).json
    assert histogram["google_chat"] == {"active": 0, "unconfirmed": 0, "quarantined": 0, "total": 0}
    assert histogram["slack"]["active"] == 1


def test_an_existing_webhook_client_sees_its_subscribers_as_before(world):
    answer = world.api.post(
        subscribers_path(world),
        {"subscriber": {"endpoint": "https://h.example.com/x", "email": "ops@example.com"}},
    )
    assert answer.status == 201
    hook = answer.json
    assert (hook["mode"], hook["endpoint"]) == ("webhook", "https://h.example.com/x")
    assert (hook["chat_platform"], hook["chat_webhook_url"]) == (None, None)


def test_the_openapi_document_describes_the_chat_members(world):
    document = world.api.as_key(None).get("/v1/openapi.json").json
    schemas = document["components"]["schemas"]
    fields = schemas["SubscriberFields"]["properties"]
    assert "chat_webhook_url" in fields
    platform = fields["chat_platform"]
    assert {"slack", "teams", "discord", "google_chat"} <= set(
        platform["anyOf"][0]["enum"] if "anyOf" in platform else platform["enum"]
    )
    out = schemas["SubscriberOut"]["properties"]
    assert "chat_platform" in out and "chat_webhook_url" in out
