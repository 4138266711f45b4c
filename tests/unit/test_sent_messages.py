"""The emulator's record of what the stack sent (`chalicelib/local/sent_messages.py`), on
in-process moto through a real SDK client."""

import boto3
import pytest
from moto.backends import get_backend

from chalicelib import config
from chalicelib.local import sent_messages

ACCOUNT = "123456789012"
SENDER = "notifications@statuspage.local"


@pytest.fixture
def noting(aws):
    sent_messages.install()
    yield
    sent_messages.uninstall()  # the in-process tests read moto's own list of emails


def test_moto_keeps_no_email_or_text_message_once_the_outbox_noted_it(noting):
    ses = get_backend("ses")[ACCOUNT][config.region()]
    sns = get_backend("sns")[ACCOUNT][config.region()]
    emails, texts = len(ses.sent_messages), len(sns.sms_messages)
    for number in range(5):
        to = f"reader{number}@example.com"
        boto3.client("ses", region_name=config.region()).send_raw_email(
            Destinations=[to],
            RawMessage={"Data": f"From: {SENDER}\r\nTo: {to}\r\nSubject: s\r\n\r\n{'x' * 20_000}"},
        )
    for number in range(3):
        boto3.client("sns", region_name=config.region()).publish(
            PhoneNumber=f"+1555010000{number}", Message="Down"
        )

    # moto's lists grew by every message for the emulator's life (megabytes an incident)
    assert len(ses.sent_messages) == emails
    assert len(sns.sms_messages) == texts
    # the outbox still has them, newest first
    noted = sent_messages.sent()
    assert [message["to"] for message in noted[:3]] == [
        [f"+1555010000{number}"] for number in (2, 1, 0)
    ]
    assert [message["to"] for message in noted[3:8]] == [
        [f"reader{number}@example.com"] for number in (4, 3, 2, 1, 0)
    ]
    assert sent_messages.counts()["email"]["to"]["reader0@example.com"] >= 1
