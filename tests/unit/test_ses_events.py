"""SES's bounce, complaint and delivery notifications, in the shapes SES documents
(docs.aws.amazon.com/ses/latest/dg/notification-examples.html and, for a configuration set's
event destination, event-publishing-retrieving-sns-examples.html), fed through the app's
SNS-triggered function over moto's DynamoDB.

Each email the service sends carries its subscriber's signed unsubscribe link in its
List-Unsubscribe header, and SES returns the sent headers in the notification's `mail`
object: that is how a notification finds its subscriber.
"""

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from chalice.test import Client
from moto import mock_aws

SENDER = "notifications@statuspage.local"


@pytest.fixture(scope="module")
def client():
    with mock_aws():
        from app import app
        from chalicelib.local.emulator import create_resources

        create_resources()
        with Client(app) as test_client:
            yield test_client


@pytest.fixture
def page_id(client) -> str:
    from chalicelib.domain import organizations, pages
    from chalicelib.domain.pages import PageInput

    organization = organizations.create_organization("Acme Inc")
    return pages.create_page(organization.id, PageInput(name="Acme")).id


def _subscribe(page_id: str, email: str, **fields):
    from chalicelib.domain import subscribers
    from chalicelib.store.models import Page

    return subscribers.create(
        Page.get(page_id),
        subscribers.SubscriberInput(email=email, skip_confirmation_notification=True, **fields),
    )


@pytest.fixture
def subscriber(page_id):
    return _subscribe(page_id, "jane@example.com")


def _state(subscriber) -> str:
    from chalicelib.store.subscribers import Subscriber

    return Subscriber.get(subscriber.page_id, subscriber.id, consistent_read=True).state


def _reason(subscriber) -> str | None:
    from chalicelib.domain import bounces

    record = bounces.record_of(subscriber.page_id, subscriber.id)
    return record.stopped_reason if record else None


def _mail(subscriber, event_publishing: bool = False) -> dict:
    """The `mail` object of a notification about an email sent to `subscriber`: the headers
    SES read from the message, its List-Unsubscribe as `mime.list_unsubscribe` writes it."""
    from chalicelib.domain import subscribers
    from chalicelib.notify import mime

    unsubscribe = mime.list_unsubscribe(subscribers.unsubscribe_link(subscriber), SENDER)
    headers = [
        {"name": "From", "value": f"Acme <{SENDER}>"},
        {"name": "To", "value": subscriber.email},
        {"name": "Subject", "value": "[Acme] Investigating: Database down"},
    ]
    for line in unsubscribe.strip().split("\r\n"):
        if line.startswith(" "):  # a folded header's continuation
            headers[-1]["value"] += line
        else:
            name, _, value = line.partition(": ")
            headers.append({"name": name, "value": value})
    mail = {
        "timestamp": "2016-01-27T14:59:38.237Z",
        "messageId": "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000",
        "source": SENDER,
        "sourceArn": "arn:aws:ses:us-east-1:888888888888:identity/statuspage.local",
        "sourceIp": "127.0.3.0",
        "sendingAccountId": "123456789012",
        "callerIdentity": "IAM_user_or_role_name",
        "destination": [subscriber.email],
        "headersTruncated": False,
        "headers": headers,
        "commonHeaders": {
            "from": [f"Acme <{SENDER}>"],
            "to": [subscriber.email],
            "subject": "[Acme] Investigating: Database down",
        },
    }
    if event_publishing:
        mail["tags"] = {"ses:configuration-set": ["statuspage-prod-email"]}
    return mail


def _bounce(subscriber, bounce_type: str, sub_type: str, feedback_id: str, at: datetime):
    return {
        "notificationType": "Bounce",
        "bounce": {
            "bounceType": bounce_type,
            "bounceSubType": sub_type,
            "bouncedRecipients": [
                {
                    "emailAddress": subscriber.email,
                    "status": "5.1.1" if bounce_type == "Permanent" else "4.2.2",
                    "action": "failed",
                    "diagnosticCode": f"smtp; 550 5.1.1 <{subscriber.email}>... User",
                }
            ],
            "timestamp": at.isoformat().replace("+00:00", "Z"),
            "feedbackId": feedback_id,
            "reportingMTA": "dsn; email.example.com",
            "remoteMtaIp": "127.0.2.0",
        },
        "mail": _mail(subscriber),
    }


def _complaint(subscriber) -> dict:
    """As a configuration set's event destination publishes it (`eventType`)."""
    return {
        "eventType": "Complaint",
        "complaint": {
            "feedbackId": "000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000",
            "complaintSubType": None,
            "complainedRecipients": [{"emailAddress": subscriber.email}],
            "timestamp": "2017-08-05T00:41:02.669Z",
            "userAgent": "Mozilla/5.0 (Windows NT 6.1; WOW64)",
            "complaintFeedbackType": "abuse",
            "arrivalDate": "2017-08-05T00:41:02.669Z",
        },
        "mail": _mail(subscriber, event_publishing=True),
    }


def _delivery(subscriber) -> dict:
    return {
        "notificationType": "Delivery",
        "mail": _mail(subscriber),
        "delivery": {
            "timestamp": "2016-01-27T14:59:38.237Z",
            "recipients": [subscriber.email],
            "processingTimeMillis": 546,
            "reportingMTA": "a8-70.smtp-out.amazonses.com",
            "smtpResponse": "250 ok:  Message 64111812 accepted",
            "remoteMtaIp": "127.0.2.0",
        },
    }


def _notify(client, notification: dict | str) -> None:
    """Through the app's SNS-triggered function, as SNS hands it a message."""
    from app import read_email_events  # noqa: F401 (the function the topic triggers)

    message = notification if isinstance(notification, str) else json.dumps(notification)
    event = client.events.generate_sns_event(message=message, subject="")
    client.lambda_.invoke("read_email_events", event)


NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def test_hard_bounce_quarantines_the_subscriber_with_its_reason(client, subscriber):
    _notify(client, _bounce(subscriber, "Permanent", "General", "hard-1", NOW))

    assert _state(subscriber) == "quarantined"
    assert _reason(subscriber) == "hard bounce (General)"


def test_complaint_unsubscribes_the_subscriber(client, subscriber):
    _notify(client, _complaint(subscriber))

    assert _state(subscriber) == "unsubscribed"
    assert _reason(subscriber) == "complaint (abuse)"


def test_third_soft_bounce_within_seven_days_quarantines(client, subscriber):
    for number, days_ago in enumerate((6, 3)):
        at = NOW - timedelta(days=days_ago)
        _notify(client, _bounce(subscriber, "Transient", "MailboxFull", f"soft-{number}", at))
        assert _state(subscriber) == "active"

    _notify(client, _bounce(subscriber, "Transient", "General", "soft-2", NOW))

    assert _state(subscriber) == "quarantined"
    assert _reason(subscriber) == "soft bounces: 3 within 7 days"


def test_soft_bounces_more_than_seven_days_apart_do_not_quarantine(client, subscriber):
    for number, days_ago in enumerate((20, 9, 0)):
        at = NOW - timedelta(days=days_ago)
        _notify(client, _bounce(subscriber, "Transient", "General", f"old-{number}", at))

    assert _state(subscriber) == "active"


def test_a_soft_bounce_told_twice_counts_once(client, subscriber):
    bounce = _bounce(subscriber, "Transient", "General", "twice", NOW)
    for _ in range(3):  # SNS delivers at least once
        _notify(client, bounce)

    assert _state(subscriber) == "active"


def test_delivery_changes_nothing(client, subscriber):
    _notify(client, _delivery(subscriber))

    assert _state(subscriber) == "active"
    assert _reason(subscriber) is None


@pytest.mark.parametrize(
    "message",
    [
        "not json",
        "[]",
        json.dumps({"notificationType": "Bounce"}),
        json.dumps({"notificationType": "Bounce", "bounce": {}, "mail": {}}),
        json.dumps({"eventType": "Complaint", "complaint": {"complainedRecipients": 3}}),
    ],
)
def test_malformed_notification_is_logged_and_acknowledged(client, subscriber, message, caplog):
    with caplog.at_level(logging.WARNING, logger="chalicelib.notify.ses_events"):
        _notify(client, message)

    assert "acknowledged unread" in caplog.text
    assert _state(subscriber) == "active"


def _another_address(bounce: dict) -> None:
    bounce["bounce"]["bouncedRecipients"][0]["emailAddress"] = "someone.else@example.com"


def _forged_link(bounce: dict) -> None:
    for header in bounce["mail"]["headers"]:
        if header["name"] == "List-Unsubscribe":
            header["value"] = header["value"].replace("/subscriptions/", "/subscriptions/x")


def _no_headers(bounce: dict) -> None:
    """An identity's notifications carry the headers only when told to include them."""
    del bounce["mail"]["headers"]


@pytest.mark.parametrize(
    ("change", "logged"),
    [
        (_another_address, "is not the address told"),
        (_forged_link, "names no subscriber"),
        (_no_headers, "no List-Unsubscribe link"),
    ],
)
def test_bounce_naming_no_subscriber_of_ours_is_logged_and_acknowledged(
    client, subscriber, caplog, change, logged
):
    bounce = _bounce(subscriber, "Permanent", "General", change.__name__, NOW)
    change(bounce)

    with caplog.at_level(logging.WARNING, logger="chalicelib.notify.ses_events"):
        _notify(client, bounce)

    assert logged in caplog.text
    assert _state(subscriber) == "active"


def test_log_lines_name_no_address_and_no_link(client, subscriber, caplog):
    """The unsubscribe link's token is a secret, the address personal."""
    from chalicelib.domain import subscribers

    bounce = _bounce(subscriber, "Permanent", "General", "quiet", NOW)
    _another_address(bounce)
    with caplog.at_level(logging.DEBUG, logger="chalicelib"):
        _notify(client, bounce)
        _notify(client, _bounce(subscriber, "Permanent", "General", "quiet-2", NOW))

    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("chalicelib"))
    token = subscribers.unsubscribe_link(subscriber).split("/")[-2]
    assert "quarantined: hard bounce" in ours
    assert token not in ours
    assert subscriber.email not in ours
    assert "someone.else" not in ours
