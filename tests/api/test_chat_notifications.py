"""Chat channels through the notification pipeline (issue 32, item 13): each platform's sink
gets one message per incident update in its documented format, through the same claims,
lanes, retries, quarantine and address filter as webhooks."""

import json
import re

import pytest

from chalicelib.notify import deliver
from tests.chat_schemas import PLATFORMS, assert_valid
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.usefixtures("quick_retries")


def chat_subscriber(world, url, platform, **extra):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {
            "subscriber": {
                "chat_webhook_url": url,
                "chat_platform": platform,
                "email": "ops@example.com",
                **extra,
            }
        },
    )
    assert answer.status == 201, answer.text
    return answer.json


def incident(world, **fields):
    answer = world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": fields})
    assert answer.status == 201, answer.text
    return answer.json


def subscriber_state(world, subscriber):
    path = f"/v1/pages/{world.page_id}/subscribers/{subscriber['id']}"
    return world.api.get(path).json["state"]


def test_each_platform_gets_one_valid_message_per_incident_update(world, drain):
    sinks = {platform: WebhookSink() for platform in PLATFORMS}
    with sinks["slack"], sinks["teams"], sinks["discord"], sinks["google_chat"]:
        with WebhookSink() as hook:
            for platform, sink in sinks.items():
                chat_subscriber(world, sink.url, platform)
            world.api.post(
                f"/v1/pages/{world.page_id}/subscribers",
                {"subscriber": {"endpoint": hook.url, "email": "ops@example.com"}},
            )
            api = world.api.post(
                f"/v1/pages/{world.page_id}/components", {"component": {"name": "API"}}
            ).json
            created = incident(
                world,
                name="API <down> & *out*",
                body="Looking @everyone <!channel>",
                components={api["id"]: "major_outage"},
            )
            drain()
            world.api.patch(
                f"/v1/pages/{world.page_id}/incidents/{created['id']}",
                {"incident": {"status": "resolved", "body": "Fixed"}},
            )
            world.api.patch(
                f"/v1/pages/{world.page_id}/incidents/{created['id']}",
                {"incident": {"name": "Renamed only"}},
            )
            drain()
    # The webhook subscriber also heard of the component's change; a channel did not.
    assert len(hook.received) == 3
    for platform, sink in sinks.items():
        assert len(sink.received) == 2, platform
        for post in sink.received:
            assert post["headers"]["Content-Type"] == "application/json"
            assert "X-Webhook-Signature" not in post["headers"]  # no platform checks one
            assert_valid(platform, post["json"])
            raw = post["raw"].decode()
            assert f"/incidents/{created['id']}" in raw
            assert re.search(rf"/s/{world.page_id}/subscriptions/[^\"/]+/unsubscribe", raw)
        first, second = (json.dumps(post["json"]) for post in sink.received)
        assert "Investigating" in first and "Major Outage" in first and "Looking" in first
        assert "Resolved" in second and "Fixed" in second
    slack = sinks["slack"].received[0]["json"]
    assert "&lt;!channel&gt;" in json.dumps(slack) and "<!channel>" not in json.dumps(slack)
    assert sinks["discord"].received[0]["json"]["allowed_mentions"] == {"parse": []}


def test_a_failing_channel_is_quarantined_and_reactivate_brings_it_back(world, drain):
    with WebhookSink(status=500) as sink:
        subscriber = chat_subscriber(world, sink.url, "discord")
        incident(world, name="x")
        drain()
        assert len(sink.received) == 3  # tried three times
        assert subscriber_state(world, subscriber) == "quarantined"
        incident(world, name="y")
        drain()
        assert len(sink.received) == 3  # a quarantined channel is not tried
        world.api.post(
            f"/v1/pages/{world.page_id}/subscribers/reactivate",
            {"subscribers": [subscriber["id"]], "type": "discord"},
        )
        sink.status = 204  # Discord answers 204 No Content
        incident(world, name="z")
        drain()
        assert len(sink.received) == 4
        assert subscriber_state(world, subscriber) == "active"


def test_a_redelivered_message_posts_once(world, drain):
    with WebhookSink() as sink:
        chat_subscriber(world, sink.url, "teams")
        incident(world, name="x")
        messages = drain()
        assert len(sink.received) == 1
        for _ in range(3):
            deliver.deliver(messages[0])
        assert len(sink.received) == 1


def test_a_channel_the_address_filter_refuses_is_never_called(world, drain, monkeypatch):
    with WebhookSink() as sink:
        subscriber = chat_subscriber(world, sink.url, "google_chat")
        # Without the setting for private targets: a loopback address is no channel's.
        monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")
        incident(world, name="x")
        drain()
        assert sink.received == []
        assert subscriber_state(world, subscriber) == "quarantined"


def test_the_unsubscribe_link_of_a_message_unsubscribes_the_channel(world, drain):
    with WebhookSink() as sink:
        subscriber = chat_subscriber(world, sink.url, "slack")
        incident(world, name="x")
        drain()
    text = sink.received[0]["json"]["blocks"][-1]["elements"][0]["text"]
    path = re.search(r"<https?://[^/]+(/s/[^|]+/unsubscribe)\|Unsubscribe>", text).group(1)
    question = world.api.as_key(None).get(path)
    assert question.status == 200
    assert "a Slack channel (127.0.0.1)" in question.text
    assert sink.url not in question.text  # whoever reads the channel never sees its URL
    assert world.api.as_key(None).post(path).status == 200
    listed = world.api.get(f"/v1/pages/{world.page_id}/subscribers/{subscriber['id']}")
    assert listed.status == 404


def test_a_maintenance_reaches_a_channel_with_its_window(world, drain):
    with WebhookSink() as sink:
        chat_subscriber(world, sink.url, "slack")
        incident(
            world,
            name="Upgrade",
            status="scheduled",
            scheduled_for="2030-04-02T10:00:00Z",
            scheduled_until="2030-04-02T12:00:00Z",
        )
        drain()
    (post,) = sink.received
    assert_valid("slack", post["json"])
    first = post["json"]["blocks"][0]["text"]["text"]
    assert "Scheduled maintenance" in first and "Apr 2, 2030 - 12:00" in first
