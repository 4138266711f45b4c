"""The status API v2's subscribe call, `POST /api/v2/subscribers.json` (issue 32, item 14): a
reader's subscription without a key, made as the subscribe form makes it, waiting for its
confirmation, at every place the page is served."""

import re

import pytest

from chalicelib.domain import subscribers
from tests.public.conftest import make_component, make_incident, publish, update_page
from tests.sent_mail import sent_mail

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def subscribe(visitor, body, *, form=True, path=None, **headers):
    path = path or f"/s/{visitor.page_id}/api/v2/subscribers.json"
    return visitor.api.post(path, body, form=form, headers=headers or None)


def confirm_path(text: str) -> str:
    return re.search(r"https?://[^/\s]+(/s/\S+/confirm)", text).group(1)


def test_an_email_subscription_waits_for_its_confirmation_as_the_form_s(world, visitor):
    publish(world)
    address = f"api-{world.page_id}@example.com"
    before = len(sent_mail())
    answer = subscribe(visitor, {"subscriber": {"email": address}})
    assert answer.status == 201, answer.text
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    created = answer.json["subscriber"]
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", text=address)
    assert created == {
        "id": subscriber.id,
        "created_at": created["created_at"],
        "mode": "email",
        "email": address,
        "endpoint": None,
        "phone_country": None,
        "phone_number": None,
        "components": [],
        "skip_confirmation_notification": False,
        "quarantined_at": None,
        "purge_at": None,
        "state": "unconfirmed",
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", created["created_at"])

    (mail,) = sent_mail()[before:]  # the form's confirmation email, to that address
    assert mail.to == [address] and mail.subject.endswith("Confirm your subscription")
    assert visitor.api.get(confirm_path(mail.body)).status == 200  # the link's page
    assert visitor.api.post(confirm_path(mail.body), "").status == 200  # its button
    (confirmed,) = subscribers.listed(world.page_id, state="active", text=address)
    assert confirmed.id == subscriber.id


def test_a_json_body_as_npm_statuspage_io_sends_it_with_one_component(world, visitor):
    api = make_component(world, "API")
    make_component(world, "Web")
    publish(world)
    address = f"npm-{world.page_id}@example.com"
    body = {"subscriber": {"email": address, "component_id": api["id"]}}
    answer = subscribe(visitor, body, form=False)
    assert answer.status == 201, answer.text
    assert answer.json["subscriber"]["components"] == [api["id"]]
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", text=address)
    assert list(subscriber.component_ids) == [api["id"]]


def test_sms_and_webhook_subscriptions_wait_for_confirmation_too(world, visitor):
    publish(world)
    sms = subscribe(visitor, {"subscriber": {"phone_country": "US", "phone_number": "2025550164"}})
    assert sms.status == 201, sms.text
    assert sms.json["subscriber"]["mode"] == "sms"
    assert sms.json["subscriber"]["phone_number"] == "2025550164"
    webhook = subscribe(
        visitor,
        {"subscriber": {"endpoint": "https://hooks.example.com/x", "email": "o@example.com"}},
    )
    assert webhook.status == 201, webhook.text
    assert webhook.json["subscriber"]["endpoint"] == "https://hooks.example.com/x"
    kinds = {s.kind for s in subscribers.listed(world.page_id, state="unconfirmed")}
    assert kinds == {"sms", "webhook"}
    assert not subscribers.listed(world.page_id, state="active")


def test_it_answers_at_the_root_of_the_page_s_own_host(world, visitor):
    from chalicelib.domain import pages

    publish(world)
    host = f"{pages.get_page(world.page_id).subdomain}.localhost:8000"
    address = f"host-{world.page_id}@example.com"
    answer = subscribe(
        visitor, {"subscriber": {"email": address}}, path="/api/v2/subscribers.json", Host=host
    )
    assert answer.status == 201, answer.text
    assert subscribers.listed(world.page_id, state="unconfirmed", text=address)


def test_the_form_s_refusals_are_the_contract_s_json(world, visitor):
    publish(world)
    address = f"twice-{world.page_id}@example.com"
    assert subscribe(visitor, {"subscriber": {"email": address}}).status == 201
    again = subscribe(visitor, {"subscriber": {"email": address}})
    assert again.status == 422
    assert again.json["error"] == "Unprocessable entity" and "email" in again.json["errors"]
    assert subscribe(visitor, {"subscriber": {"email": "not an address"}}).status == 422
    assert subscribe(visitor, {}).status == 422
    unknown = subscribe(
        visitor, {"subscriber": {"email": address}}, path="/s/nopage/api/v2/subscribers.json"
    )
    assert unknown.status == 404 and unknown.json == {
        "error": "The requested resource could not be found"
    }
    update_page(world, allow_email_subscribers=False)
    publish(world)
    refused = subscribe(visitor, {"subscriber": {"email": f"off-{world.page_id}@example.com"}})
    assert refused.status == 422 and "email" in refused.json["errors"]


@pytest.mark.parametrize("field", ["incident_id", "incident"])
def test_a_subscription_to_one_incident_is_refused_rather_than_widened(world, visitor, field):
    incident = make_incident(world, "Down")
    publish(world)
    body = {"subscriber": {"email": f"one-{world.page_id}@example.com", field: incident["id"]}}
    answer = subscribe(visitor, body)
    assert answer.status == 422 and "incident_id" in answer.json["errors"]
    assert not subscribers.listed(world.page_id, state="unconfirmed")


def test_a_private_page_takes_no_subscription(world, visitor):
    publish(world)
    from chalicelib.domain import pages
    from chalicelib.domain.pages import PageInput

    pages.update_page(pages.get_page(world.page_id), PageInput(viewers_must_be_team_members=True))
    answer = subscribe(visitor, {"subscriber": {"email": f"p-{world.page_id}@example.com"}})
    assert answer.status == 401 and answer.json == {"error": "Could not authenticate"}
    assert not subscribers.listed(world.page_id, state="unconfirmed")


def test_only_post_is_served_and_nothing_is_published_there(world, visitor):
    publish(world)
    answer = visitor.get("/api/v2/subscribers.json")  # the published site first, then the app
    assert answer.status == 405 and answer.headers["Allow"] == "POST"
    assert answer.json == {"error": "Method not allowed"}
    assert visitor.api.delete(f"/s/{world.page_id}/api/v2/subscribers.json").status == 405


def test_the_openapi_document_lists_it_under_the_public_tag(world):
    document = world.api.as_key(None).get("/v1/openapi.json").json
    for path in ("/s/{page_id}/api/v2/subscribers.json", "/api/v2/subscribers.json"):
        operation = document["paths"][path]["post"]
        assert operation["tags"] == ["public status page"]
        assert {"201", "422"} <= set(operation["responses"])
        assert "security" not in operation or operation["security"] == []
        assert "get" not in document["paths"][path]
