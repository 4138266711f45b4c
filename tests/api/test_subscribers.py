"""Subscribers through HTTP (SPEC 3.4, 4.10): page, incident and organization level."""

import json
import re

import boto3
import pytest

from tests.dynamodb_calls import recording
from tests.sent_mail import sent_mail


def subscribers_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/subscribers{suffix}"


def subscribe(world, subscriber, *, form=False, archived=False):
    return world.api.post(
        subscribers_path(world, ".json" if archived else ""), {"subscriber": subscriber}, form=form
    )


@pytest.mark.parametrize("archived", [False, True])
@pytest.mark.parametrize("form", [False, True])
def test_email_subscriber_starts_unconfirmed_and_gets_a_confirmation_mail(world, archived, form):
    before = len(sent_mail())
    answer = subscribe(
        world, {"email": f"a{int(archived)}{int(form)}@example.com"}, form=form, archived=archived
    )
    assert answer.status == 201, answer.text
    assert answer.json["state"] == "unconfirmed"
    assert answer.json["mode"] == "email"
    mails = sent_mail()[before:]
    assert len(mails) == 1
    assert "/subscriptions/" in mails[0].body and mails[0].body.count("/confirm") == 1


def test_confirmation_link_activates(world):
    before = len(sent_mail())
    subscriber = subscribe(world, {"email": "confirm@example.com"}).json
    link = re.search(r"(/s/\S+/confirm)", sent_mail()[before].body).group(1)
    answer = world.api.as_key(None).get(link)
    assert answer.status == 200
    assert "confirmed" in answer.text
    assert world.api.get(subscribers_path(world, f"/{subscriber['id']}")).json["state"] == "active"
    forged = link.replace("/confirm", "").rsplit("-", 1)[0] + "-0000/confirm"
    assert world.api.as_key(None).get(forged).status == 404


def test_skip_confirmation_makes_an_active_subscriber(world):
    answer = subscribe(world, {"email": "skip@example.com", "skip_confirmation_notification": True})
    assert answer.json["state"] == "active"


def test_sms_and_webhook_subscribers_start_active(world):
    sms = subscribe(world, {"phone_country": "US", "phone_number": "(415) 555-0132"})
    assert sms.status == 201, sms.text
    assert (sms.json["state"], sms.json["display_phone_number"]) == ("active", "+14155550132")
    hook = subscribe(
        world, {"endpoint": "https://hooks.example.com/status", "email": "ops@example.com"}
    )
    assert hook.status == 201, hook.text
    assert (hook.json["state"], hook.json["mode"]) == ("active", "webhook")


@pytest.mark.parametrize(
    "subscriber, field",
    [
        ({"email": "nope"}, "email"),
        ({"email": "renée@example.com"}, "email"),  # SES sends to ASCII local parts only
        ({"phone_country": "XX", "phone_number": "12345"}, "phone_country"),
        ({"phone_country": "US", "phone_number": "12"}, "phone_number"),
        ({"endpoint": "https://hooks.example.com/x"}, "email"),
        ({"endpoint": "not a url", "email": "a@example.com"}, "endpoint"),
        ({"email": "c@example.com", "component_ids": ["nosuch"]}, "component_ids"),
        ({}, "email"),
    ],
)
def test_invalid_subscribers_are_422_naming_the_field(world, subscriber, field):
    answer = subscribe(world, subscriber)
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"]


def test_an_international_domain_is_accepted(world):
    answer = subscribe(world, {"email": "ops@bücher.example"})
    assert answer.status == 201, answer.text


def test_duplicates_are_refused(world):
    assert subscribe(world, {"email": "dup@example.com"}).status == 201
    again = subscribe(world, {"email": "DUP@example.com"})
    assert again.status == 422
    assert "email" in again.json["errors"]


def test_page_settings_decide_which_kinds_are_allowed(world):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"allow_sms_subscribers": False}})
    answer = subscribe(world, {"phone_country": "GB", "phone_number": "07700 900123"})
    assert answer.status == 422
    assert "phone_number" in answer.json["errors"]


def test_access_controlled_pages_need_a_page_access_user(world):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"viewers_must_be_team_members": True}})
    answer = subscribe(world, {"email": "x@example.com"})
    assert answer.status == 422
    assert "page_access_user" in answer.json["errors"]
    assert subscribe(world, {"email": "x@example.com", "page_access_user": "abc"}).status == 201


def test_list_filters_sorts_and_pages(world):
    for address in ("c@example.com", "a@example.com", "b@example.com"):
        subscribe(world, {"email": address, "skip_confirmation_notification": True})
    subscribe(world, {"email": "pending@example.com"})
    subscribe(world, {"phone_country": "US", "phone_number": "4155550100"})

    def emails(query):
        answer = world.api.get(subscribers_path(world, query))
        assert answer.status == 200, answer.text
        return [s["email"] or s["display_phone_number"] for s in answer.json]

    assert emails("?type=email") == ["a@example.com", "b@example.com", "c@example.com"]
    assert emails("?type=email&sort_direction=desc") == [
        "c@example.com",
        "b@example.com",
        "a@example.com",
    ]
    assert emails("?type=email&limit=2&page=1") == ["c@example.com"]
    assert emails("?state=unconfirmed") == ["pending@example.com"]
    assert len(emails("?state=all")) == 5
    assert emails(".json?q=b@") == ["b@example.com"]
    assert world.api.get(subscribers_path(world, "?type=pigeon")).status == 422
    histogram = world.api.get(subscribers_path(world, "/histogram_by_state")).json
    assert histogram["email"] == {"active": 3, "unconfirmed": 1, "quarantined": 0, "total": 4}


def test_count_is_statuspages_count_by_type_with_its_filters(world):
    for address in ("a@example.com", "b@example.com"):
        subscribe(world, {"email": address, "skip_confirmation_notification": True})
    subscribe(world, {"email": "pending@example.com"})
    subscribe(world, {"phone_country": "US", "phone_number": "4155550100"})
    nothing = {"email": 0, "sms": 0, "webhook": 0, "integration_partner": 0, "slack": 0, "teams": 0}
    nothing |= {"discord": 0, "google_chat": 0}  # extensions: chat subscribers

    def count(query=""):
        answer = world.api.get(subscribers_path(world, "/count" + query))
        assert answer.status == 200, answer.text
        return answer.json

    assert count() == {**nothing, "email": 2, "sms": 1}  # active by default
    assert count("?state=all") == {**nothing, "email": 3, "sms": 1}
    assert count("?state=unconfirmed") == {**nothing, "email": 1}
    assert count("?type=email") == {**nothing, "email": 2}
    assert count("?type=slack") == nothing
    assert world.api.get(subscribers_path(world, "/count?type=pigeon")).status == 422
    assert world.api.get(subscribers_path(world, "/count?state=gone")).status == 422


def test_delete_returns_the_subscriber_and_lists_it_as_unsubscribed(world):
    subscriber = subscribe(world, {"email": "bye@example.com"}).json
    answer = world.api.delete(subscribers_path(world, f"/{subscriber['id']}.json"))
    assert answer.status == 200
    assert answer.json["id"] == subscriber["id"]
    assert world.api.get(subscribers_path(world, f"/{subscriber['id']}")).status == 404
    assert [s["id"] for s in world.api.get(subscribers_path(world, "/unsubscribed")).json] == [
        subscriber["id"]
    ]


def test_batch_unsubscribe_and_reactivate(world):
    from chalicelib.domain import subscribers

    ids = [
        subscribe(
            world, {"email": f"{n}@example.com", "skip_confirmation_notification": True}
        ).json["id"]
        for n in range(3)
    ]
    for subscriber_id in ids[:2]:
        subscribers.quarantine_by_id(world.page_id, subscriber_id)
    assert len(world.api.get(subscribers_path(world, "?state=quarantined")).json) == 2
    answer = world.api.post(subscribers_path(world, "/reactivate"), {"subscribers": [ids[0]]})
    assert answer.status == 204
    assert len(world.api.get(subscribers_path(world, "?state=quarantined")).json) == 1
    assert (
        world.api.post(subscribers_path(world, "/reactivate"), {"subscribers": "all"}).status == 204
    )
    assert world.api.get(subscribers_path(world, "?state=quarantined")).json == []
    assert (
        world.api.post(
            subscribers_path(world, "/unsubscribe"), {"subscribers": "all", "type": "email"}
        ).status
        == 204
    )
    assert world.api.get(subscribers_path(world)).json == []


def test_resend_confirmation(world):
    subscriber = subscribe(world, {"email": "again@example.com"}).json
    before = len(sent_mail())
    assert (
        world.api.post(subscribers_path(world, f"/{subscriber['id']}/resend_confirmation")).status
        == 200
    )
    assert (
        world.api.post(
            subscribers_path(world, "/resend_confirmation"), {"subscribers": [subscriber["id"]]}
        ).status
        == 200
    )
    assert len(sent_mail()) == before + 2


def test_component_subscription_and_patch(world):
    component = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "API"}}
    ).json
    other = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": "Web"}}
    ).json
    answer = subscribe(
        world, {"email": "comp@example.com", "component_ids": [component["id"]]}, form=True
    )
    assert answer.status == 201, answer.text
    assert answer.json["components"] == [component["id"]]
    patched = world.api.patch(
        subscribers_path(world, f"/{answer.json['id']}"), {"component_ids": [other["id"]]}
    )
    assert patched.status == 200, patched.text
    assert patched.json["components"] == [other["id"]]


def test_incident_subscribers(world):
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}}
    ).json
    path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/subscribers"
    created = world.api.post(path + ".json", {"subscriber": {"email": "inc@example.com"}})
    assert created.status == 201, created.text
    assert created.json["incident_id"] == incident["id"]
    listed = world.api.get(path + "?state=all").json
    assert [s["id"] for s in listed] == [created.json["id"]]
    assert world.api.get(f"{path}/{created.json['id']}").status == 200
    assert world.api.delete(f"{path}/{created.json['id']}.json").status == 200
    assert (
        world.api.post(
            f"/v1/pages/{world.page_id}/incidents/nosuch/subscribers",
            {"subscriber": {"email": "a@example.com"}},
        ).status
        == 404
    )


@pytest.mark.parametrize("prefix", ["/v0", "/v1"])
def test_organization_level_subscribers(world, prefix):
    base = f"{prefix}/organizations/{world.organization_id}"
    created = world.api.post(
        f"{base}/subscribers.json",
        {"subscriber": {"email": "org@example.com", "skip_confirmation_notification": True}},
    )
    assert created.status == 201, created.text
    assert created.json["id"] in [s["id"] for s in world.api.get(f"{base}/subscribers.json").json]
    deleted = world.api.delete(f"{base}/subscribers/{created.json['id']}.json")
    assert deleted.status == 200


def incident_manager_api(world):
    """A member of the world's organization who may manage incidents on its page, no more."""
    from chalicelib.domain import organizations

    member = organizations.create_user(world.organization_id, "incidents@example.com")
    organizations.set_page_roles(
        member, {world.page_id: {"incident_manager": True, "page_configuration": False}}
    )
    return world.api.as_key(organizations.create_api_key(member))


@pytest.mark.parametrize("prefix", ["/v0", "/v1"])
def test_organization_level_subscriber_writes_need_the_page_level_role(world, prefix):
    member_api = incident_manager_api(world)
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}}
    ).json
    base = f"{prefix}/organizations/{world.organization_id}"
    incident_base = f"{base}/incidents/{incident['id']}"
    subscriber = {"subscriber": {"email": "org@example.com"}}
    page_level = subscribe(world, {"email": "page@example.com"}).json
    incident_level = world.api.post(f"{incident_base}/subscribers.json", subscriber).json

    assert member_api.post(subscribers_path(world), subscriber).status == 403
    assert member_api.post(f"{base}/subscribers.json", subscriber).status == 403
    assert member_api.post(f"{incident_base}/subscribers.json", subscriber).status == 403
    assert member_api.delete(f"{base}/subscribers/{page_level['id']}.json").status == 403
    assert (
        member_api.delete(f"{incident_base}/subscribers/{incident_level['id']}.json").status == 403
    )
    assert member_api.get(f"{base}/subscribers.json?state=all").status == 200
    listed = world.api.get(subscribers_path(world, "?state=all")).json
    assert {s["id"] for s in listed} == {page_level["id"], incident_level["id"]}


def test_another_organizations_subscribers_are_404(make_world):
    mine, theirs = make_world(), make_world()
    subscriber = subscribe(theirs, {"email": "theirs@example.com"}).json
    assert mine.api.get(f"/v1/pages/{theirs.page_id}/subscribers").status == 404
    assert mine.api.get(f"/v1/pages/{mine.page_id}/subscribers/{subscriber['id']}").status == 404
    assert (
        mine.api.get(f"/v0/organizations/{theirs.organization_id}/subscribers.json").status == 404
    )


def test_sms_countries_need_no_key(world):
    answer = world.api.as_key(None).get("/sms_countries.json")
    assert answer.status == 200
    assert {"code": "US", "name": "United States", "calling_code": "+1"} in answer.json


def test_unsubscribe_link_works_without_login(world):
    from chalicelib.domain import subscribers
    from chalicelib.store.subscribers import Subscriber

    created = subscribe(
        world, {"email": "link@example.com", "skip_confirmation_notification": True}
    ).json
    link = subscribers.unsubscribe_link(Subscriber.get(world.page_id, created["id"]))
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    assert world.api.as_key(None).get(path).status == 200  # the question: nothing changes
    assert world.api.get(subscribers_path(world, f"/{created['id']}")).status == 200
    assert world.api.as_key(None).post(path).status == 200
    assert world.api.get(subscribers_path(world, f"/{created['id']}")).status == 404


def test_moto_ses_has_a_verified_sender(aws):
    identities = boto3.client("ses", region_name="us-east-1").list_identities()["Identities"]
    assert "notifications@statuspage.local" in identities


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://169.254.169.254/latest/meta-data/",  # the cloud's metadata service
        "http://127.0.0.1:8000/hook",  # the stack itself
        "http://10.1.2.3/hook",  # a private network
        "http://100.64.0.1/hook",
        "http://[2002:a9fe:a9fe::]/latest/meta-data/",
    ],
)
def test_webhooks_to_internal_addresses_are_refused_without_the_private_targets_setting(
    world, monkeypatch, endpoint
):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")
    answer = subscribe(world, {"endpoint": endpoint, "email": "ops@example.com"})
    assert answer.status == 422, answer.text
    assert list(answer.json["errors"]) == ["endpoint"]


def test_an_address_the_mail_service_refuses_never_fails_the_request(world, caplog):
    # Found by fuzzing: control characters in the domain passed validation, SES refused the
    # confirmation ("Missing domain") and the create answered 500.
    path = f"/v1/pages/{world.page_id}/subscribers"
    refused = world.api.post(path, {"subscriber": {"email": "someone@exa\x10mple.com"}})
    assert refused.status == 422, refused.text
    assert "email" in refused.json["errors"]
    odd = world.api.post(path, {"subscriber": {"email": "someone@exa\u0081mple.com"}})
    assert odd.status == 201, odd.text
    assert "not sent" in caplog.text


def test_a_taken_address_is_refused_at_the_first_try(world):
    # The address's claim is a put, sent after the deletes and before the updates whatever
    # order the writes were staged in: its failure must be read as the claim's, not retried.
    assert subscribe(world, {"email": "once@example.com"}).status == 201
    with recording() as calls:
        again = subscribe(world, {"email": "once@example.com"})
    assert again.status == 422
    assert calls.count("TransactWriteItems") == 1


@pytest.mark.parametrize(
    "address",
    ["a@[127.0.0.1]", "a@127.0.0.1", "a@localhost", "a@x..com", "a@-x.com", "a@x.123"],
)
def test_an_email_is_a_mailbox_on_a_domain_name_wherever_one_is_taken(world, address):
    """One rule for the API's subscribers, its users and page access users, and the public
    form (which takes the API's schema)."""
    answers = {
        "subscriber": subscribe(world, {"email": address}),
        "user": world.api.post(
            f"/v1/organizations/{world.organization_id}/users",
            {"user": {"email": address, "password": "a long enough password"}},
        ),
        "page access user": world.api.post(
            f"/v1/pages/{world.page_id}/page_access_users",
            {"page_access_user": {"email": address}},
        ),
        "public form": world.api.client.http.request(
            "POST",
            f"/s/{world.page_id}/api/v2/subscribers.json",
            headers={"Content-Type": "application/json"},
            body=json.dumps({"subscriber": {"email": address}}).encode(),
        ),
    }
    for where, answer in answers.items():
        status = getattr(answer, "status", None) or answer.status_code
        assert status == 422, (where, address)
