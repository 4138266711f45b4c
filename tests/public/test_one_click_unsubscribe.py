"""One-click unsubscribe (RFC 8058): the List-Unsubscribe link of every notification. A POST
with `List-Unsubscribe=One-Click` unsubscribes without login, twice as well as once; a GET (a
mail scanner's, a link preview's) only asks."""

import re

import pytest

from chalicelib.domain import subscribers
from chalicelib.store.subscribers import Subscriber
from tests.public.conftest import publish
from tests.public.test_subscription_flow import FORM, assert_public_html

MULTIPART = "multipart/form-data; boundary=---FormBoundaryjWmhtjORrn"
# RFC 8058's own example of the mailbox provider's POST.
MULTIPART_BODY = (
    "-----FormBoundaryjWmhtjORrn\r\n"
    'Content-Disposition: form-data; name="List-Unsubscribe"\r\n\r\n'
    "One-Click\r\n"
    "-----FormBoundaryjWmhtjORrn--\r\n"
)


@pytest.fixture
def reader(world):
    publish(world)
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": "one-click@example.com", "skip_confirmation_notification": True}},
    )
    assert answer.status == 201, answer.text
    return Subscriber.get(world.page_id, answer.json["id"])


def unsubscribe_path(subscriber) -> str:
    return subscribers.link_path(subscriber, subscribers.UNSUBSCRIBE)


def state_of(subscriber) -> str:
    return Subscriber.get(subscriber.page_id, subscriber.id).state


def test_a_get_only_asks_with_a_button_that_posts_to_the_same_link(visitor, reader):
    answer = visitor.api.get(unsubscribe_path(reader))
    assert answer.status == 200
    assert_public_html(answer)
    assert "one-click@example.com" in answer.text
    form = re.search(r'<form method="post" action="([^"]+)">', answer.text)
    assert form.group(1) == unsubscribe_path(reader)
    assert 'id="unsubscribe"' in answer.text
    assert state_of(reader) == "active"


@pytest.mark.parametrize(
    "content_type, body",
    [(FORM["Content-Type"], "List-Unsubscribe=One-Click"), (MULTIPART, MULTIPART_BODY)],
    ids=["form", "multipart"],
)
def test_the_one_click_post_unsubscribes_without_login_and_again_answers_200(
    visitor, reader, content_type, body
):
    path = unsubscribe_path(reader)
    first = visitor.api.post(path, body, headers={"Content-Type": content_type})
    assert first.status == 200, first.text
    assert_public_html(first)
    assert "Unsubscribed" in first.text
    assert state_of(reader) == "unsubscribed"
    unsubscribed_at = Subscriber.get(reader.page_id, reader.id).unsubscribed_at

    again = visitor.api.post(path, body, headers={"Content-Type": content_type})
    assert again.status == 200
    assert "Unsubscribed" in again.text
    assert Subscriber.get(reader.page_id, reader.id).unsubscribed_at == unsubscribed_at
    # Afterwards the link's page says so, and offers no button.
    shown = visitor.api.get(path)
    assert shown.status == 200 and "Unsubscribed" in shown.text
    assert 'id="unsubscribe"' not in shown.text


def test_the_page_button_post_unsubscribes_too(visitor, reader):
    answer = visitor.api.post(unsubscribe_path(reader), "", headers=FORM)
    assert answer.status == 200
    assert state_of(reader) == "unsubscribed"


def test_a_forged_or_other_purpose_token_unsubscribes_nobody(visitor, reader, world):
    manage = subscribers.link_path(reader, subscribers.MANAGE)
    forged = unsubscribe_path(reader).replace(reader.id + "-", reader.id + "-0")
    for path in (manage.replace("/manage", "/unsubscribe"), forged):
        answer = visitor.api.post(path, "List-Unsubscribe=One-Click", headers=FORM)
        assert answer.status == 404
        assert_public_html(answer)
    assert state_of(reader) == "active"
