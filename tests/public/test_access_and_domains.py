"""Who sees a page, and under which names: id, subdomain, custom domain (by `Host`)."""

import pytest

from tests.public.conftest import make_component, publish, update_page

PRIVATE_VIEWS = ["", "/history", "/api/v2/summary.json", "/history.rss", "/embed/status.js"]


@pytest.mark.parametrize("suffix", PRIVATE_VIEWS)
def test_team_only_page_is_not_public(world, visitor, suffix):
    update_page(world, viewers_must_be_team_members=True)
    publish(world)
    answer = visitor.get(suffix)
    assert answer.status == 401
    assert answer.headers["Cache-Control"] == "no-store"
    if answer.headers["Content-Type"].startswith("application/json"):
        assert answer.json == {"error": "Could not authenticate"}


def test_team_only_page_shows_a_plain_401_page(world, visitor):
    update_page(world, viewers_must_be_team_members=True)
    make_component(world, "Secret service")
    publish(world)
    answer = visitor.get("")
    assert answer.status == 401
    assert answer.headers["Content-Type"].startswith("text/html")
    assert "Secret service" not in answer.text


def test_custom_domain_serves_the_page_at_the_root(world, visitor):
    update_page(world, domain="status.example.org")
    make_component(world, "Checkout")
    publish(world)
    page = visitor.api.get("/", headers={"Host": "status.example.org"})
    assert page.status == 200
    assert "Checkout" in page.text
    assert 'href="/history"' in page.text  # links stay on the domain
    summary = visitor.api.get("/api/v2/summary.json", headers={"Host": "status.example.org:443"})
    assert summary.json["page"]["id"] == world.page_id
    assert summary.json["page"]["url"] == "https://status.example.org"
    assert summary.headers["Vary"].startswith("Host")


def test_a_host_that_is_no_page_domain_is_404(world, visitor):
    answer = visitor.api.get("/", headers={"Host": "nobody.example.org"})
    assert answer.status == 404


def test_a_domain_given_up_stops_serving(world, visitor):
    update_page(world, domain="old.example.org")
    publish(world)
    assert visitor.api.get("/", headers={"Host": "old.example.org"}).status == 200
    update_page(world, domain="new.example.org")
    publish(world)
    assert visitor.api.get("/", headers={"Host": "old.example.org"}).status == 404
    assert visitor.api.get("/", headers={"Host": "new.example.org"}).status == 200


def test_a_new_subdomain_is_served_and_the_old_one_removed(world, visitor, make_world):
    update_page(world, subdomain=f"before-{world.page_id}")
    publish(world)
    assert visitor.api.get(f"/s/before-{world.page_id}/api/v2/status.json").status == 200
    update_page(world, subdomain=f"after-{world.page_id}")
    publish(world)
    assert visitor.api.get(f"/s/before-{world.page_id}/api/v2/status.json").status == 404
    assert visitor.api.get(f"/s/after-{world.page_id}/api/v2/status.json").status == 200


def test_a_subdomain_shaped_like_another_page_id_cannot_take_that_page(world, make_world):
    other = make_world("Other")
    answer = other.api.patch(f"/v1/pages/{other.page_id}", {"page": {"subdomain": world.page_id}})
    assert answer.status == 200, answer.text
    publish(other)
    publish(world)
    shown = world.api.as_key(None).get(f"/s/{world.page_id}/api/v2/status.json")
    assert shown.json["page"]["id"] == world.page_id


def test_a_page_id_names_its_own_page_before_its_snapshot_exists(world, make_world):
    from chalicelib.store.snapshots import PAGE, PageSnapshot, key_of

    other = make_world("Other")
    answer = other.api.patch(f"/v1/pages/{other.page_id}", {"page": {"subdomain": world.page_id}})
    assert answer.status == 200, answer.text
    publish(other)
    PageSnapshot(key_of(PAGE, world.page_id)).delete()
    shown = world.api.as_key(None).get(f"/s/{world.page_id}/api/v2/status.json")
    assert shown.json["page"]["id"] == world.page_id


def test_every_page_is_served_at_the_root_of_its_subdomain_host(world, visitor):
    subdomain = f"acme-{world.page_id}"
    update_page(world, subdomain=subdomain)
    make_component(world, "Checkout")
    publish(world)
    host = f"{subdomain}.localhost:8000"  # PUBLIC_DOMAIN is `localhost` on the local stages
    page = visitor.api.get("/", headers={"Host": host})
    assert page.status == 200
    assert "Checkout" in page.text
    assert 'href="/history"' in page.text
    # What the status widget does: the page's host, then /api/v2/summary.json.
    summary = visitor.api.get("/api/v2/summary.json", headers={"Host": host})
    assert summary.status == 200
    assert summary.json["page"]["id"] == world.page_id
    assert summary.headers["Vary"].startswith("Host")
    assert visitor.api.get("/", headers={"Host": "nosuchpage.localhost"}).status == 404
    assert visitor.api.get("/", headers={"Host": f"x.{subdomain}.localhost"}).status == 404


def test_the_public_domain_is_a_setting(world, visitor, monkeypatch):
    subdomain = f"acme-{world.page_id}"
    update_page(world, subdomain=subdomain)
    publish(world)
    monkeypatch.setenv("PUBLIC_DOMAIN", "status.example.net")
    publish(world)
    host = f"{subdomain}.status.example.net"
    assert visitor.api.get("/api/v2/status.json", headers={"Host": host}).status == 200
    assert visitor.api.get("/", headers={"Host": f"{subdomain}.localhost"}).status == 404
    monkeypatch.setenv("PUBLIC_DOMAIN", "")
    publish(world)
    assert visitor.api.get("/", headers={"Host": host}).status == 404


def test_summary_page_url_is_the_subdomain_host_when_public_domain_is_set(
    world, visitor, monkeypatch
):
    subdomain = f"acme-{world.page_id}"
    monkeypatch.setenv("PUBLIC_BASE_URL", "https://status.example.net")
    monkeypatch.setenv("PUBLIC_DOMAIN", "status.example.net")
    update_page(world, subdomain=subdomain)
    publish(world)
    summary = visitor.get("/api/v2/summary.json").json
    assert summary["page"]["url"] == f"https://{subdomain}.status.example.net"

    monkeypatch.setenv("PUBLIC_BASE_URL", "http://127.0.0.1:8123")
    monkeypatch.setenv("PUBLIC_DOMAIN", "localhost")
    publish(world)
    summary = visitor.get("/api/v2/summary.json").json
    assert summary["page"]["url"] == f"http://{subdomain}.localhost:8123"

    monkeypatch.setenv("PUBLIC_DOMAIN", "")
    publish(world)
    summary = visitor.get("/api/v2/summary.json").json
    assert summary["page"]["url"] == f"http://127.0.0.1:8123/s/{subdomain}"
