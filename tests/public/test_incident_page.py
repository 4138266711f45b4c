"""An incident's page (issue 32, item 7): what it affects, in the tense of its state; its
updates as a list without numbers; and, while it is open, a form to follow it alone."""

import re

from chalicelib.domain import subscribers
from tests.public.conftest import make_component, make_incident, publish, update_page
from tests.public.test_subscription_flow import assert_public_html, post_form
from tests.sent_mail import sent_mail


def incident_path(world, incident: dict) -> str:
    return f"/v1/pages/{world.page_id}/incidents/{incident['id']}"


def test_an_open_incident_affects_and_a_resolved_one_affected(world, visitor):
    api = make_component(world, "API")
    incident = make_incident(world, "API down", components={api["id"]: "major_outage"})
    publish(world)
    page = visitor.get(f"/incidents/{incident['id']}").text
    assert "This incident affects: API" in page
    assert "affected:" not in page
    resolved = world.api.patch(incident_path(world, incident), {"incident": {"status": "resolved"}})
    assert resolved.status == 200
    publish(world)
    page = visitor.get(f"/incidents/{incident['id']}").text
    assert "This incident affected: API" in page
    assert "affects:" not in page


def test_a_maintenance_affects_until_it_is_completed(world, visitor):
    api = make_component(world, "API")
    maintenance = make_incident(
        world,
        "Database upgrade",
        status="scheduled",
        scheduled_for="2099-01-01T00:00:00Z",
        scheduled_until="2099-01-01T02:00:00Z",
        component_ids=[api["id"]],
    )
    publish(world)
    assert "This maintenance affects: API" in visitor.get(f"/incidents/{maintenance['id']}").text
    done = world.api.patch(incident_path(world, maintenance), {"incident": {"status": "completed"}})
    assert done.status == 200
    publish(world)
    assert "This maintenance affected: API" in visitor.get(f"/incidents/{maintenance['id']}").text


def test_updates_are_a_list_without_numbers(world, visitor):
    incident = make_incident(world, "Slow", body="Looking")
    world.api.patch(incident_path(world, incident), {"incident": {"body": "Found it"}})
    world.api.patch(incident_path(world, incident), {"incident": {"body": "Fixing it"}})
    publish(world)
    page = visitor.get(f"/incidents/{incident['id']}").text
    assert "<ol" not in page  # an ordered list numbers them: "3. 2. 1."
    timeline = re.search(r'<ul class="timeline"[^>]*>(.*?)</ul>', page, re.DOTALL).group(1)
    assert timeline.count('<li class="update">') == 3
    assert timeline.index("Fixing it") < timeline.index("Found it") < timeline.index("Looking")
    # A list for the reader of the markup, no marker for the eye.
    assert re.search(r"\.timeline \{[^}]*list-style: none", page)


def test_an_open_incident_offers_to_follow_it_alone(world, visitor):
    incident = make_incident(world, "API down", body="Looking")
    publish(world)
    page = visitor.get(f"/incidents/{incident['id']}").text
    action = f"/s/{world.page_id}/incidents/{incident['id']}/subscribe?via=email"
    assert "Subscribe to this incident" in page
    assert f'action="{action}"' in page
    assert "?via=sms" in page  # by text message too, as the page allows it
    before = len(sent_mail())
    email = f"follower-{world.page_id}@example.com"
    answer = post_form(visitor, action, [("subscriber[email]", email)])
    assert answer.status == 200, answer.text
    assert_public_html(answer)
    assert "Check your email" in answer.text and "subscription to this incident" in answer.text
    (mail,) = sent_mail()[before:]
    assert mail.to == [email]
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed", text=email)
    assert subscriber.incident_id == incident["id"]
    assert list(subscriber.component_ids or []) == []
    listed = world.api.get(f"{incident_path(world, incident)}/subscribers?state=all")
    assert [found["email"] for found in listed.json] == [email]


def test_a_bad_incident_subscription_is_a_422_on_the_incident_page(world, visitor):
    incident = make_incident(world, "API down", body="Looking")
    publish(world)
    action = f"/s/{world.page_id}/incidents/{incident['id']}/subscribe?via=email"
    answer = post_form(visitor, action, [("subscriber[email]", "<b>not-an-address")])
    assert answer.status == 422
    assert_public_html(answer)
    assert 'id="incident-subscribe-errors"' in answer.text
    assert "API down" in answer.text  # the incident's page again, with what is wrong
    assert "&lt;b&gt;not-an-address" in answer.text and "<b>not-an-address" not in answer.text


def test_no_form_to_follow_a_resolved_incident_or_when_the_page_forbids_it(world, visitor):
    open_one = make_incident(world, "API down", body="Looking")
    resolved = make_incident(world, "Fixed already", status="resolved", body="Fixed")
    publish(world)
    assert 'id="incident-subscribe"' not in visitor.get(f"/incidents/{resolved['id']}").text
    update_page(world, allow_incident_subscribers=False)
    publish(world)
    assert 'id="incident-subscribe"' not in visitor.get(f"/incidents/{open_one['id']}").text
    action = f"/s/{world.page_id}/incidents/{open_one['id']}/subscribe?via=email"
    refused = post_form(visitor, action, [("subscriber[email]", "a@example.com")])
    assert refused.status == 404
    assert subscribers.listed(world.page_id, state="all", text="a@example.com") == []
