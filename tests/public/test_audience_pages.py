"""Audience-specific pages (issue 16, items 4-5): sign-in by an emailed, signed, expiring link;
each viewer sees the components, incidents and metrics granted to their user and groups; the
public JSON and feeds too; one snapshot shared by every audience."""

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from chalicelib.public import sign_in as sign_in_links
from tests.api.test_metrics import make_metric
from tests.dynamodb_calls import recording
from tests.public.conftest import make_component, make_group, make_incident, update_page
from tests.sent_mail import sent_mail

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def make_viewer(world, email, **fields):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_users",
        {"page_access_user": {"email": email, **fields}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def sign_in(visitor, email) -> dict:
    """Ask for the link, open it from the email: the cookie header it sets."""
    before = len(sent_mail())
    asked = visitor.api.post(
        f"/s/{visitor.page_id}/sign-in", urlencode({"email": email}), headers=FORM
    )
    assert asked.status == 200 and "Check your email" in asked.text
    mails = sent_mail()[before:]
    assert [mail.to for mail in mails] == [[email]]
    path = re.search(r"https?://[^/\s]+(/s/\S+/sign-in/\S+)", mails[0].body).group(1)
    assert visitor.api.get(path).status == 200  # the link's page: its button signs in
    opened = visitor.api.post(path, "", headers=FORM)
    assert opened.status == 303, opened.text
    assert opened.headers["Location"] == f"/s/{visitor.page_id}"
    cookie = opened.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    return {"Cookie": cookie.split(";")[0]}


def test_an_anonymous_reader_gets_the_sign_in_page_not_the_status(world, visitor):
    make_component(world, "Secret database")
    update_page(world, audience_specific=True)
    page = visitor.get("")
    assert page.status == 401
    assert f'action="/s/{world.page_id}/sign-in"' in page.text
    assert "Secret database" not in page.text
    assert page.headers["Cache-Control"] == "no-store"
    for suffix in ("/api/v2/summary.json", "/api/v2/components.json", "/history.rss"):
        refused = visitor.get(suffix)
        assert refused.status == 401 and "Secret" not in refused.text
    assert visitor.get("/sign-in").status == 200


def test_the_page_field_turns_access_control_on_and_off(world, visitor):
    assert world.api.get(f"/v1/pages/{world.page_id}").json["audience_specific"] is False
    assert update_page(world, audience_specific=True)["audience_specific"] is True
    assert visitor.get("").status == 401
    update_page(world, audience_specific=False)
    assert visitor.get("").status == 200
    assert visitor.get("/sign-in").status == 404


def test_each_viewer_sees_exactly_what_they_are_granted(world, visitor):
    api, db, web = (make_component(world, name) for name in ("API", "Database", "Website"))
    make_group(world, "Backend", [api["id"], db["id"]])
    group = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_groups",
        {"page_access_group": {"name": "Ops", "component_ids": [db["id"]]}},
    ).json
    make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    make_viewer(
        world, "bob@example.com", component_ids=[web["id"]], page_access_group_ids=[group["id"]]
    )
    make_incident(
        world, "Database down", component_ids=[db["id"]], components={db["id"]: "major_outage"}
    )
    update_page(world, audience_specific=True)
    alice, bob = sign_in(visitor, "alice@example.com"), sign_in(visitor, "bob@example.com")

    def names(cookie):
        summary = visitor.get("/api/v2/summary.json", headers=cookie)
        assert summary.status == 200, summary.text
        assert summary.headers["Cache-Control"] == "private, no-cache"
        return summary.json

    seen_by_alice, seen_by_bob = names(alice), names(bob)
    assert {c["name"] for c in seen_by_alice["components"]} == {"Backend", "API"}
    assert {c["name"] for c in seen_by_bob["components"]} == {"Backend", "Database", "Website"}
    assert seen_by_alice["incidents"] == [] and seen_by_alice["status"]["indicator"] == "none"
    assert [i["name"] for i in seen_by_bob["incidents"]] == ["Database down"]
    assert seen_by_bob["status"]["indicator"] == "critical"
    html_alice = visitor.get("", headers=alice)
    assert html_alice.status == 200 and "API" in html_alice.text
    assert "Database" not in html_alice.text and "Website" not in html_alice.text
    assert "Database down" in visitor.get("", headers=bob).text


def test_an_incident_a_viewer_cannot_see_is_not_found(world, visitor):
    api, db = make_component(world, "API"), make_component(world, "DB")
    incident = make_incident(world, "DB slow", component_ids=[db["id"]])
    make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    update_page(world, audience_specific=True)
    alice = sign_in(visitor, "alice@example.com")
    assert visitor.get(f"/incidents/{incident['id']}", headers=alice).status == 404
    assert "DB slow" not in visitor.get("/history", headers=alice).text


def test_metrics_are_shown_only_to_those_granted_them(world, visitor):
    metric = make_metric(world, name="Latency", display=True).json
    make_viewer(world, "alice@example.com", metric_ids=[metric["id"]])
    make_viewer(world, "bob@example.com")
    update_page(world, audience_specific=True)
    assert "Latency" in visitor.get("", headers=sign_in(visitor, "alice@example.com")).text
    assert "Latency" not in visitor.get("", headers=sign_in(visitor, "bob@example.com")).text


def test_unknown_addresses_get_the_same_answer_and_no_mail(world, visitor):
    update_page(world, audience_specific=True)
    before = len(sent_mail())
    asked = visitor.api.post(
        f"/s/{world.page_id}/sign-in", urlencode({"email": "nobody@example.com"}), headers=FORM
    )
    assert asked.status == 200 and "Check your email" in asked.text
    assert len(sent_mail()) == before


def test_links_and_cookies_expire_and_are_bound_to_their_page(
    world, make_world, visitor, freeze_clock
):
    from chalicelib import clock
    from chalicelib.public import audience
    from chalicelib.web import tokens

    user = make_viewer(world, "alice@example.com")
    update_page(world, audience_specific=True)
    stale = tokens.token(world.page_id, user["id"], audience.SIGN_IN, -timedelta(seconds=1))
    assert visitor.get(f"/sign-in/{stale}").status == 400
    cookie = sign_in(visitor, "alice@example.com")
    assert visitor.get("", headers=cookie).status == 200
    forged = {"Cookie": cookie["Cookie"][:-3] + "abc"}
    assert visitor.get("", headers=forged).status == 401
    freeze_clock(clock.now() + audience.SESSION_LIFETIME + timedelta(minutes=1))
    assert visitor.get("", headers=cookie).status == 401
    # a link for one page does not sign in to another
    other = make_world("Other")
    link = tokens.token(other.page_id, user["id"], audience.SIGN_IN, timedelta(minutes=5))
    assert visitor.get(f"/sign-in/{link}").status == 400


def test_a_deleted_user_is_signed_out(world, visitor):
    user = make_viewer(world, "alice@example.com")
    update_page(world, audience_specific=True)
    cookie = sign_in(visitor, "alice@example.com")
    world.api.delete(f"/v1/pages/{world.page_id}/page_access_users/{user['id']}")
    assert visitor.get("", headers=cookie).status == 401


def test_a_view_is_one_read_and_an_audience_shares_one_body(world, visitor):
    api = make_component(world, "API")
    make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    make_viewer(world, "carol@example.com", component_ids=[api["id"]])
    update_page(world, audience_specific=True)
    alice = sign_in(visitor, "alice@example.com")
    carol = sign_in(visitor, "carol@example.com")
    first = visitor.get("/api/v2/summary.json", headers=alice)
    with recording() as calls:
        second = visitor.get("/api/v2/summary.json", headers=carol)
    assert calls.summary() == {"BatchGetItem": 1}  # the snapshot and the viewer, together
    assert second.headers["ETag"] == first.headers["ETag"]  # one audience, one version


def subscribers_of(world):
    return world.api.get(f"/v1/pages/{world.page_id}/subscribers?state=all").json


def test_subscribe_to_components_subscribes_the_user_to_what_it_sees(world):
    api, db = make_component(world, "API"), make_component(world, "DB")
    user = make_viewer(
        world, "alice@example.com", component_ids=[api["id"]], subscribe_to_components=True
    )
    make_viewer(world, "bob@example.com", component_ids=[db["id"]])
    (subscriber,) = subscribers_of(world)
    assert subscriber["email"] == "alice@example.com"
    assert subscriber["components"] == [api["id"]]
    assert subscriber["page_access_user_id"] == user["id"]


def test_a_subscriber_of_an_audience_specific_page_names_its_page_access_user(world):
    api, db = make_component(world, "API"), make_component(world, "DB")
    user = make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    update_page(world, audience_specific=True)
    path = f"/v1/pages/{world.page_id}/subscribers.json"

    def create(**fields):
        body = {"subscriber": {"email": "reader@example.com", **fields}}
        return world.api.post(path, body, form=True)

    missing = create()
    assert missing.status == 422 and "page_access_user" in missing.json["errors"]
    unknown = create(page_access_user="nope")
    assert unknown.status == 422 and "page_access_user" in unknown.json["errors"]
    unseen = create(page_access_user=user["id"], component_ids=[db["id"]])
    assert unseen.status == 422 and "component_ids" in unseen.json["errors"]
    made = create(page_access_user=user["id"])
    assert made.status == 201, made.text
    assert made.json["components"] == [api["id"]]


def test_a_signed_in_reader_subscribes_as_itself(world, visitor):
    api = make_component(world, "API")
    user = make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    update_page(world, audience_specific=True)
    cookie = sign_in(visitor, "alice@example.com")
    answer = visitor.api.post(
        f"/s/{world.page_id}/subscribe",
        urlencode({"subscriber[email]": "alice@example.com"}),
        headers={**FORM, **cookie},
    )
    assert answer.status == 200, answer.text
    (subscriber,) = subscribers_of(world)
    assert subscriber["page_access_user_id"] == user["id"]
    assert subscriber["components"] == [api["id"]]


def test_sign_in_on_the_pages_own_domain(world, visitor, freeze_clock):
    api = make_component(world, "Checkout")
    make_component(world, "Billing")
    make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    # A domain of this test's own: tests of one worker share the claims table.
    domain = f"status-{world.page_id}.example.org"
    update_page(world, audience_specific=True, domain=domain)
    host = {"Host": domain}
    form = visitor.api.get("/", headers=host)
    assert form.status == 401 and 'action="/sign-in"' in form.text
    before = len(sent_mail())
    visitor.api.post(
        "/sign-in", urlencode({"email": "alice@example.com"}), headers={**FORM, **host}
    )
    (mail,) = sent_mail()[before:]
    path = re.search(rf"https://{re.escape(domain)}(/sign-in/\S+)", mail.body).group(1)
    assert visitor.api.get(path, headers=host).status == 200  # its page: a button
    opened = visitor.api.post(path, "", headers={**FORM, **host})
    assert opened.status == 303 and opened.headers["Location"] == "/"
    assert "Secure" in opened.headers["Set-Cookie"]  # the page's host is https
    cookie = {"Cookie": opened.headers["Set-Cookie"].split(";")[0]}
    # The two reads in one ten-minute bucket of the page's ETag (a run that crossed a bucket's
    # end between them got a new body, rightly).
    freeze_clock(datetime.now(UTC))
    page = visitor.api.get("/", headers={**host, **cookie})
    assert page.status == 200 and "Checkout" in page.text and "Billing" not in page.text
    assert set(page.headers["Vary"].split(", ")) == {"Host", "Cookie"}
    not_modified = visitor.api.get(
        "/", headers={**host, **cookie, "If-None-Match": page.headers["ETag"]}
    )
    assert not_modified.status == 304


def test_links_to_one_address_are_limited_known_or_not(world, visitor):
    update_page(world, audience_specific=True)
    make_viewer(world, "reader@example.com")
    before = len(sent_mail())
    for address in ("reader@example.com", "nobody@example.com"):
        answers = [
            visitor.api.post(
                f"/s/{world.page_id}/sign-in", urlencode({"email": address}), headers=FORM
            )
            for _ in range(sign_in_links.LINKS_A_MINUTE + 1)
        ]
        assert [answer.status for answer in answers[:-1]] == [200] * sign_in_links.LINKS_A_MINUTE
        refused = answers[-1]
        assert refused.status == 429 and "Wait a minute" in refused.text
        assert int(refused.headers["Retry-After"]) > 0
    mails = sent_mail()[before:]
    assert [mail.to for mail in mails] == [["reader@example.com"]] * sign_in_links.LINKS_A_MINUTE
    # Another address is counted apart.
    assert sign_in(visitor, make_viewer(world, "other@example.com")["email"])
