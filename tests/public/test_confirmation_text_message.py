"""A reader's SMS subscription is confirmed by one text message of one segment, whatever the
page's name (issue 32, item 12)."""

import re

from chalicelib.domain import subscribers
from chalicelib.notify import sms
from tests.public.conftest import publish, update_page

LONG_NAME = "Northwind Traders Cloud Platform Status and Incidents"


def texts_to(number: str) -> list[str]:
    from moto.backends import get_backend

    sent = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    return [text for to, text in sent.values() if to == number]


def test_the_confirmation_of_a_page_with_a_long_name_is_one_segment(world, visitor):
    from urllib.parse import urlencode

    update_page(world, name=LONG_NAME)
    publish(world)
    answer = visitor.api.post(
        f"/s/{world.page_id}/subscribe?via=sms",
        urlencode({"subscriber[phone_country]": "US", "subscriber[phone_number]": "2025550187"}),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 200, answer.text
    (text,) = texts_to("+12025550187")
    assert sms.segments(text) == 1 and sms.is_gsm7(text)
    assert text.startswith("[Northwind Traders...] Confirm: http")
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", kind="sms")
    link = subscribers.link(subscriber, subscribers.CONFIRM)
    assert text.endswith(" " + link)  # the link whole, so it opens
    path = re.search(r"https?://[^/\s]+(/\S+)$", text).group(1)
    assert visitor.api.get(path).status == 200  # the link's page, with its one button
    assert visitor.api.post(path, "").status == 200
    (confirmed,) = subscribers.listed(world.page_id, kind="sms", state="active")
    assert confirmed.id == subscriber.id
