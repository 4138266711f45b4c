"""The feeds at the root of a page's own host link where the page's own address says
(issue 32, item 6): the same scheme, host and port as `summary.json`'s `page.url` there."""

import xml.etree.ElementTree as ElementTree

import pytest

from tests.public.conftest import make_incident, publish, update_page

ATOM = "{http://www.w3.org/2005/Atom}"


def feed_links(visitor, host: str) -> dict[str, list[str]]:
    """Every address each feed at the root of `host` gives."""
    headers = {"Host": host}
    rss = visitor.api.get("/history.rss", headers=headers)
    assert rss.status == 200, rss.text
    channel = ElementTree.fromstring(rss.text.encode()).find("channel")
    atom = visitor.api.get("/history.atom", headers=headers)
    assert atom.status == 200, atom.text
    feed = ElementTree.fromstring(atom.text.encode())
    return {
        "rss": [channel.findtext("link")]
        + [item.findtext(name) for item in channel.findall("item") for name in ("link", "guid")],
        "atom": [feed.findtext(f"{ATOM}id")]
        + [link.get("href") for link in feed.iter(f"{ATOM}link")]
        + [entry.findtext(f"{ATOM}id") for entry in feed.findall(f"{ATOM}entry")],
    }


def summary_url(visitor, host: str) -> str:
    return visitor.api.get("/api/v2/summary.json", headers={"Host": host}).json["page"]["url"]


@pytest.fixture(params=["published", "app"])
def answered_by(request):
    """Readers of a page that is not audience-specific get its files; the app answers the
    rest (audience-specific pages) with the same views."""
    if request.param == "app":
        request.getfixturevalue("app_views")
    return request.param


def test_feed_links_at_a_subdomain_root_keep_the_scheme_and_port(
    world, visitor, monkeypatch, answered_by
):
    monkeypatch.setenv("PUBLIC_BASE_URL", "http://127.0.0.1:8123")
    subdomain = f"acme-{world.page_id}"
    update_page(world, subdomain=subdomain)
    incident = make_incident(world, "Queue backlog", body="Draining the queue")
    publish(world)
    host = f"{subdomain}.localhost:8123"
    url = summary_url(visitor, host)
    assert url == f"http://{subdomain}.localhost:8123"
    links = feed_links(visitor, host)
    entry = f"{url}/incidents/{incident['id']}"
    assert links["rss"] == [url, entry, entry]
    assert links["atom"] == [f"{url}/history", url, f"{url}/history.atom", entry, entry]


def test_feed_links_at_a_custom_domain_root_are_the_domains(world, visitor, answered_by):
    domain = f"status-{world.page_id}.example.org"
    update_page(world, domain=domain)
    incident = make_incident(world, "Login errors", body="Investigating")
    publish(world)
    url = summary_url(visitor, domain)
    assert url == f"https://{domain}"
    links = feed_links(visitor, domain)
    entry = f"{url}/incidents/{incident['id']}"
    assert links["rss"] == [url, entry, entry]
    assert links["atom"] == [f"{url}/history", url, f"{url}/history.atom", entry, entry]
