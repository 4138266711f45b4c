"""Notifications on the real local stack: HTTP in, SQS, the poller, a real webhook out."""

import hashlib
import hmac
import re

import pytest
import requests

from tests.e2e.stack import LocalStack, wait_for
from tests.sent_mail import sent_mail_over_http
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    # A tick a second, and the retries' pauses shortened: what is at stake is that a failing
    # endpoint is tried three times, then quarantined (the default pauses, 2 and 5 s, are
    # held to the contract's 30 s in tests/unit/test_delivery_lanes.py).
    running = LocalStack(
        tmp_path_factory.mktemp("data"), SCHEDULE_TICK_SECONDS="1", DELIVERY_RETRY_SECONDS="0.2,0.5"
    ).start()
    yield running
    running.stop()


@pytest.fixture
def page(stack):
    return stack.admin("bootstrap")


def subscribe(stack, page, url, **extra):
    answer = stack.send(
        "POST",
        f"/v1/pages/{page['page_id']}/subscribers",
        page["api_key"],
        {"subscriber": {"endpoint": url, "email": "ops@example.com", **extra}},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_exactly_one_signed_post_per_incident_update(stack, page):
    key, page_id = page["api_key"], page["page_id"]
    with WebhookSink() as sink:
        subscribe(stack, page, sink.url)
        incident = stack.send(
            "POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "Down"}}
        ).json()
        assert wait_for(lambda: len(sink.received) == 1, timeout=10)  # within 10 s (CONTRACT)
        stack.send(
            "PATCH",
            f"/v1/pages/{page_id}/incidents/{incident['id']}",
            key,
            {"incident": {"status": "resolved", "body": "ok"}},
        )
        assert wait_for(lambda: len(sink.received) == 2, timeout=10)
        assert wait_for(stack.queues_idle)  # no work is left that could send a third
        assert len(sink.received) == 2
        secret = stack.get(f"/v1/pages/{page_id}/webhook_secret", key).json()["webhook_secret"]
        for delivery in sink.received:
            assert set(delivery["json"]) == {"meta", "page", "incident"}
            expected = (
                "sha256=" + hmac.new(secret.encode(), delivery["raw"], hashlib.sha256).hexdigest()
            )
            assert delivery["headers"]["X-Webhook-Signature"] == expected
        assert [d["json"]["incident"]["status"] for d in sink.received] == [
            "investigating",
            "resolved",
        ]


def test_silent_incidents_and_other_components_send_nothing(stack, page):
    key, page_id = page["api_key"], page["page_id"]
    mine = stack.send(
        "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": "API"}}
    ).json()
    other = stack.send(
        "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": "Web"}}
    ).json()
    with WebhookSink() as sink:
        subscribe(stack, page, sink.url, component_ids=[mine["id"]])
        stack.send(
            "POST",
            f"/v1/pages/{page_id}/incidents",
            key,
            {"incident": {"name": "quiet", "deliver_notifications": False}},
        )
        stack.send(
            "POST",
            f"/v1/pages/{page_id}/incidents",
            key,
            {"incident": {"name": "web", "components": {other["id"]: "major_outage"}}},
        )
        assert wait_for(stack.queues_idle)  # both incidents' notifications are done with
        assert sink.received == []


def test_failing_endpoint_is_quarantined_and_reactivated(stack, page):
    key, page_id = page["api_key"], page["page_id"]
    with WebhookSink(status=503) as sink:
        subscriber = subscribe(stack, page, sink.url)
        stack.send("POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "x"}})
        path = f"/v1/pages/{page_id}/subscribers/{subscriber['id']}"
        assert wait_for(lambda: stack.get(path, key).json()["state"] == "quarantined", timeout=30)
        assert len(sink.received) == 3
        answer = stack.send(
            "POST",
            f"/v1/pages/{page_id}/subscribers/reactivate",
            key,
            {"subscribers": [subscriber["id"]]},
        )
        assert answer.status_code == 204
        assert stack.get(path, key).json()["state"] == "active"


def test_maintenance_moves_itself(stack, page):
    from datetime import UTC, datetime, timedelta

    key, page_id = page["api_key"], page["page_id"]
    # Moments apart, as the stack ticks every second: each state lasts a tick or more.
    start = datetime.now(UTC) + timedelta(seconds=2)
    incident = stack.send(
        "POST",
        f"/v1/pages/{page_id}/incidents",
        key,
        {
            "incident": {
                "name": "Upgrade",
                "status": "scheduled",
                "scheduled_for": start.isoformat(),
                "scheduled_until": (start + timedelta(seconds=2)).isoformat(),
                "scheduled_auto_in_progress": True,
                "scheduled_auto_completed": True,
            }
        },
    ).json()
    path = f"/v1/pages/{page_id}/incidents/{incident['id']}"
    assert wait_for(lambda: stack.get(path, key).json()["status"] == "in_progress", timeout=20)
    assert wait_for(lambda: stack.get(path, key).json()["status"] == "completed", timeout=20)


def test_one_click_unsubscribe_from_the_emails_own_header(stack, page):
    """RFC 8058 as a mailbox provider does it: read the List-Unsubscribe header of the email
    the stack sent, POST `List-Unsubscribe=One-Click` to it (multipart, no login), twice."""
    key, page_id = page["api_key"], page["page_id"]
    moto = f"http://127.0.0.1:{stack.moto_port}"

    def mails_to(address):
        return [mail for mail in sent_mail_over_http(moto) if mail.to == [address]]

    leaving, staying = f"leaving-{page_id}@example.com", f"staying-{page_id}@example.com"
    for address in (leaving, staying):
        answer = stack.send(
            "POST",
            f"/v1/pages/{page_id}/subscribers",
            key,
            {"subscriber": {"email": address, "skip_confirmation_notification": True}},
        )
        assert answer.status_code == 201, answer.text
    stack.send("POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "First"}})
    assert wait_for(lambda: len(mails_to(leaving)) == 1, timeout=10)
    (mail,) = mails_to(leaving)
    assert mail.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    url = re.search(r"<(https?://[^>]+)>", mail.header("List-Unsubscribe")).group(1)
    assert url in mail.html and url in mail.body

    scanned = requests.get(url, timeout=10)  # a mail scanner opening the link changes nothing
    assert scanned.status_code == 200 and 'id="unsubscribe"' in scanned.text
    one_click = {"List-Unsubscribe": (None, "One-Click")}  # multipart/form-data, as RFC 8058
    for _ in range(2):
        answer = requests.post(url, files=one_click, timeout=10)
        assert answer.status_code == 200, answer.text
        assert "Unsubscribed" in answer.text
    listed = stack.get(f"/v1/pages/{page_id}/subscribers", key).json()
    assert [subscriber["email"] for subscriber in listed] == [staying]

    stack.send("POST", f"/v1/pages/{page_id}/incidents", key, {"incident": {"name": "Second"}})
    assert wait_for(lambda: len(mails_to(staying)) == 2, timeout=10)
    assert wait_for(stack.queues_idle)
    assert len(mails_to(leaving)) == 1
