"""What subscribers receive (issue 21): every email read back from the emulator's SES and
parsed as a mail client does, its text and HTML parts and its headers; text messages; and the
page state every notification states, from the page's snapshot."""

import re
from urllib.parse import unquote

import boto3
import pytest

from chalicelib.domain import subscribers
from chalicelib.notify import email
from chalicelib.store.subscribers import Subscriber
from tests.api.test_notifications import webhook_subscriber
from tests.sent_mail import sent_mail
from tests.webhook_sink import WebhookSink

XSS_NAME = '<script>alert("name")</script> & Co'
XSS_BODY = "**Bold** news <img src=x onerror=alert(1)> [link](javascript:alert(2))"

pytestmark = pytest.mark.usefixtures("quick_retries")


def email_subscriber(world, address, **fields):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": address, "skip_confirmation_notification": True, **fields}},
    )
    assert answer.status == 201, answer.text
    return Subscriber.get(world.page_id, answer.json["id"])


def component(world, name):
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    return answer.json


def brand(world, **fields):
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": fields})
    assert answer.status == 200, answer.text


def incident_link(world, incident_id):
    """Where a notification sends its reader: the page's current public address, as its
    summary's `url` states it."""
    page_url = world.api.as_key(None).get(f"/s/{world.page_id}/api/v2/summary.json")
    return f"{page_url.json['page']['url']}/incidents/{incident_id}"


def mails_to(address, since):
    return [mail for mail in sent_mail()[since:] if mail.to == [address]]


@pytest.fixture
def branded(world):
    brand(
        world,
        name="Acme Cloud",
        time_zone="Europe/Berlin",
        css_link_color="#123abc",
        css_body_background_color="#fefefe",
        transactional_logo_url="https://cdn.example.com/logo.png",
        notifications_email_footer="Acme Cloud, 1 Main St\nQuestions? support@example.com",
    )
    return world


def test_an_incident_email_has_a_text_and_an_html_part_with_the_page_look(branded, drain):
    world = branded
    api = component(world, "API")
    reader = email_subscriber(world, "reader@example.com")
    before = len(sent_mail())
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "Elevated errors",
                "body": "We are **looking** into it.\n\n- step one",
                "impact_override": "major",
                "components": {api["id"]: "major_outage"},
                "component_ids": [api["id"]],
            }
        },
    ).json
    drain()
    (mail,) = mails_to("reader@example.com", before)

    assert mail.message.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in mail.message.iter_parts()] == [
        "text/plain",
        "text/html",
    ]
    assert mail.subject == "[Acme Cloud] Elevated errors - investigating"
    assert mail.sender == "Acme Cloud <notifications@statuspage.local>"

    link = incident_link(world, incident["id"])
    shown_at = re.search(r"Posted (\w{3} \d+, \d{4} - \d\d:\d\d (CET|CEST))", mail.html)
    assert shown_at, "the time is in the page's time zone"
    html = mail.html
    for expected in (
        "Acme Cloud",
        "Elevated errors",
        ">Investigating<",
        "<strong>looking</strong>",  # Markdown, rendered
        "<li>step one</li>",
        "API",
        "Major Outage",
        f'href="{link}"',
        'src="https://cdn.example.com/logo.png"',
        "#123abc",  # the page's link color
        "background-color:#fefefe",
        "Acme Cloud, 1 Main St",
        f'href="{subscribers.manage_link(reader)}"',
        f'href="{subscribers.unsubscribe_link(reader)}"',
    ):
        assert expected in html, expected
    assert 'style="' in html and "<style" not in html  # inline CSS, as mail clients need

    text = mail.body
    for expected in (
        "Elevated errors",
        "Status: Investigating",
        "We are looking into it.",  # Markdown, read as text (issue 32)
        "- step one",
        "- API: Major Outage",
        shown_at.group(1),
        link,
        "Acme Cloud, 1 Main St",
        f"Manage your subscription: {subscribers.manage_link(reader)}",
        f"Unsubscribe: {subscribers.unsubscribe_link(reader)}",
    ):
        assert expected in text, expected
    assert "<" not in text.replace("<-", "")  # no markup in the plain part


def test_every_notification_has_one_click_list_unsubscribe_headers(world, drain):
    reader = email_subscriber(world, "headers@example.com")
    before = len(sent_mail())
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Slow"}})
    drain()
    (mail,) = mails_to("headers@example.com", before)
    header = mail.header("List-Unsubscribe")
    web, mailto = re.findall(r"<([^>]+)>", header)
    assert web == subscribers.unsubscribe_link(reader)
    assert mailto.startswith("mailto:notifications@statuspage.local?subject=unsubscribe")
    assert unquote(mailto.split("body=", 1)[1]) == web
    assert mail.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"


def test_each_recipient_gets_its_own_links_in_an_otherwise_identical_email(world, drain):
    first = email_subscriber(world, "first@example.com")
    second = email_subscriber(world, "second@example.com")
    before = len(sent_mail())
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Twice"}})
    drain()
    (one,) = mails_to("first@example.com", before)
    (two,) = mails_to("second@example.com", before)
    assert subscribers.unsubscribe_link(first) in one.html
    assert subscribers.unsubscribe_link(second) not in one.html
    assert subscribers.unsubscribe_link(second) in two.html
    swapped = two.html
    for purpose in (subscribers.UNSUBSCRIBE, subscribers.MANAGE):
        swapped = swapped.replace(
            subscribers.link(second, purpose), subscribers.link(first, purpose)
        )
    assert swapped == one.html
    assert "@@" not in one.html + one.body  # no marker left behind


def test_user_content_is_escaped_in_the_html_and_sanitized_markdown(world, drain):
    brand(world, name=XSS_NAME, notifications_email_footer="<b>footer</b>")
    email_subscriber(world, "escape@example.com")
    before = len(sent_mail())
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": '<img src=x onerror=alert("incident")>', "body": XSS_BODY}},
    )
    drain()
    (mail,) = mails_to("escape@example.com", before)
    html = mail.html
    assert "<script" not in html and "onerror" not in html.replace("onerror=alert", "")
    assert "<img src=x" not in html
    assert "javascript:" not in html
    assert "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt; &amp; Co" in html
    assert "&lt;img src=x onerror=alert(&#34;incident&#34;)&gt;" in html
    assert "&lt;b&gt;footer&lt;/b&gt;" in html
    assert "<strong>Bold</strong>" in html
    # The headers carry the name as text, on one line each.
    assert mail.subject.startswith(f"[{XSS_NAME}]")
    assert mail.message["From"].addresses[0].display_name == XSS_NAME


def test_the_page_sender_is_used_only_once_ses_verified_it(world, drain, monkeypatch):
    brand(world, name="Verified Co", notifications_from_email="status@verified.example.com")
    email_subscriber(world, "from@example.com")
    email.verified_identities.cache_clear()
    before = len(sent_mail())
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "One"}})
    drain()
    (mail,) = mails_to("from@example.com", before)
    assert mail.sender == "Verified Co <notifications@statuspage.local>"

    boto3.client("ses", region_name="us-east-1").verify_domain_identity(
        Domain="verified.example.com"
    )
    email.verified_identities.cache_clear()  # a new cold start
    before = len(sent_mail())
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Two"}})
    drain()
    (mail,) = mails_to("from@example.com", before)
    assert mail.sender == "Verified Co <status@verified.example.com>"
    assert "status@verified.example.com" in mail.header("List-Unsubscribe")


def test_identities_are_read_once_per_cold_start_not_per_recipient(world, drain):
    brand(world, notifications_from_email="status@unverified.example.com")
    for number in range(3):
        email_subscriber(world, f"r{number}@example.com")
    email.verified_identities.cache_clear()
    before = len(sent_mail())
    for name in ("One", "Two"):
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": name}})
    drain()
    assert len(sent_mail()[before:]) == 6
    assert email.verified_identities.cache_info().misses == 1


def test_maintenance_reminder_and_postmortem_emails_are_of_the_same_family(world, drain):
    brand(world, time_zone="America/New_York")
    email_subscriber(world, "family@example.com")
    before = len(sent_mail())
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "Database upgrade",
                "status": "scheduled",
                "scheduled_for": "2030-05-01T10:00:00Z",
                "scheduled_until": "2030-05-01T12:00:00Z",
                "body": "We upgrade the database.",
            }
        },
    )
    resolved = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Outage", "status": "resolved", "body": "Fixed"}},
    ).json
    drain()
    path = f"/v1/pages/{world.page_id}/incidents/{resolved['id']}/postmortem"
    world.api.put(path, {"postmortem": {"body_draft": "## Root cause\n\nA *bad* deploy."}})
    world.api.put(path + "/publish", {"postmortem": {"notify_subscribers": True}})
    drain()
    maintenance, outage, postmortem = mails_to("family@example.com", before)
    assert "Scheduled maintenance" in maintenance.html
    assert "May 1, 2030 - 06:00 EDT" in maintenance.html  # the window, in the page's zone
    assert "May 1, 2030 - 08:00 EDT" in maintenance.html
    assert "Scheduled: May 1, 2030 - 06:00 EDT until May 1, 2030 - 08:00 EDT" in maintenance.body
    assert ">Resolved<" in outage.html
    assert postmortem.subject == "[Acme] Postmortem: Outage"
    assert "<h2>Root cause</h2>" in postmortem.html and "<em>bad</em>" in postmortem.html
    for mail in (maintenance, outage, postmortem):
        assert mail.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
        assert 'id="unsubscribe"' in mail.html


def test_the_confirmation_email_has_a_button_and_no_unsubscribe_headers(world):
    before = len(sent_mail())
    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers", {"subscriber": {"email": "new@example.com"}}
    )
    (mail,) = mails_to("new@example.com", before)
    assert mail.subject == "[Acme] Confirm your subscription"
    confirm = re.search(r'id="button" href="([^"]+/confirm)"', mail.html).group(1)
    assert confirm in mail.body
    assert "If you did not ask for this" in mail.html
    assert mail.header("List-Unsubscribe") is None


def test_a_team_reminder_has_no_subscriber_links(world, drain, freeze_clock):
    from datetime import timedelta

    from chalicelib import clock
    from chalicelib.jobs import schedule

    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Stale"}})
    drain()
    before = len(sent_mail())
    freeze_clock(clock.now() + timedelta(hours=3, minutes=1))
    schedule.tick()
    drain()
    # Every test's organization has an owner@example.com: this page's reminder is the one
    # about this incident.
    (mail,) = [
        mail
        for mail in mails_to("owner@example.com", before)
        if mail.subject == "[Acme] Reminder: Stale is still investigating"
        and world.page_id in mail.body
    ]
    assert mail.header("List-Unsubscribe") is None
    assert "/subscriptions/" not in mail.html + mail.body
    assert "no update for 3 hours" in mail.html


def test_a_text_message_fits_one_segment_cut_at_a_word(world, drain):
    from moto.backends import get_backend

    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"phone_country": "US", "phone_number": "4155550123"}},
    )
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Checkout errors", "body": "word " * 80 + "end"}},
    ).json
    drain()
    texts = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    (text,) = [t for number, t in texts.values() if number == "+14155550123"]
    link = incident_link(world, incident["id"])
    assert len(text) <= 160
    assert text.startswith("[Acme] Checkout errors: Investigating - word word")
    assert text.endswith(f"word... {link}")


def test_links_follow_the_page_to_its_new_address(world, drain):
    """After the page moves (a new subdomain, then a custom domain) emails and text messages
    link to where it is now, never to the subdomain it was made with."""
    from moto.backends import get_backend

    email_subscriber(world, "reader@example.com")
    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"phone_country": "US", "phone_number": "4155550124"}},
    )
    texts = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    for fields, address in (
        # PUBLIC_DOMAIN is `localhost` on the local stages: a subdomain is a host of its own.
        ({"name": "Acme Cloud", "subdomain": f"acme-{world.page_id}"}, f"acme-{world.page_id}."),
        ({"domain": "status.acme.example"}, "https://status.acme.example/incidents/"),
    ):
        brand(world, **fields)
        since = len(sent_mail())
        incident = world.api.post(
            f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Checkout errors"}}
        ).json
        drain()
        link = incident_link(world, incident["id"])
        assert address in link and "/s/" not in link
        (mail,) = mails_to("reader@example.com", since)
        assert link in mail.body and f'href="{link}"' in mail.html
        assert any(t.endswith(link) for number, t in texts.values() if number == "+14155550124")


def test_every_notification_states_the_page_from_its_snapshot(world, drain, dynamodb_calls):
    from chalicelib.views import snapshot

    component_id = component(world, "API")["id"]
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        world.api.post(
            f"/v1/pages/{world.page_id}/incidents",
            {"incident": {"name": "Down", "components": {component_id: "partial_outage"}}},
        )
        drain()
        (delivery,) = [d for d in sink.received if "incident" in d["json"]]
    page = delivery["json"]["page"]
    assert page["status_indicator"] == "major"
    assert page["status_description"] == "Partial System Outage"
    assert page == {
        "id": world.page_id,
        "status_indicator": snapshot.load(world.page_id).content["status"]["indicator"],
        "status_description": snapshot.load(world.page_id).content["status"]["description"],
    }


def test_the_page_state_costs_one_read_of_a_current_snapshot(world):
    from chalicelib.notify import fanout
    from chalicelib.store.models import Page
    from tests.dynamodb_calls import recording

    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Down"}})
    world.api.as_key(None).get(f"/s/{world.page_id}")  # a view rebuilt the snapshot
    page = Page.get(world.page_id)
    with recording() as calls:
        state = fanout.page_state(page)
    assert calls.operations == ["GetItem"]
    assert state["status_indicator"] == "minor"


def test_a_delivery_batch_carries_only_what_its_kinds_of_recipients_need(world, drain):
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Hooks"}})
        (webhooks_only,) = drain()
        email_subscriber(world, "kinds@example.com")
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Both"}})
        (both,) = drain()
    assert set(webhooks_only["content"]) == {"webhook"}
    assert set(both["content"]) == {"subject", "sender", "text", "html", "links", "webhook"}


def test_an_address_on_an_international_domain_is_sent_to_in_punycode(world, drain):
    email_subscriber(world, "leser@bücher.example")
    before = len(sent_mail())
    world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "IDN"}})
    drain()
    assert [mail.subject for mail in mails_to("leser@xn--bcher-kva.example", before)] == [
        "[Acme] IDN - investigating"
    ]


def test_times_keep_the_hours_leading_zero_and_drop_the_days():
    from chalicelib.web import times

    local_time = times.time_formatter("America/New_York")
    assert local_time("2030-04-20T10:00:00.000Z") == "Apr 20, 2030 - 06:00 EDT"
    assert local_time("2030-05-01T10:05:00.000Z") == "May 1, 2030 - 06:05 EDT"
