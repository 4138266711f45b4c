"""SES's and SNS's limits through the app's own queue functions: a send refused for a limit
is nobody's failure, is held with its channel, and is sent later, once."""

import time
from collections import Counter

import pytest
from botocore.exceptions import ClientError
from moto.backends import get_backend

from chalicelib.local import send_limits
from chalicelib.notify import email, pacing
from tests.sent_mail import sent_mail
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.usefixtures("quick_retries")
LIMITS = ("SES_MAX_SEND_RATE", "SES_MAX_24_HOUR_SEND", "SMS_MAX_SEND_RATE")


@pytest.fixture
def limits(monkeypatch):
    """Set the emulated account's limits (again and again); unset after the test."""

    def install(**settings):
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        send_limits.install()

    monkeypatch.setenv("SEND_HOLD_SECONDS", "1")
    yield install
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)
    send_limits.install()


def drained_until(drain, condition, timeout: float = 15.0) -> bool:
    """Run the queue functions until `condition()`: held messages come back delayed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        drain()
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def subscribe(world, subscriber: dict, path: str = "") -> dict:
    answer = world.api.post(
        path or f"/v1/pages/{world.page_id}/subscribers", {"subscriber": subscriber}
    )
    assert answer.status == 201, answer.text
    return answer.json


def emails_to(addresses: set[str], since: int) -> Counter:
    return Counter(m.to[0] for m in sent_mail()[since:] if m.to and m.to[0] in addresses)


def states(world) -> set[str]:
    listed = world.api.get(f"/v1/pages/{world.page_id}/subscribers?state=all").json
    return {subscriber["state"] for subscriber in listed}


def test_a_daily_quota_reached_holds_email_alone_and_sends_it_later_once(
    world, drain, limits, capfd
):
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Quota"}}
    ).json
    drain()
    readers = {f"reader{n}-{world.page_id}@example.com".lower() for n in range(4)}
    for address in sorted(readers)[:3]:
        subscribe(world, {"email": address, "skip_confirmation_notification": True})
    # An incident subscriber, who is never quarantined, must not be dropped either.
    follower = sorted(readers)[3]
    incident_path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}"
    subscribe(
        world,
        {"email": follower, "skip_confirmation_notification": True},
        f"{incident_path}/subscribers",
    )
    since = len(sent_mail())
    limits(SES_MAX_24_HOUR_SEND="2")
    with WebhookSink() as sink:
        subscribe(world, {"endpoint": sink.url, "email": "ops@example.com"})
        world.api.patch(incident_path, {"incident": {"body": "Still down"}})
        drain()
        assert len(sink.received) == 1  # webhooks go on
        assert sum(emails_to(readers, since).values()) == 2
        assert states(world) == {"active"}
        assert '"SendLimitReached":1' in capfd.readouterr().err
        limits(SES_MAX_24_HOUR_SEND="100")  # raised: the channel resumes by itself
        assert drained_until(drain, lambda: len(emails_to(readers, since)) == 4)
        drain()
        assert emails_to(readers, since) == Counter(dict.fromkeys(readers, 1))
        assert len(sink.received) == 1
    assert states(world) == {"active"}


def test_sms_throttled_for_the_rate_is_sent_later_once(world, drain, limits):
    texts = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    numbers = [f"+1415555{n:04d}" for n in range(7100, 7104)]
    for number in numbers:
        subscribe(world, {"phone_country": "US", "phone_number": number[2:]})
    limits(SMS_MAX_SEND_RATE="1")

    def sent() -> Counter:
        return Counter(n for n, text in texts.values() if n in numbers and "Slow" in text)

    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Slow"}})
    assert drained_until(drain, lambda: len(sent()) == 4)
    drain()
    assert sent() == Counter(dict.fromkeys(numbers, 1))
    assert states(world) == {"active"}


class RefusingSes:
    """SES answering every send with `code`, as AWS would."""

    def __init__(self, code: str):
        self.code = code

    def send_raw_email(self, **kwargs):
        raise ClientError({"Error": {"Code": self.code, "Message": "refused"}}, "SendRawEmail")

    def get_send_quota(self):
        raise ClientError({"Error": {"Code": self.code, "Message": "refused"}}, "GetSendQuota")


@pytest.mark.parametrize(
    "code, quarantined", [("InternalFailure", False), ("MessageRejected", True)]
)
def test_only_a_refusal_of_the_address_quarantines(world, drain, monkeypatch, code, quarantined):
    reader = subscribe(
        world, {"email": f"refused-{code}@example.com", "skip_confirmation_notification": True}
    )
    monkeypatch.setattr(email, "_delivery_client", lambda: RefusingSes(code))
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": code}})
    drain()
    state = world.api.get(f"/v1/pages/{world.page_id}/subscribers/{reader['id']}").json["state"]
    assert state == ("quarantined" if quarantined else "active")


def test_a_rate_ses_does_not_tell_quarantines_nobody(world, drain, monkeypatch):
    """GetSendQuota refused (a permission missing, SES down): the email fails, never its
    subscriber."""
    reader = subscribe(
        world, {"email": "unpaced@example.com", "skip_confirmation_notification": True}
    )
    monkeypatch.setattr(pacing, "_ses", lambda: RefusingSes("AccessDenied"))
    pacing.forget_quota()
    try:
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Unpaced"}})
        drain()
    finally:
        monkeypatch.undo()
        pacing.forget_quota()
    state = world.api.get(f"/v1/pages/{world.page_id}/subscribers/{reader['id']}").json["state"]
    assert state == "active"
