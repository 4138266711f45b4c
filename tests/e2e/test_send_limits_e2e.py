"""SES and SNS at the account's limits, on the real local stack (issue 45): the emulator's SES
at `SES_MAX_SEND_RATE` and `SES_MAX_24_HOUR_SEND`, its SNS at `SMS_MAX_SEND_RATE`. Email goes
at the rate; SMS past its rate, and email past the 24-hour quota, are held, never a
subscriber's failure; webhooks go on; when the quota is raised (a restart with the new
setting, as an operator's request to AWS raises it), the held emails go out, each once."""

import json
import time

import pytest

from tests.e2e.stack import LocalStack, wait_for
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e
READERS, PHONES = 8, 2
RATE, QUOTA = 8, 12  # emails a second, and in 24 hours: the second incident's 8 pass it
LIMITED = {
    "SES_MAX_SEND_RATE": str(RATE),
    "SES_MAX_24_HOUR_SEND": str(QUOTA),
    "SMS_MAX_SEND_RATE": "1",
    "SEND_HOLD_SECONDS": "2",
}
QUEUED_AGAIN = "held by a limit: queued again"


def metric(stack: LocalStack, name: str, channel: str = "email") -> int:
    """The sum of the metric `name` of `channel` over the stack's log lines."""
    return sum(
        found.get(name, 0)
        for line in stack.logged().splitlines()
        if line.startswith("{") and name in line
        for found in [json.loads(line)]
        if found.get("Channel") == channel
    )


def limits_reached(stack: LocalStack) -> int:
    return metric(stack, "SendLimitReached")


def deliveries_in_flight(stack: LocalStack) -> int:
    sqs = stack.emulator("sqs")
    (url,) = [u for u in sqs.list_queues()["QueueUrls"] if u.endswith("-deliveries")]
    counts = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
    )
    return int(counts["Attributes"]["ApproximateNumberOfMessagesNotVisible"])


def everyone_once(counted: dict, addresses: list[str], times: int = 1) -> bool:
    return all(counted["to"].get(address) == times for address in addresses)


def test_limits_hold_a_channel_never_a_subscriber_and_it_resumes(tmp_path):
    stack = LocalStack(tmp_path / "data", tmp_path / "stack.log", **LIMITED).start()
    try:
        page = stack.admin("bootstrap")
        key, page_id = page["api_key"], page["page_id"]

        def subscribe(subscriber: dict) -> None:
            path = f"/v1/pages/{page_id}/subscribers"
            answer = stack.send("POST", path, key, {"subscriber": subscriber})
            assert answer.status_code == 201, answer.text

        def incident(name: str) -> float:
            body = {"incident": {"name": name, "body": "Looking"}}
            answer = stack.send("POST", f"/v1/pages/{page_id}/incidents", key, body)
            assert answer.status_code == 201, answer.text
            return time.time()

        def nobody_quarantined() -> bool:
            path = f"/v1/pages/{page_id}/subscribers/histogram_by_state"
            histogram = stack.get(path, key).json()
            return all(not counts.get("quarantined") for counts in histogram.values())

        readers = [f"reader{n}-{page_id.lower()}@example.com" for n in range(READERS)]
        phones = [f"+1415555{n:04d}" for n in range(7200, 7200 + PHONES)]
        for address in readers:
            subscribe({"email": address, "skip_confirmation_notification": True})
        for phone in phones:
            subscribe({"phone_country": "US", "phone_number": phone[2:]})
        with WebhookSink() as sink:
            subscribe({"endpoint": sink.url, "email": "ops@example.com"})

            # At the rate: every email once, no faster than SES takes them; SMS past its rate
            # (1 a second) held a second at a time, and sent once.
            started = incident("First")
            assert wait_for(lambda: everyone_once(stack.sent_counts(), readers), timeout=15)
            assert stack.sent_counts()["last_at"] - started >= (READERS - 1) / RATE
            assert wait_for(lambda: everyone_once(stack.sent_counts("sms"), phones), timeout=15)
            assert metric(stack, "NotificationsHeld", "sms") >= 1  # SNS throttled some
            assert metric(stack, "NotificationsFailed", "sms") == 0
            assert len(sink.received) == 1

            # Past the 24-hour quota: 4 more emails, the rest held with the email channel; the
            # webhook and the SMS go on; nobody is quarantined; the limit is logged and counted.
            incident("Second")
            assert wait_for(lambda: limits_reached(stack) >= 1, timeout=15)
            assert wait_for(lambda: len(sink.received) == 2, timeout=10)
            assert wait_for(lambda: everyone_once(stack.sent_counts("sms"), phones, 2), timeout=15)
            assert sum(stack.sent_counts()["to"].values()) == QUOTA
            assert nobody_quarantined()
            assert "reached its quota (Daily message quota exceeded.)" in stack.logged()
            before = stack.sent_counts()["to"]

            # The quota raised: the held emails go out by themselves, each once.
            # Stopped while the held emails wait in their queue, delayed, and no delivery runs.
            queued = stack.logged().count(QUEUED_AGAIN)
            assert wait_for(lambda: stack.logged().count(QUEUED_AGAIN) > queued, timeout=10)
            assert wait_for(lambda: deliveries_in_flight(stack) == 0, timeout=5)
            stack.stop()
            stack.environment["SES_MAX_24_HOUR_SEND"] = "1000"
            stack.start()
            assert stack.emulator("ses").get_send_quota()["Max24HourSend"] == 1000

            def both_incidents() -> bool:
                after = stack.sent_counts()["to"]
                return all(before.get(a, 0) + after.get(a, 0) == 2 for a in readers)

            assert wait_for(both_incidents, timeout=20)
            assert wait_for(stack.queues_idle, timeout=10)
            assert both_incidents()
            assert len(sink.received) == 2
            assert nobody_quarantined()
            assert "the email channel sends again" in stack.logged()
    finally:
        stack.stop()
