"""The emulator's SES and SNS at an account's limits (`chalicelib/local/send_limits.py`):
answered as AWS answers, through a real SDK client, on in-process moto."""

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.local import send_limits

SENDER = "notifications@statuspage.local"
ONCE = Config(retries={"total_max_attempts": 1})


@pytest.fixture
def limits(aws, monkeypatch):
    """Install the limits of the settings given, then the suite's own (unset) again."""

    def install(**settings):
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        return send_limits.install()

    yield install
    for name in ("SES_MAX_SEND_RATE", "SES_MAX_24_HOUR_SEND", "SMS_MAX_SEND_RATE"):
        monkeypatch.delenv(name, raising=False)
    send_limits.install()


def ses():
    return boto3.client("ses", region_name=config.region(), config=ONCE)


def send(to: str = "reader@example.com") -> None:
    ses().send_raw_email(
        Destinations=[to],
        RawMessage={"Data": f"From: {SENDER}\r\nTo: {to}\r\nSubject: s\r\n\r\nhi".encode()},
    )


def refusal(call) -> dict:
    with pytest.raises(ClientError) as refused:
        call()
    return refused.value.response["Error"]


def test_unset_nothing_is_limited_and_the_quota_says_unlimited(limits):
    limits()
    for _ in range(30):
        send()
    quota = ses().get_send_quota()
    assert quota["Max24HourSend"] == -1
    assert quota["MaxSendRate"] == send_limits.UNLIMITED_RATE


def test_past_the_rate_ses_answers_throttling_maximum_sending_rate_exceeded(limits):
    limits(SES_MAX_SEND_RATE="3")
    for _ in range(3):
        send()
    error = refusal(send)
    assert error["Code"] == "Throttling"
    assert error["Message"] == "Maximum sending rate exceeded."
    assert ses().get_send_quota()["MaxSendRate"] == 3


def test_past_the_24_hour_quota_ses_answers_daily_message_quota_exceeded(limits):
    limits(SES_MAX_24_HOUR_SEND="2")
    send()
    send()
    error = refusal(send)
    assert (error["Code"], error["Message"]) == ("Throttling", "Daily message quota exceeded.")
    quota = ses().get_send_quota()
    assert (quota["Max24HourSend"], quota["SentLast24Hours"]) == (2, 2)


def test_the_rate_counts_recipients_and_refills_at_the_rate():
    moments = iter([0.0, 0.0, 0.0, 0.25])  # made, then each take
    bucket = send_limits.Bucket(4, clock=lambda: next(moments))
    assert bucket.take(4)  # a second's worth at once
    assert not bucket.take(1)
    assert bucket.take(1)  # a quarter second later: one more


def test_the_24_hours_roll():
    now = [0.0]
    day = send_limits.Day(2, clock=lambda: now[0])
    assert day.take(2) and not day.take(1)
    now[0] = send_limits.DAY_SECONDS + 1
    assert day.take(1) and day.sent() == 1


def test_sms_past_the_rate_is_throttled_and_topics_are_not(limits):
    limits(SMS_MAX_SEND_RATE="1")
    sns = boto3.client("sns", region_name=config.region(), config=ONCE)
    sns.publish(PhoneNumber="+15555550100", Message="one")
    error = refusal(lambda: sns.publish(PhoneNumber="+15555550100", Message="two"))
    assert error["Code"] == "Throttling"
    topic = sns.create_topic(Name="limits-test")["TopicArn"]
    for _ in range(3):
        sns.publish(TopicArn=topic, Message="not an SMS")
