"""The local stack writes no secret to its logs: an API key sent in the query (however its name
is encoded), the tokens of sign-in links and of subscription links."""

import http.client
import re

import pytest
import requests

from tests.e2e.stack import LocalStack, wait_for
from tests.sent_mail import Mail, sent_mail_over_http

pytestmark = pytest.mark.e2e

# Every way of writing `api_key` that authenticates (the app reads decoded names).
KEY_NAMES = ["api_key", "api%5Fkey", "%61pi_key", "api_k%65y"]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secret-logging")
    running = LocalStack(folder / "data", log=folder / "stack.log").start()
    yield running
    running.stop()


def mails_to(stack: LocalStack, address: str, count: int) -> list[Mail]:
    found: list[Mail] = []

    def arrived() -> bool:
        sent = sent_mail_over_http(f"http://127.0.0.1:{stack.moto_port}")
        found[:] = [mail for mail in sent if mail.to == [address]]
        return len(found) >= count

    assert wait_for(arrived, timeout=30), f"no mail to {address}"
    return found


def raw_get(stack: LocalStack, target: str) -> int:
    """GET `target` as written (`requests` would decode `%5F` and the like first)."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
    try:
        connection.request("GET", target)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def path_of(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def test_keys_and_link_tokens_never_reach_the_logs(stack):
    created = stack.admin("bootstrap")
    key, page_id = created["api_key"], created["page_id"]
    secrets = [key]

    for name in KEY_NAMES:
        # It authenticates: so it must be masked.
        assert raw_get(stack, f"/v1/pages?{name}={key}&page=1") == 200, name

    # A reader subscribes, confirms through the emailed link, then opens the manage link.
    address = f"reader-{page_id}@example.com"
    subscribed = requests.post(
        f"{stack.url}/s/{page_id}/subscribe",
        data={"subscriber[email]": address},
        timeout=30,
    )
    assert subscribed.status_code == 200, subscribed.text
    (confirmation,) = mails_to(stack, address, 1)
    confirm = re.search(r"https?://\S+/subscriptions/(\S+)/confirm", confirmation.body)
    secrets.append(confirm.group(1))
    confirmed = requests.post(confirm.group(0), timeout=30)
    assert "Subscription confirmed" in confirmed.text
    manage = re.search(r'href="([^"]*/subscriptions/([^/"]+)/manage)"', confirmed.text)
    secrets.append(manage.group(2))
    assert requests.get(stack.url + path_of(manage.group(1)), timeout=30).status_code == 200

    # A page access user signs in to an audience-specific page through the emailed link.
    viewer = f"viewer-{page_id}@example.com"
    added = stack.send(
        "POST",
        f"/v1/pages/{page_id}/page_access_users",
        key,
        {"page_access_user": {"email": viewer}},
    )
    assert added.status_code == 201, added.text
    changed = stack.send(
        "PATCH", f"/v1/pages/{page_id}", key, {"page": {"audience_specific": True}}
    )
    assert changed.status_code == 200, changed.text
    asked = requests.post(f"{stack.url}/s/{page_id}/sign-in", data={"email": viewer}, timeout=30)
    assert asked.status_code == 200, asked.text
    (invitation,) = mails_to(stack, viewer, 1)
    sign_in = re.search(r"https?://\S+/sign-in/(\S+)", invitation.body)
    secrets.append(sign_in.group(1))
    opened = requests.get(sign_in.group(0), allow_redirects=False, timeout=30)
    assert opened.status_code == 303
    cookie = opened.headers["Set-Cookie"].split(";")[0]
    # The same link on the page's own host (`/sign-in/{token}` at the root); used already, so
    # it may be refused: what counts is the line it leaves in the log.
    summary = stack.get(f"/s/{page_id}/api/v2/summary.json", headers={"Cookie": cookie}).json()
    host = summary["page"]["url"].removeprefix("http://")
    at_root = requests.get(
        f"{stack.url}/sign-in/{sign_in.group(1)}",
        headers={"Host": host},
        allow_redirects=False,
        timeout=30,
    )
    assert at_root.status_code in (303, 400)

    def logged_every_request() -> bool:
        logged = stack.logged()
        return logged.count("/sign-in/[masked]") >= 2 and "/manage" in logged

    assert wait_for(logged_every_request, timeout=10), stack.logged()
    logged = stack.logged()
    for name in KEY_NAMES:
        assert f"/v1/pages?{name}=[masked]&page=1" in logged
    assert f"/s/{page_id}/subscriptions/[masked]/confirm" in logged
    assert f"/s/{page_id}/subscriptions/[masked]/manage" in logged
    for secret in secrets:
        assert secret not in logged
