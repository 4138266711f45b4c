"""Security headers of the public pages: a content security policy, no sniffing, a referrer
policy, and no framing except for the embed script, whose point is to run on other sites."""

import base64
import hashlib
import re

import pytest

from tests.public.conftest import make_component, make_incident, publish, update_page


def policy_of(answer) -> dict[str, str]:
    directives = [part.strip() for part in answer.headers["Content-Security-Policy"].split(";")]
    return {part.split(" ", 1)[0]: part.partition(" ")[2] for part in directives if part}


def style_hashes(html: str) -> set[str]:
    return {
        "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
        for style in re.findall(r"<style>(.*?)</style>", html, re.DOTALL)
    }


def assert_common(answer):
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"


def script_hashes(html: str) -> set[str]:
    return {
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    }


@pytest.mark.parametrize("suffix", ["", "/history", "/incidents/{incident}", "/incidents/nosuch"])
def test_html_pages_run_only_their_own_script_and_are_never_framed(world, visitor, suffix):
    make_component(world, "API")
    incident = make_incident(world, "Slow", body="Looking")
    publish(world)
    answer = visitor.get(suffix.format(incident=incident["id"]))
    assert answer.headers["Content-Type"].startswith("text/html")
    assert_common(answer)
    policy = policy_of(answer)
    assert policy["default-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    # The page's own inline script (the bars', charts' and history's), by hash, or none at
    # all (default-src 'none'): never one from elsewhere, never any inline one.
    assert "<script src" not in answer.text
    if "<script>" in answer.text:
        assert set(policy["script-src"].split()) == script_hashes(answer.text)
    else:
        assert "script-src" not in policy
    assert "unsafe-inline" not in answer.headers["Content-Security-Policy"]
    # The page's own style elements are allowed, by hash, and nothing else.
    assert set(policy["style-src"].split()) == style_hashes(answer.text)
    assert answer.headers["X-Frame-Options"] == "DENY"


def test_the_private_page_refusal_has_the_headers_too(world, visitor):
    update_page(world, viewers_must_be_team_members=True)
    publish(world)
    answer = visitor.get("")
    assert answer.status == 401
    assert_common(answer)
    assert policy_of(answer)["frame-ancestors"] == "'none'"


@pytest.mark.parametrize("suffix", ["/api/v2/summary.json", "/history.rss", "/history.atom"])
def test_data_is_not_sniffed_or_framed(world, visitor, suffix):
    publish(world)
    answer = visitor.get(suffix)
    assert answer.status == 200
    assert_common(answer)
    assert policy_of(answer) == {"default-src": "'none'", "frame-ancestors": "'none'"}


def test_the_embed_script_may_be_used_by_other_sites(world, visitor):
    publish(world)
    answer = visitor.get("/embed/status.js")
    assert answer.status == 200
    assert_common(answer)
    assert "frame-ancestors" not in answer.headers.get("Content-Security-Policy", "")
    assert "X-Frame-Options" not in answer.headers
    assert answer.headers["Cross-Origin-Resource-Policy"] == "cross-origin"


def test_a_custom_domain_gets_the_same_headers(world, visitor):
    domain = f"headers-{world.page_id}.example.org"
    update_page(world, domain=domain)
    publish(world)
    answer = visitor.api.get("/", headers={"Host": domain})
    assert answer.status == 200
    assert_common(answer)
    assert policy_of(answer)["frame-ancestors"] == "'none'"


def test_a_script_element_not_of_the_service_is_never_allowed():
    """The policy names the hashes of the service's own scripts found whole in the page, not
    of whatever a <script> element holds: injected markup gets no script to run."""
    from chalicelib.web import security

    policy = security.for_html("<p>Hi</p><script>alert(1)</script>")["Content-Security-Policy"]
    assert "script-src" not in policy
