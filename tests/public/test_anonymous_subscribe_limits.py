"""Anonymous subscribing is limited (issue 48, item 1): every subscription a reader makes sends
a confirmation to an address the caller chose, so unlimited, the public form and the status
API v2 would mail or text anyone at the operator's cost. Per client and page
(`SUBSCRIBE_PER_CLIENT_PER_HOUR`, 10) and per page (`SUBSCRIBE_PER_PAGE_PER_HOUR`, 500),
on whatever `RATE_LIMIT_PER_MINUTE` says (0 in these tests); a page asks one address at most
once an hour; and text messages go to mobile numbers only."""

from urllib.parse import urlencode

import pytest

from tests.public.conftest import make_incident, publish
from tests.sent_mail import sent_mail

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def subscribe_by_form(visitor, address: str, client: str = "203.0.113.7"):
    return visitor.api.post(
        f"/s/{visitor.page_id}/subscribe",
        urlencode({"subscriber[email]": address}),
        headers={**FORM, "X-Forwarded-For": client},
    )


def subscribe_by_api(visitor, fields: dict, client: str = "203.0.113.7"):
    return visitor.api.post(
        f"/s/{visitor.page_id}/api/v2/subscribers.json",
        {"subscriber": fields},
        headers={"X-Forwarded-For": client},
    )


def test_one_client_is_refused_past_10_subscriptions_an_hour_and_nothing_more_is_sent(
    world, visitor
):
    publish(world)
    before = len(sent_mail())
    answers = []
    for number in range(40):  # the status API v2 and the form, by turns
        address = f"victim-{number}@example.com"
        if number % 2:
            answers.append(subscribe_by_form(visitor, address))
        else:
            answers.append(subscribe_by_api(visitor, {"email": address}))
    statuses = [answer.status for answer in answers]
    assert statuses[:10] == [201, 200] * 5
    assert set(statuses[10:]) == {429}
    refused_json = answers[10]
    assert refused_json.json == {"error": "Rate limit exceeded"}
    assert int(refused_json.headers["Retry-After"]) > 0
    refused_form = answers[11]
    assert "Too many" in refused_form.text and int(refused_form.headers["Retry-After"]) > 0
    assert len(sent_mail()) - before == 10  # one confirmation per subscription made, no more
    # Another client is not held back by this one.
    assert subscribe_by_form(visitor, "someone@example.com", client="198.51.100.9").status == 200


def test_a_page_takes_its_own_limit_from_every_client_together(world, visitor, monkeypatch):
    monkeypatch.setenv("SUBSCRIBE_PER_PAGE_PER_HOUR", "5")
    publish(world)
    statuses = [
        subscribe_by_form(visitor, f"reader-{number}@example.com", f"198.51.100.{number}").status
        for number in range(8)
    ]
    assert statuses == [200] * 5 + [429] * 3


def test_a_page_asks_one_address_once_an_hour_however_often_it_is_given(world, visitor):
    """The subscriptions of each open incident, to one address: one confirmation; the link
    it carries still confirms the first."""
    first = make_incident(world, "API down", body="Looking")
    second = make_incident(world, "Web down", body="Looking")
    publish(world)
    before = len(sent_mail())
    for incident in (first, second):
        answer = visitor.api.post(
            f"/s/{world.page_id}/incidents/{incident['id']}/subscribe?via=email",
            urlencode({"subscriber[email]": "target@example.com"}),
            headers=FORM,
        )
        assert answer.status == 200, answer.text
    assert [mail.to for mail in sent_mail()[before:]] == [["target@example.com"]]


@pytest.mark.parametrize(
    "country, number",
    [
        ("US", "9005550100"),  # +1 900: premium rate
        ("US", "8005550100"),  # toll-free
        ("GB", "9098790000"),  # +44 909: premium rate
        ("GB", "2079460000"),  # a London landline
        ("DE", "9001234567"),  # +49 900: premium rate
        ("FR", "899123456"),  # +33 899: premium rate
    ],
)
def test_a_text_message_goes_to_mobile_numbers_only(world, visitor, country, number):
    publish(world)
    answer = subscribe_by_api(visitor, {"phone_country": country, "phone_number": number})
    assert answer.status == 422, answer.text
    assert list(answer.json["errors"]) == ["phone_number"]
    assert "not a mobile number" in answer.json["errors"]["phone_number"][0]


@pytest.mark.parametrize(
    "country, number", [("US", "4155550132"), ("GB", "7911123456"), ("FR", "612345678")]
)
def test_a_mobile_number_is_taken(world, visitor, country, number):
    publish(world)
    answer = subscribe_by_api(visitor, {"phone_country": country, "phone_number": number})
    assert answer.status == 201, answer.text
