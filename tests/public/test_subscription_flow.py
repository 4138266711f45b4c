"""The reader's subscription flow (issue 13, item 14): the header's button, the form, the
confirmation email, and the page to manage or cancel a subscription from its links."""

import re

from chalicelib.domain import subscribers
from tests.public.conftest import make_component, make_group, publish, update_page
from tests.public.test_security_headers import assert_common, policy_of, style_hashes
from tests.sent_mail import sent_mail

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def assert_public_html(answer):
    assert answer.headers["Content-Type"].startswith("text/html")
    assert answer.headers["Cache-Control"] == "no-store"
    assert_common(answer)
    policy = policy_of(answer)
    assert policy["frame-ancestors"] == "'none'" and policy["default-src"] == "'none'"
    assert set(policy["style-src"].split()) == style_hashes(answer.text)


def post_form(visitor, path, pairs, **headers):
    from urllib.parse import urlencode

    return visitor.api.post(path, urlencode(pairs), headers={**FORM, **headers})


def link_path(text, purpose):
    return re.search(rf"https?://[^/\s]+(/s/\S+/{purpose})", text).group(1)


def test_the_header_offers_subscribing_and_the_form_is_served(world, visitor):
    api = make_component(world, "API")
    make_group(world, "Core", [api["id"]])
    publish(world)
    page = visitor.get("").text
    assert f'href="/s/{world.page_id}/subscribe">Subscribe to updates</a>' in page
    form = visitor.get("/subscribe")
    assert form.status == 200
    assert_public_html(form)
    assert f'action="/s/{world.page_id}/subscribe?via=email"' in form.text
    assert "<legend>Core</legend>" in form.text and ">API</label>" in form.text
    assert "?via=sms" in form.text and "?via=webhook" in form.text


def test_the_form_follows_what_the_page_allows(world, visitor):
    update_page(world, allow_sms_subscribers=False, allow_webhook_subscribers=False)
    publish(world)
    assert "?via=sms" not in visitor.get("/subscribe").text
    update_page(world, allow_page_subscribers=False)
    publish(world)
    assert "Subscribe to updates</a>" not in visitor.get("").text
    assert visitor.get("/subscribe").status == 404


def test_subscribe_confirm_manage_and_unsubscribe(world, visitor):
    api = make_component(world, "API")
    database = make_component(world, "Database")
    publish(world)
    before = len(sent_mail())
    email = f"reader-{world.page_id}@example.com"
    answer = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=email",
        [("subscriber[email]", email), ("subscriber[component_ids][]", api["id"])],
    )
    assert answer.status == 200, answer.text
    assert_public_html(answer)
    assert "Check your email" in answer.text
    (mail,) = sent_mail()[before:]
    assert mail.to == [email]
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", text=email)
    assert list(subscriber.component_ids) == [api["id"]]

    page = visitor.api.get(link_path(mail.body, "confirm"))
    assert page.status == 200 and "Confirm subscription" in page.text
    assert_public_html(page)
    # Opening the link (as a mail scanner does) confirms nothing.
    assert subscribers.listed(world.page_id, state="unconfirmed", text=email)
    confirmed = visitor.api.post(link_path(mail.body, "confirm"), "")
    assert confirmed.status == 200
    assert_public_html(confirmed)
    assert "Subscription confirmed" in confirmed.text
    (subscriber,) = subscribers.listed(world.page_id, text=email)
    assert subscriber.state == "active"

    manage = re.search(r'href="(/s/[^"]+/manage)"', confirmed.text).group(1)
    shown = visitor.api.get(manage)
    assert shown.status == 200
    assert_public_html(shown)
    assert email in shown.text
    saved = post_form(visitor, manage, [("subscriber[component_ids][]", database["id"])])
    assert saved.status == 200 and "Your choice is saved" in saved.text
    assert list(subscribers.find(world.page_id, subscriber.id).component_ids) == [database["id"]]
    post_form(visitor, manage, [])  # nothing chosen: the whole page
    assert list(subscribers.find(world.page_id, subscriber.id).component_ids or []) == []

    unsubscribe = re.search(r'action="(/s/[^"]+/unsubscribe)"', shown.text).group(1)
    gone = visitor.api.post(unsubscribe, "", headers=FORM)
    assert gone.status == 200
    assert_public_html(gone)
    assert "Unsubscribed" in gone.text
    assert subscribers.listed(world.page_id, state="all", text=email) == []
    again = visitor.api.get(manage)
    assert again.status == 404
    assert_public_html(again)


def test_a_bad_form_is_a_422_that_shows_what_is_wrong(world, visitor):
    publish(world)
    answer = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=email",
        [("subscriber[email]", "<b>not-an-address")],
    )
    assert answer.status == 422
    assert_public_html(answer)
    assert "email" in answer.text and "<b>not-an-address" not in answer.text
    assert "&lt;b&gt;not-an-address" in answer.text
    as_json = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe",
        [("subscriber[component_ids][]", "nosuch"), ("subscriber[email]", "a@example.com")],
        Accept="application/json",
    )
    assert as_json.status == 422
    assert as_json.json["error"] == "Unprocessable entity"
    assert "component_ids" in as_json.json["errors"]


def test_readers_sms_and_webhook_subscriptions_wait_for_confirmation(world, visitor):
    publish(world)
    webhook = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=webhook",
        [
            ("subscriber[endpoint]", "https://hooks.example.com/x"),
            ("subscriber[email]", "o@example.com"),
        ],
    )
    assert webhook.status == 200, webhook.text
    sms = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=sms",
        [("subscriber[phone_country]", "US"), ("subscriber[phone_number]", "2025550143")],
    )
    assert sms.status == 200, sms.text
    assert "Check your phone" in sms.text
    kinds = {s.kind for s in subscribers.listed(world.page_id, state="unconfirmed")}
    assert kinds == {"webhook", "sms"}


def test_links_of_another_purpose_or_forged_are_refused(world, visitor):
    publish(world)
    answer = visitor.get("/subscriptions/abc-0123456789/manage")
    assert answer.status == 404
    assert_public_html(answer)
