"""Email at the account's rate, shared by concurrent deliveries, and SES's and SNS's limits
told apart from a subscriber's failure (`chalicelib/notify/pacing.py`)."""

import threading
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from chalicelib.notify import lanes, pacing
from chalicelib.store import send_paces


def answer(code: str, message: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": message}}, "SendRawEmail")


@pytest.mark.parametrize(
    "code, message, kind",
    [
        ("Throttling", "Maximum sending rate exceeded.", pacing.RATE),
        ("Throttling", "Daily message quota exceeded.", pacing.QUOTA),
        ("Throttled", "Rate exceeded.", pacing.RATE),
        ("ThrottlingException", "Rate exceeded", pacing.RATE),
        ("InvalidParameter", "No quota left for account", pacing.SPEND),
        ("Throttling", "Monthly SMS spend limit reached.", pacing.SPEND),
    ],
)
def test_limits_are_told_from_their_answers(code, message, kind):
    assert pacing.limit_of(answer(code, message)) == pacing.Limit(kind, message)


@pytest.mark.parametrize(
    "error",
    [
        answer("MessageRejected", "Email address is not verified."),
        answer("InvalidParameterValue", "Missing final '@domain'"),
        ConnectionError("reset"),
    ],
)
def test_an_answer_about_the_send_itself_is_no_limit(error):
    assert pacing.limit_of(error) is None


def test_concurrent_deliveries_share_one_rate(aws):
    channel = f"email-{uuid.uuid4().hex}"
    rate, sends = 50, 40
    noted: list[int] = []
    # Each send's moment noted, not waited for: the deliveries reserve as fast as they can.
    paces = [pacing.Pace(channel, rate, sends, sleep=lambda seconds: None) for _ in range(3)]

    def deliver(pace):
        for _ in range(sends):
            noted.append(pace.turn())

    threads = [threading.Thread(target=deliver, args=(pace,)) for pace in paces]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each send's moment, whichever delivery made it: never two within one interval.
    noted.sort()
    assert len(noted) == 3 * sends
    gaps = [later - earlier for earlier, later in zip(noted, noted[1:], strict=False)]
    assert min(gaps) >= 1000 / rate - 1
    assert noted[-1] - noted[0] >= (len(noted) - 1) * 1000 / rate - len(noted)


def test_a_moment_further_than_a_delivery_waits_holds_the_send(aws):
    channel = f"email-{uuid.uuid4().hex}"
    now = int(time.time() * 1000)
    far = now + (pacing.LONGEST_WAIT_SECONDS + 30) * 1000
    send_paces.reserve(channel, far - now, now, far)  # other deliveries took the next 55 s
    with pytest.raises(lanes.Held) as held:
        pacing.Pace(channel, 10, 5).turn()
    wait = pacing.LONGEST_WAIT_SECONDS + 30
    assert wait - 5 <= held.value.delay_seconds <= wait + 1


def test_a_quota_reached_holds_the_channel_for_every_delivery(aws, monkeypatch):
    monkeypatch.setenv("SEND_HOLD_SECONDS", "30")
    channel = f"email-{uuid.uuid4().hex}"
    holds = pacing.Holds({channel})
    assert holds.held(channel) == 0
    refused = pacing.limit_of(answer("Throttling", "Daily message quota exceeded."))
    held = pacing.held_by(refused, channel, holds)
    assert 29 <= held.delay_seconds <= 30
    assert 29 <= pacing.Holds({channel}).held(channel) <= 30  # another delivery's view
    # A send throttled for the rate holds nothing but itself, for a moment.
    rate = pacing.limit_of(answer("Throttling", "Maximum sending rate exceeded."))
    assert pacing.held_by(rate, "other", holds).delay_seconds == pacing.THROTTLED_DELAY_SECONDS


def test_a_send_after_the_hold_ends_it(aws):
    channel = f"email-{uuid.uuid4().hex}"
    past = int(time.time() * 1000) - 1
    send_paces.hold(channel, past, "quota: Daily message quota exceeded.")
    holds = pacing.Holds({channel})
    assert holds.held(channel) == 0
    holds.sent(channel)
    assert send_paces.held_until(channel) == (0, None)


def test_a_held_send_holds_its_lane_and_no_other():
    def held(to):
        raise lanes.Held("ses quota", 42)

    def fine(to):
        return []

    sends = [lanes.Send("ses", [{"key": f"e{n}"}], held) for n in range(5)]
    sends += [lanes.Send("hooks", [{"key": f"w{n}"}], fine) for n in range(5)]
    runner = lanes.Lanes(workers=4, per_lane=lambda lane: 1)
    outcomes = runner.run(sends)
    assert all(outcomes[f"e{n}"] is None and runner.delays[f"e{n}"] == 42 for n in range(5))
    assert all(outcomes[f"w{n}"] is True for n in range(5))


def test_a_lane_known_held_sends_nothing():
    tried = []
    runner = lanes.Lanes(workers=4, per_lane=lambda lane: 2)
    runner.hold("sns", lanes.Held("sms spend limit", 7))
    outcomes = runner.run([lanes.Send("sns", [{"key": "s"}], lambda to: tried.append(to))])
    assert outcomes == {"s": None} and runner.delays == {"s": 7} and tried == []


def test_only_an_answer_about_the_address_is_the_subscribers():
    assert pacing.about_the_address(answer("MessageRejected", "Address blacklisted."))
    assert pacing.about_the_address(answer("InvalidParameter", "Invalid parameter: PhoneNumber"))
    assert not pacing.about_the_address(answer("InternalFailure", "SES is down"))
    assert not pacing.about_the_address(answer("AccessDenied", "not allowed"))
    assert not pacing.about_the_address(ConnectionError("reset"))
    paused = answer("AccountSendingPausedException", "Sending paused for this account.")
    assert pacing.limit_of(paused).kind == pacing.PAUSED
