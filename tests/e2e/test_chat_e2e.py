"""Chat channels on the real local stack (issue 32, item 13): HTTP in, SQS, the poller, and one
message out to each platform's sink in the platform's documented format."""

import pytest

from tests.chat_schemas import PLATFORMS, assert_valid
from tests.e2e.stack import wait_for
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e


def test_each_platform_hears_of_an_incident_within_ten_seconds(stack):
    page = stack.admin("bootstrap")
    key, page_id = page["api_key"], page["page_id"]
    sinks = {platform: WebhookSink() for platform in PLATFORMS}
    with sinks["slack"], sinks["teams"], sinks["discord"], sinks["google_chat"]:
        for platform, sink in sinks.items():
            answer = stack.send(
                "POST",
                f"/v1/pages/{page_id}/subscribers",
                key,
                {
                    "subscriber": {
                        "chat_webhook_url": sink.url,
                        "chat_platform": platform,
                        "email": "ops@example.com",
                    }
                },
            )
            assert answer.status_code == 201, answer.text
            assert answer.json()["mode"] == platform
        stack.send("POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "Down"}})
        assert wait_for(lambda: all(sink.received for sink in sinks.values()), timeout=10)
    for platform, sink in sinks.items():
        (post,) = sink.received
        assert_valid(platform, post["json"])
        assert "Down" in post["raw"].decode()
