"""The HTML status page, incident page and history, as a visitor's browser receives them."""

from datetime import UTC, datetime

import pytest

from chalicelib import clock
from tests.public.conftest import (
    MAINTENANCE_WINDOW,
    make_component,
    make_group,
    make_incident,
    publish,
    update_page,
)

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def frozen_clock():
    def at(moment: datetime) -> datetime:
        clock.freeze(moment)
        return moment

    yield at
    clock.freeze(None)


def test_page_shows_status_components_incidents_and_maintenances(world, visitor):
    update_page(world, headline="Everything about Acme")
    api, db = make_component(world, "API"), make_component(world, "Database")
    make_group(world, "Core services", [api["id"], db["id"]])
    make_component(world, "Website")
    make_incident(world, "API is down", body="We are on it", components={api["id"]: "major_outage"})
    make_incident(
        world,
        "Database upgrade",
        status="scheduled",
        scheduled_for="2099-01-01T00:00:00Z",
        scheduled_until="2099-01-01T02:00:00Z",
    )
    publish(world)
    page = visitor.get("")
    assert page.status == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    text = page.text
    assert "<h1><a href=" in text and "Acme</a></h1>" in text
    assert "Everything about Acme" in text
    assert "Major System Outage" in text
    for name in ("Core services", "API", "Database", "Website", "API is down", "Database upgrade"):
        assert name in text
    assert "We are on it" in text
    assert "Major Outage" in text and "Operational" in text
    assert "Past Incidents" in text
    # One script, the page's own and inline (it adds keyboard and touch reading of the bars
    # and charts); everything it shows is in the markup, for readers without JavaScript.
    assert text.count("<script") == 1 and "<script src" not in text


def test_scheduled_maintenance_comes_above_the_components(world, visitor):
    """Tomorrow's maintenance is read before the component list, as on Statuspage, and
    after the open incidents."""
    api = make_component(world, "API")
    make_incident(world, "API is down", components={api["id"]: "major_outage"})
    make_incident(world, "Database upgrade", status="scheduled", **MAINTENANCE_WINDOW)
    publish(world)
    text = visitor.get("").text
    order = ["open-incidents", "upcoming-maintenances", 'id="components"', "past-incidents"]
    positions = [text.index(mark) for mark in order]
    assert positions == sorted(positions)


def test_the_page_name_links_to_the_company_website(world, visitor):
    """The owner's "Company website" is where the page's name leads; the footer's "Current
    status" still leads back to the page."""
    make_component(world, "API")
    publish(world)
    assert '<h1><a href="/s/' in visitor.get("").text
    update_page(world, name="Acme", url="https://acme.example/?a=1&b=2")
    publish(world)
    text = visitor.get("").text
    assert '<h1><a href="https://acme.example/?a=1&amp;b=2">Acme</a></h1>' in text
    assert ">Current status</a>" in text


def test_user_written_text_is_escaped(world, visitor):
    update_page(world, headline=XSS)
    make_component(world, XSS)
    make_incident(world, XSS, body="<script>alert(2)</script>**bold**")
    publish(world)
    text = visitor.get("").text
    assert XSS not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "<script>alert(2)" not in text
    assert "<strong>bold</strong>" in text


def test_custom_colors_reach_the_style_sheet(world, visitor):
    update_page(world, css_greens="#00aa11", css_body_background_color="#fafafa")
    publish(world)
    text = visitor.get("").text
    assert "--greens: #00aa11;" in text
    assert "--body-bg: #fafafa;" in text
    assert "prefers-color-scheme: dark" in text
    assert 'name="viewport"' in text


def test_hidden_from_search_adds_robots_noindex(world, visitor):
    assert 'name="robots"' not in visitor.get("").text
    update_page(world, hidden_from_search=True)
    publish(world)
    assert '<meta name="robots" content="noindex, nofollow">' in visitor.get("").text


def test_times_are_shown_in_the_page_time_zone(world, visitor, frozen_clock):
    frozen_clock(datetime(2030, 6, 1, 12, 30, tzinfo=UTC))
    update_page(world, time_zone="Asia/Tokyo")
    make_incident(world, "Late night issue", body="Investigating")
    publish(world)
    text = visitor.get("").text
    assert "Jun 1, 2030 - 21:30 JST" in text
    assert "Times are shown in Asia/Tokyo." in text


KINDS = ("email", "sms", "webhook")


def test_subscribe_forms_follow_the_page_settings(world, visitor):
    def form_fields() -> str:
        return "".join(visitor.get(f"/subscribe?via={kind}").text for kind in KINDS)

    text = visitor.get("").text
    assert "by email, text message, webhook" in text
    for field in ("subscriber[email]", "subscriber[phone_number]", "subscriber[endpoint]"):
        assert f'name="{field}"' in form_fields()
    assert "history.rss" in text and "history.atom" in text
    update_page(world, allow_sms_subscribers=False, allow_rss_atom_feeds=False)
    publish(world)
    text = visitor.get("").text
    assert 'name="subscriber[phone_number]"' not in form_fields()
    assert 'name="subscriber[email]"' in form_fields()
    assert "history.rss" not in text
    update_page(world, allow_page_subscribers=False)
    publish(world)
    assert 'id="subscribe"' not in visitor.get("").text


def test_only_show_if_degraded_hides_healthy_components(world, visitor):
    hidden = make_component(world, "Quiet service", only_show_if_degraded=True)
    publish(world)
    assert "Quiet service" not in visitor.get("").text
    world.api.patch(
        f"/v1/pages/{world.page_id}/components/{hidden['id']}",
        {"component": {"status": "partial_outage"}},
    )
    publish(world)
    assert "Quiet service" in visitor.get("").text


def test_showcased_components_have_uptime_bars(world, visitor):
    make_component(world, "Shown", showcase=True)
    make_component(world, "Not shown", showcase=False)
    publish(world)
    text = visitor.get("").text
    assert text.count('class="bars"') == 1
    assert text.count('class="bar level-') == 90
    assert "100.0 % uptime" in text


def test_incident_page_shows_timeline_and_published_postmortem(world, visitor):
    incident = make_incident(world, "Slow checkout", body="Investigating the slowness")
    path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}"
    world.api.patch(path, {"incident": {"status": "resolved", "body": "Fixed it"}})
    world.api.put(
        path + "/postmortem",
        {"postmortem": {"body_draft": "## Root cause\nA <script>alert(3)</script>cache"}},
    )
    publish(world)
    draft_only = visitor.get(f"/incidents/{incident['id']}").text
    assert "Root cause" not in draft_only  # a draft is not public
    assert world.api.put(path + "/postmortem/publish", {"postmortem": {}}).status == 200
    publish(world)
    page = visitor.get(f"/incidents/{incident['id']}")
    assert page.status == 200
    text = page.text
    assert "Slow checkout" in text
    assert text.index("Fixed it") < text.index("Investigating the slowness")
    assert "<h2>Root cause</h2>" in text
    assert "alert(3)" not in text


def test_unknown_incident_is_404_on_the_page_with_the_way_back(world, visitor):
    update_page(world, name="Acme <Cloud>")
    publish(world)
    answer = visitor.get("/incidents/nosuchincident01")
    assert answer.status == 404
    assert answer.headers["Content-Type"].startswith("text/html")
    assert "There is no status page here." not in answer.text
    assert "Page not found" in answer.text and "Acme &lt;Cloud&gt;" in answer.text
    assert f'<a href="/s/{world.page_id}" id="notice-link">See the current status</a>' in (
        answer.text
    )


def test_an_address_of_no_page_says_so(world, visitor):
    answer = visitor.api.get("/s/nosuchpage/incidents/nosuchincident01")
    assert answer.status == 404
    assert "There is no status page here." in answer.text


def test_history_pages_by_month(world, visitor, frozen_clock):
    frozen_clock(datetime(2030, 3, 10, tzinfo=UTC))
    make_incident(world, "March trouble", status="resolved")
    frozen_clock(datetime(2030, 5, 2, tzinfo=UTC))
    make_incident(world, "May trouble", status="resolved")
    publish(world)
    current = visitor.get("/history").text
    assert "May 2030" in current and "May trouble" in current
    assert "March trouble" not in current
    assert "?month=2030-04" in current
    march = visitor.get("/history?month=2030-03").text
    assert "March trouble" in march and "May trouble" not in march
    assert 'href="/s/' in march and "history?month=2030-02" in march  # the pager goes back
    assert "No incidents reported this month." in visitor.get("/history?month=2030-04").text


def test_a_malformed_month_is_a_bad_request(world, visitor):
    assert visitor.get("/history?month=March").status == 400
