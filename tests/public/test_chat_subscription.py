"""A reader subscribes a chat channel on the public page (issue 32, item 13): the form's chat
option, confirmed by email as a webhook subscription is; the pages a channel's links open name
its platform, never its URL."""

import re

from chalicelib.domain import subscribers
from tests.public.conftest import publish, update_page
from tests.public.test_subscription_flow import assert_public_html, link_path, post_form
from tests.sent_mail import sent_mail

SLACK_URL = "https://hooks.slack.com/services/T000/B000/SECRET"


def test_the_form_offers_a_chat_channel_where_webhooks_are_allowed(world, visitor):
    publish(world)
    assert "?via=chat" in visitor.get("/subscribe").text
    form = visitor.get("/subscribe?via=chat")
    assert form.status == 200
    assert_public_html(form)
    assert 'name="subscriber[chat_webhook_url]"' in form.text
    assert 'name="subscriber[chat_platform]"' in form.text and "Google Chat" in form.text
    update_page(world, allow_webhook_subscribers=False)
    publish(world)
    assert "?via=chat" not in visitor.get("/subscribe").text


def test_a_readers_channel_waits_for_the_confirmation_sent_to_its_email(world, visitor):
    publish(world)
    before = len(sent_mail())
    email = f"chat-{world.page_id}@example.com"
    answer = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=chat",
        [
            ("subscriber[chat_webhook_url]", SLACK_URL),
            ("subscriber[chat_platform]", ""),
            ("subscriber[email]", email),
        ],
    )
    assert answer.status == 200, answer.text
    assert "Check your email" in answer.text
    (mail,) = sent_mail()[before:]
    assert mail.to == [email]
    assert "a Slack channel (hooks.slack.com)" in mail.body and "SECRET" not in mail.body
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", text="hooks.slack")
    assert subscriber.kind == "slack"

    assert visitor.api.get(link_path(mail.body, "confirm")).status == 200
    confirmed = visitor.api.post(link_path(mail.body, "confirm"), "")
    assert confirmed.status == 200 and "Subscription confirmed" in confirmed.text
    assert subscribers.find(world.page_id, subscriber.id).state == "active"
    manage = re.search(r'href="(/s/[^"]+/manage)"', confirmed.text).group(1)
    shown = visitor.api.get(manage)
    assert shown.status == 200
    assert "a Slack channel (hooks.slack.com)" in shown.text and "SECRET" not in shown.text


def test_a_chat_form_without_a_platform_the_url_names_is_sent_back(world, visitor):
    publish(world)
    answer = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=chat",
        [
            ("subscriber[chat_webhook_url]", "https://relay.example.com/hook"),
            ("subscriber[email]", "o@example.com"),
        ],
    )
    assert answer.status == 422
    assert_public_html(answer)
    assert "chat platform" in answer.text
    assert 'value="https://relay.example.com/hook"' in answer.text  # kept to be corrected
