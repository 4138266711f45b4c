"""The notification pipeline through the app's own queue functions, over moto's SQS."""

import hashlib
import hmac

import pytest

from chalicelib.notify import deliver
from tests.sent_mail import sent_mail
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.usefixtures("quick_retries")


def webhook_subscriber(world, url, **extra):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"endpoint": url, "email": "ops@example.com", **extra}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def test_one_post_per_incident_update_with_the_contract_body_and_signature(world, drain):
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        incident = world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "Down", "body": "Looking"}},
        ).json
        drain()
        world.api.patch(
            f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
            {"incident": {"status": "resolved", "body": "Fixed"}},
        )
        world.api.patch(
            f"/v1/pages/{world.page_id}/incidents/{incident['id']}",
            {"incident": {"name": "Renamed only"}},
        )
        drain()
        assert len(sink.received) == 2
        secret = world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"]
        for delivery in sink.received:
            body = delivery["json"]
            assert set(body) == {"meta", "page", "incident"}
            assert set(body["meta"]) == {"unsubscribe", "documentation"}
            assert set(body["page"]) == {"id", "status_indicator", "status_description"}
            assert body["incident"]["id"] == incident["id"]
            assert delivery["headers"]["Content-Type"] == "application/json"
            expected = (
                "sha256=" + hmac.new(secret.encode(), delivery["raw"], hashlib.sha256).hexdigest()
            )
            assert delivery["headers"]["X-Webhook-Signature"] == expected
        assert [d["json"]["incident"]["status"] for d in sink.received] == [
            "investigating",
            "resolved",
        ]


def test_deliver_notifications_false_sends_nothing(world, drain):
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "Quiet", "deliver_notifications": False}},
        )
        drain()
        assert sink.received == []


def test_component_subscribers_hear_only_of_their_components(world, drain):
    mine = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "API"}}
    ).json
    other = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "Web"}}
    ).json
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url, component_ids=[mine["id"]])
        world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "Web down", "components": {other["id"]: "major_outage"}}},
        )
        drain()
        assert sink.received == []
        world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "API down", "components": {mine["id"]: "major_outage"}}},
        )
        drain()
        kinds = sorted(
            next(k for k in ("incident", "component_update") if k in d["json"])
            for d in sink.received
        )
        assert kinds == ["component_update", "incident"]


def test_component_status_change_sends_a_component_update(world, drain):
    component = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "API"}}
    ).json
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        world.api.patch(
            f"/v1/pages/{world.page_id}/components/{component['id']}",
            {"component": {"status": "partial_outage"}},
        )
        drain()
        assert len(sink.received) == 1
        body = sink.received[0]["json"]
        assert set(body) == {"meta", "page", "component_update", "component"}
        assert body["component_update"]["old_status"] == "operational"
        assert body["component_update"]["new_status"] == "partial_outage"
        assert body["component_update"]["component_id"] == component["id"]
        assert body["page"]["status_indicator"] == "major"


def test_a_failing_endpoint_is_quarantined_and_reactivate_brings_it_back(world, drain):
    with WebhookSink(status=500) as sink:
        subscriber = webhook_subscriber(world, sink.url)
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}})
        drain()
        assert len(sink.received) == 3  # tried three times
        got = world.api.get(f"/v1/pages/{world.page_id}/subscribers/{subscriber['id']}").json
        assert got["state"] == "quarantined" and got["quarantined_at"]
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "y"}})
        drain()
        assert len(sink.received) == 3  # a quarantined subscriber is not tried
        assert (
            world.api.post(
                f"/v1/pages/{world.page_id}/subscribers/reactivate",
                {"subscribers": [subscriber["id"]]},
            ).status
            == 204
        )
        sink.status = 200
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "z"}})
        drain()
        assert len(sink.received) == 4


def test_an_incident_subscriber_is_not_quarantined_and_hears_only_later_updates(world, drain):
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}}
    ).json
    drain()
    with WebhookSink(status=500) as sink:
        path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/subscribers"
        subscriber = world.api.post(
            path, {"subscriber": {"endpoint": sink.url, "email": "i@example.com"}}
        ).json
        world.api.patch(
            f"/v1/pages/{world.page_id}/incidents/{incident['id']}", {"incident": {"body": "more"}}
        )
        drain()
        assert len(sink.received) == 3
        assert world.api.get(f"{path}/{subscriber['id']}").json["state"] == "active"


def test_redelivered_message_sends_once(world, drain):
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}})
        messages = drain()
        assert len(sink.received) == 1
        for _ in range(3):
            deliver.deliver(messages[0])
        assert len(sink.received) == 1


def test_email_and_sms_subscribers_are_sent_through_ses_and_sns(world, drain):
    from moto.backends import get_backend

    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": "mail@example.com", "skip_confirmation_notification": True}},
    )
    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"phone_country": "US", "phone_number": "4155550199"}},
    )
    mails_before = len(sent_mail())
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Mail me", "body": "Details"}}
    )
    drain()
    mails = sent_mail()[mails_before:]
    assert [m.to for m in mails] == [["mail@example.com"]]
    assert "Mail me" in mails[0].subject and "Unsubscribe: http" in mails[0].body
    texts = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    assert any(number == "+14155550199" and "Mail me" in text for number, text in texts.values())


def test_postmortem_goes_to_email_subscribers_only_once(world, drain):
    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": "pm@example.com", "skip_confirmation_notification": True}},
    )
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        incident = world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "PM", "status": "resolved"}},
        ).json
        drain()
        before = len(sent_mail())
        received = len(sink.received)
        path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/postmortem"
        world.api.put(path, {"postmortem": {"body_draft": "Root cause"}})
        world.api.put(path + "/publish", {"postmortem": {"notify_subscribers": True}})
        drain()
        mails = sent_mail()[before:]
        assert [m.subject for m in mails] == ["[Acme] Postmortem: PM"]
        assert len(sink.received) == received


def test_an_event_stays_pending_until_the_fan_out_receives_it(world, drain):
    from datetime import timedelta

    from chalicelib import clock
    from chalicelib.notify import outbox
    from chalicelib.store.outbox import OutboxEvent

    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Down", "body": "Looking"}}
    )
    assert answer.status == 201
    pending = OutboxEvent.pending_index.query("pending")
    (event,) = [e for e in pending if e.payload.get("incident_id") == answer.json["id"]]
    # Sent to the queue with the write; the write paid for no second write of the event.
    assert event.pending == "pending"
    drain()
    assert OutboxEvent.get(event.id).pending is None
    # A later sweep leaves it alone.
    clock.freeze(clock.now() + outbox.SWEEP_AFTER + timedelta(seconds=1))
    try:
        assert event.id not in {e.id for e in OutboxEvent.pending_index.query("pending")}
    finally:
        clock.freeze(None)
