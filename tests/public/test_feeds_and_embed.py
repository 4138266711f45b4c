"""The RSS and Atom feeds (valid XML, only where allowed) and the embed script."""

import json
import re
import xml.etree.ElementTree as ElementTree

from tests.public.conftest import make_incident, publish, update_page

ATOM = "{http://www.w3.org/2005/Atom}"
WINDOW = {"scheduled_for": "2099-01-01T00:00:00Z", "scheduled_until": "2099-01-01T02:00:00Z"}


def test_rss_feed_parses_and_lists_incidents(world, visitor):
    backlog = make_incident(world, "Queue backlog <&>", body="Draining the queue")
    make_incident(world, "Earlier", status="resolved", body="All good")
    publish(world)
    answer = visitor.get("/history.rss")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/rss+xml")
    channel = ElementTree.fromstring(answer.text.encode()).find("channel")
    assert channel.findtext("title") == "Acme Status - Incident History"
    items = channel.findall("item")
    assert [item.findtext("title") for item in items] == ["Earlier", "Queue backlog <&>"]
    assert "Draining the queue" in items[1].findtext("description")
    assert items[1].findtext("link").endswith(f"/incidents/{backlog['id']}")
    assert items[0].findtext("pubDate").endswith("GMT")


def test_atom_feed_parses_and_lists_incidents(world, visitor):
    make_incident(world, "Login errors", body="Investigating")
    publish(world)
    answer = visitor.get("/history.atom")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/atom+xml")
    feed = ElementTree.fromstring(answer.text.encode())
    assert feed.tag == f"{ATOM}feed"
    assert feed.findtext(f"{ATOM}id")
    assert feed.findtext(f"{ATOM}updated")
    assert feed.find(f"{ATOM}author/{ATOM}name").text == "Acme"
    (entry,) = feed.findall(f"{ATOM}entry")
    assert entry.findtext(f"{ATOM}title") == "Login errors"
    assert entry.find(f"{ATOM}content").get("type") == "html"
    assert "Investigating" in entry.findtext(f"{ATOM}content")
    assert entry.find(f"{ATOM}link").get("href").startswith("http")


def test_feeds_are_404_unless_the_page_allows_them(world, visitor):
    update_page(world, allow_rss_atom_feeds=False)
    publish(world)
    assert visitor.get("/history.rss").status == 404
    assert visitor.get("/history.atom").status == 404


def embedded_state(script: str) -> dict:
    return json.loads(re.search(r"var state = (.*);\n", script).group(1))


def test_embed_script_is_quiet_when_all_is_well(world, visitor):
    answer = visitor.get("/embed/status.js")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/javascript")
    assert embedded_state(answer.text)["event"] is None


def test_embed_script_shows_an_open_incident_in_the_configured_colors(world, visitor):
    world.api.patch(
        f"/v1/pages/{world.page_id}/status_embed_config",
        {"status_embed_config": {"position": "top-left", "incident_background_color": "#112233"}},
    )
    incident = make_incident(world, "Payments failing </script><script>alert(1)</script>")
    publish(world)
    script = visitor.get("/embed/status.js").text
    assert "</script>" not in script
    state = embedded_state(script)
    assert state["event"]["kind"] == "incident"
    assert state["event"]["name"].startswith("Payments failing </script>")
    assert state["event"]["url"].endswith(f"/incidents/{incident['id']}")
    assert state["config"]["position"] == "top-left"
    assert state["config"]["incident_background_color"] == "#112233"
    assert "textContent" in script and "innerHTML" not in script


def test_embed_script_shows_maintenance_in_progress(world, visitor):
    make_incident(world, "Planned work", status="in_progress", **WINDOW)
    publish(world)
    state = embedded_state(visitor.get("/embed/status.js").text)
    assert state["event"]["kind"] == "maintenance"
    assert state["event"]["name"] == "Planned work"
