"""Every URL a client gives is read once (`chalicelib.net.parsed`): a port out of range, a
malformed host or another scheme is a 422 naming the field, where it was a 500 (urlsplit
leaves the port to `.port`, which raises), and with private targets allowed (as here) such a
URL was stored, then raised at every use."""

import pytest

from chalicelib import net

BAD_URLS = [
    "http://127.0.0.1:99999/x",
    "http://127.0.0.1:0/x",
    "http://127.0.0.1:-1/x",
    "http://127.0.0.1:8x/x",
    "http://exa mple.com/x",
    "http://a..b/x",
    "http://[::1/x",
    "ftp://example.com/x",
    "javascript:alert(1)",
    "http:///x",
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_the_parser_refuses_what_cannot_be_called(url):
    assert net.parsed(url) is None
    assert net.may_call(url) is False  # private targets are allowed here: the form decides


def test_the_parser_gives_the_scheme_host_and_port():
    assert net.parsed("https://Example.com/a?b")[:3] == ("https", "example.com", 443)
    assert net.parsed("http://[::1]:8080/")[:3] == ("http", "::1", 8080)
    assert net.parsed("http://127.0.0.1:65535/")[:3] == ("http", "127.0.0.1", 65535)


def _subscribers(world) -> str:
    return f"/v1/pages/{world.page_id}/subscribers"


def _component(world) -> dict:
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": "C"}})
    assert answer.status == 201, answer.text
    return answer.json


@pytest.mark.parametrize("url", BAD_URLS[:3] + BAD_URLS[4:6])
def test_every_route_that_takes_a_url_answers_422_naming_it(world, url):
    answers = {
        "endpoint": world.api.post(
            _subscribers(world), {"subscriber": {"endpoint": url, "email": "ops@example.com"}}
        ),
        "chat_webhook_url": world.api.post(
            _subscribers(world),
            {"subscriber": {"chat_webhook_url": url, "chat_platform": "slack"}},
        ),
        "url": world.api.post(
            f"/v1/pages/{world.page_id}/components/{_component(world)['id']}/checks",
            {"check": {"url": url}},
        ),
        "third_party.summary_url": world.api.post(
            f"/v1/pages/{world.page_id}/components",
            {"component": {"name": "V", "third_party": {"summary_url": url, "component_id": "x"}}},
        ),
        "support_url": world.api.patch(
            f"/v1/pages/{world.page_id}", {"page": {"support_url": url}}
        ),
    }
    for field, answer in answers.items():
        assert answer.status == 422, (field, answer.text)
        assert field in answer.json["errors"], (field, answer.json)
