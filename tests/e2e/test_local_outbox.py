"""The local stack's outbox (issue 32, item 15): the emails and texts it sent, newest first,
at /_local/outbox, their links followed as a reader follows them."""

import re
from html import unescape

import pytest
import requests

pytestmark = pytest.mark.e2e
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def subscribe_through_the_form(stack, page_id, via, fields):
    answer = requests.post(
        f"{stack.url}/s/{page_id}/subscribe?via={via}", data=fields, headers=FORM, timeout=30
    )
    assert answer.status_code == 200, answer.text


def articles(page: str) -> list[str]:
    return re.findall(r"<article.*?</article>", page, re.DOTALL)


def states(stack, page) -> dict[str, str]:
    listed = stack.get(f"/v1/pages/{page['page_id']}/subscribers?state=all", page["api_key"]).json()
    return {s["email"] or s["phone_number"]: s["state"] for s in listed}


def test_the_ready_line_names_the_outbox(stack):
    assert f"outbox (the emails and texts sent): {stack.url}/_local/outbox" in stack.output[-1]


def test_confirmation_links_followed_from_the_outbox_confirm(stack):
    page = stack.admin("bootstrap")
    page_id = page["page_id"]
    address = f"reader-{page_id}@example.com"
    subscribe_through_the_form(stack, page_id, "email", {"subscriber[email]": address})
    subscribe_through_the_form(
        stack,
        page_id,
        "sms",
        {"subscriber[phone_country]": "US", "subscriber[phone_number]": "2025550123"},
    )
    assert states(stack, page) == {address: "unconfirmed", "2025550123": "unconfirmed"}

    outbox = stack.get("/_local/outbox")
    assert outbox.status_code == 200
    assert outbox.headers["Content-Type"].startswith("text/html")
    assert outbox.headers["Cache-Control"] == "no-store"
    mine = [a for a in articles(outbox.text) if address in a or "+12025550123" in a]
    text, email = mine[:2]  # newest first: the text was sent last
    assert 'class="sms"' in text and 'class="email"' in email
    assert "Confirm your subscription" in email

    # The email as a mail client shows it: its HTML part in a sandboxed frame.
    frame = re.search(r'<iframe src="(/_local/outbox/[^"]+\.html)"[^>]*sandbox="', email)
    opened = stack.get(frame.group(1))
    assert opened.status_code == 200
    assert "sandbox allow-popups" in opened.headers["Content-Security-Policy"]
    assert '<base target="_blank">' in opened.text
    link = unescape(re.search(r'href="(http://[^"]+/confirm)"', opened.text).group(1))
    assert link.startswith(stack.url + f"/s/{page_id}/subscriptions/")
    followed = requests.get(link, timeout=30)  # the link's page: one button confirms
    assert followed.status_code == 200 and "Confirm subscription" in followed.text
    assert states(stack, page)[address] == "unconfirmed"
    pressed = requests.post(link, timeout=30)
    assert pressed.status_code == 200 and "Subscription confirmed" in pressed.text
    assert states(stack, page)[address] == "active"

    # The text message, its link clickable.
    link = unescape(re.search(r'href="(http://[^"]+/confirm)"', text).group(1))
    assert requests.get(link, timeout=30).status_code == 200
    assert requests.post(link, timeout=30).status_code == 200
    assert states(stack, page)["2025550123"] == "active"


def test_the_outbox_only_reads(stack):
    assert requests.post(f"{stack.url}/_local/outbox", timeout=30).status_code == 405
    assert stack.get("/_local/outbox/nothing-here.html").status_code == 404


def test_only_a_loopback_name_shows_the_outbox(stack):
    # Another site's name rebound to this machine must not read the links the stack mailed.
    assert stack.get("/_local/outbox", headers={"Host": "rebound.example"}).status_code == 404
    assert stack.get("/_local/outbox", headers={"Host": "localhost"}).status_code == 200
