"""`HEAD` answers as `GET` without a body; `/favicon.ico` is always an icon."""

import pytest

from tests.public.conftest import publish, update_page

VIEWS = ["", "/history", "/api/v2/summary.json", "/history.rss", "/embed/status.js"]


@pytest.mark.parametrize("suffix", VIEWS)
def test_head_answers_as_get_without_a_body(world, visitor, suffix):
    publish(world)
    got = visitor.get(suffix)
    head = visitor.api.request("HEAD", f"/s/{world.page_id}{suffix}")
    assert (head.status, head.text) == (200, "")
    for name in ("Content-Type", "ETag", "Cache-Control"):
        assert head.headers[name] == got.headers[name]


def test_head_of_a_missing_page_is_its_404(world, visitor):
    head = visitor.api.request("HEAD", "/s/nosuchpage")
    assert (head.status, head.text) == (404, "")


def test_head_at_the_root_of_a_custom_domain(world, visitor):
    domain = f"head-{world.page_id}.example.org"
    update_page(world, domain=domain)
    publish(world)
    head = visitor.api.request("HEAD", "/", headers={"Host": domain})
    assert (head.status, head.text) == (200, "")


def test_favicon_is_a_default_icon_in_the_pages_green(world, visitor):
    update_page(world, css_greens="#123456")
    publish(world)
    answer = visitor.get("/favicon.ico")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "image/svg+xml"
    assert 'fill="#123456"' in answer.text
    assert f'href="/s/{world.page_id}/favicon.ico"' in visitor.get("").text


def test_favicon_of_a_page_with_its_own_goes_there(world, visitor):
    from chalicelib.store.models import Page

    # The API serves `favicon_logo` but takes no upload; an operator sets it in the profile.
    page = Page.get(world.page_id)
    page.update(actions=[Page.profile["favicon_logo"].set("https://cdn.example.org/icon.png")])
    publish(world)
    answer = visitor.get("/favicon.ico")
    assert answer.status == 302
    assert answer.headers["Location"] == "https://cdn.example.org/icon.png"


def test_favicon_at_a_host_without_a_page_is_the_default_icon(world, visitor):
    for host in ("127.0.0.1:8000", "nobody.example.org"):
        answer = visitor.api.get("/favicon.ico", headers={"Host": host})
        assert answer.status == 200
        assert answer.headers["Content-Type"] == "image/svg+xml"
        assert answer.text.startswith("<svg")
    head = visitor.api.request("HEAD", "/favicon.ico")
    assert (head.status, head.text) == (200, "")


def test_a_private_pages_favicon_is_the_default_one(world, visitor):
    update_page(world, viewers_must_be_team_members=True, css_greens="#123456")
    publish(world)
    answer = visitor.get("/favicon.ico")
    assert answer.status == 200
    assert "#123456" not in answer.text
