"""Signing in to and out of an audience-specific page (issue 30, items 5-7): a page's name
never breaks the sign-in email, and an email the mail service refuses is answered as an
unknown address; a sign-in link works once; signing out (a POST) ends the session for every
copy of its cookie, as does a change of what the user is or sees."""

import logging
import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from tests.public.conftest import make_component, update_page
from tests.public.test_audience_pages import FORM, make_viewer
from tests.sent_mail import sent_mail

# Quotes and angle brackets, long enough that the From header folds: SES read `script` as the
# address of the folded header and refused the email ("Did not have authority to send from
# email script"), and the sign-in answered 500 for a known address only.
HOSTILE_NAME = 'Acme "Cloud" <script>alert("email script")</script> for every region we run'


def ask(visitor, email: str):
    return visitor.api.post(
        f"/s/{visitor.page_id}/sign-in", urlencode({"email": email}), headers=FORM
    )


def link_for(visitor, email: str) -> str:
    """Ask for a link and read its path from the email."""
    before = len(sent_mail())
    asked = ask(visitor, email)
    assert asked.status == 200, asked.text
    (mail,) = sent_mail()[before:]
    return re.search(r"https?://[^/\s]+(/s/\S+/sign-in/\S+)", mail.body).group(1)


def opened(visitor, path: str) -> dict:
    """Open a link and press its page's button: the cookie header the button's post sets."""
    shown = visitor.api.get(path)
    assert shown.status == 200 and f'action="{path}"' in shown.text, shown.text
    answer = visitor.api.post(path, "", headers=FORM)
    assert answer.status == 303, answer.text
    return {"Cookie": answer.headers["Set-Cookie"].split(";")[0]}


def reads(visitor, cookie: dict) -> bool:
    status = visitor.get("/api/v2/summary.json", headers=cookie).status
    assert status in (200, 401)
    return status == 200


def sign_out(visitor, cookie: dict | None):
    return visitor.api.post(
        f"/s/{visitor.page_id}/sign-out", "", headers={**FORM, **(cookie or {})}
    )


@pytest.fixture
def audience_page(world, visitor):
    """An audience-specific page with one user, alice, who sees its one component."""
    api = make_component(world, "API")
    user = make_viewer(world, "alice@example.com", component_ids=[api["id"]])
    update_page(world, audience_specific=True)
    return user


@pytest.fixture
def mail_refused():
    """SES refuses every email: the service's sender is no longer verified."""
    import boto3

    from chalicelib import config

    ses = boto3.client("ses", region_name="us-east-1")
    ses.delete_identity(Identity=config.notifications_sender())
    yield
    ses.verify_email_identity(EmailAddress=config.notifications_sender())


def later(freeze_clock, seconds: int = 1):
    from chalicelib import clock

    freeze_clock(clock.now() + timedelta(seconds=seconds))


# Item 5: the sender's display name, and a refused email -----------------------------------


def test_a_page_name_with_quotes_and_angle_brackets_signs_in(world, visitor, audience_page):
    from chalicelib import config

    update_page(world, name=HOSTILE_NAME)
    before = len(sent_mail())
    known, unknown = ask(visitor, "alice@example.com"), ask(visitor, "nobody@example.com")
    assert known.status == unknown.status == 200
    assert known.text == unknown.text
    (mail,) = sent_mail()[before:]
    (sender,) = mail.message["From"].addresses
    assert sender.addr_spec == config.notifications_sender()
    # Python's parser spaces out adjacent encoded words, which RFC 2047 joins.
    assert sender.display_name.replace(" ", "") == HOSTILE_NAME.replace(" ", "")
    assert mail.subject == f"[{HOSTILE_NAME}] Sign in to the status page"
    path = re.search(r"https?://[^/\s]+(/s/\S+/sign-in/\S+)", mail.body).group(1)
    assert reads(visitor, opened(visitor, path))


def test_an_email_the_mail_service_refuses_is_answered_as_an_unknown_address(
    world, visitor, audience_page, mail_refused, caplog
):
    before = len(sent_mail())
    with caplog.at_level(logging.WARNING):
        known = ask(visitor, "alice@example.com")
    unknown = ask(visitor, "nobody@example.com")
    assert (known.status, known.headers, known.text) == (
        unknown.status,
        unknown.headers,
        unknown.text,
    )
    assert len(sent_mail()) == before
    assert "not sent" in caplog.text and world.page_id in caplog.text
    assert "MessageRejected" in caplog.text
    assert "/sign-in/" not in caplog.text  # never the link


def test_an_address_no_email_can_carry_is_answered_as_an_unknown_address(
    world, visitor, audience_page, caplog
):
    make_viewer(world, "someone@exa\u0081mple.com")
    with caplog.at_level(logging.WARNING):
        known = ask(visitor, "someone@exa\u0081mple.com")
    unknown = ask(visitor, "nobody@example.com")
    assert (known.status, known.text) == (unknown.status, unknown.text)
    assert "not sent" in caplog.text and world.page_id in caplog.text


# Item 6: a link works once ----------------------------------------------------------------


def test_a_sign_in_link_works_once_then_answers_as_an_expired_one(world, visitor, audience_page):
    from chalicelib.public import audience
    from chalicelib.web import tokens

    path = link_for(visitor, "alice@example.com")
    assert reads(visitor, opened(visitor, path))
    again = visitor.api.get(path)
    stale = tokens.token(world.page_id, audience_page["id"], audience.SIGN_IN, -timedelta(1))
    expired = visitor.get(f"/sign-in/{stale}")
    assert again.status == expired.status == 400
    assert again.text == expired.text and "This link has expired" in again.text
    assert "Set-Cookie" not in again.headers


def test_opening_a_newer_link_spends_the_older_ones(visitor, audience_page, freeze_clock):
    older = link_for(visitor, "alice@example.com")
    later(freeze_clock)
    newer = link_for(visitor, "alice@example.com")
    assert newer != older
    assert reads(visitor, opened(visitor, newer))
    assert visitor.api.get(older).status == 400


def test_links_opened_in_the_order_they_were_sent_each_work_once(
    visitor, audience_page, freeze_clock
):
    first = link_for(visitor, "alice@example.com")
    later(freeze_clock)
    second = link_for(visitor, "alice@example.com")
    assert reads(visitor, opened(visitor, first))
    assert reads(visitor, opened(visitor, second))
    assert visitor.api.get(first).status == visitor.api.get(second).status == 400


def test_opening_a_link_spends_nothing_and_a_spent_one_says_so_to_head_and_get(
    visitor, audience_page
):
    """A mail scanner opens (GET) and checks (HEAD) every link of an email before the reader
    does: neither signs in nor spends it; the page's button (a POST) does. Spent, the link
    answers as expired to both."""
    path = link_for(visitor, "alice@example.com")
    for method in ("HEAD", "GET", "GET"):
        checked = visitor.api.request(method, path)
        assert checked.status == 200 and "Set-Cookie" not in checked.headers
    assert reads(visitor, opened(visitor, path))
    for method in ("HEAD", "GET"):
        spent = visitor.api.request(method, path)
        assert spent.status == 400 and "Set-Cookie" not in spent.headers, method
    assert "expired" in visitor.api.get(path).text


# Item 7: signing out ends the session -----------------------------------------------------


def test_signing_out_ends_every_copy_of_the_session(visitor, audience_page, freeze_clock):
    laptop = opened(visitor, link_for(visitor, "alice@example.com"))
    later(freeze_clock)
    phone = opened(visitor, link_for(visitor, "alice@example.com"))
    copy = dict(laptop)
    assert reads(visitor, laptop) and reads(visitor, phone)
    answer = sign_out(visitor, laptop)
    assert answer.status == 303
    assert answer.headers["Location"] == f"/s/{visitor.page_id}/sign-in"
    cleared = answer.headers["Set-Cookie"]
    assert cleared.startswith(f"viewer_{visitor.page_id}=;") and "Max-Age=0" in cleared
    assert not reads(visitor, copy)
    assert not reads(visitor, phone)  # every device: sign-out is of the user
    assert visitor.get("", headers=copy).status == 401


def test_a_cookie_of_an_ended_session_signs_nobody_out(visitor, audience_page, freeze_clock):
    old = opened(visitor, link_for(visitor, "alice@example.com"))
    sign_out(visitor, old)
    later(freeze_clock)
    current = opened(visitor, link_for(visitor, "alice@example.com"))
    sign_out(visitor, old)
    assert reads(visitor, current)


def test_a_sign_out_without_the_cookie_clears_nothing(visitor, audience_page):
    # Another site's form: the SameSite=Lax cookie is not sent, and nothing is cleared.
    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    answer = sign_out(visitor, None)
    assert answer.status == 303 and "Set-Cookie" not in answer.headers
    assert reads(visitor, cookie)


def test_sign_out_by_get_shows_a_button_and_ends_nothing(world, visitor, audience_page):
    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    shown = visitor.get("/sign-out", headers=cookie)
    assert shown.status == 200 and "Set-Cookie" not in shown.headers
    assert f'<form method="post" action="/s/{world.page_id}/sign-out"' in shown.text
    assert reads(visitor, cookie)


def test_the_signed_in_page_signs_out_by_a_form_button(world, visitor, audience_page):
    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    page = visitor.get("", headers=cookie)
    assert page.status == 200
    form = re.search(r'<form method="post" action="([^"]+)" id="sign-out">', page.text)
    assert form and form.group(1) == f"/s/{world.page_id}/sign-out"
    assert 'href="/s/' + world.page_id + '/sign-out"' not in page.text
    assert 'id="sign-out"' not in visitor.get("/sign-in").text


def test_a_page_for_everyone_shows_no_sign_out(world, visitor):
    assert 'id="sign-out"' not in visitor.get("").text


@pytest.mark.parametrize(
    "change",
    ["components", "group", "group_components", "email"],
)
def test_a_change_of_what_the_user_is_or_sees_ends_its_sessions(
    world, visitor, audience_page, change
):
    pages = f"/v1/pages/{world.page_id}"
    user_path = f"{pages}/page_access_users/{audience_page['id']}"
    other = make_component(world, "Database")
    group = world.api.post(
        f"{pages}/page_access_groups", {"page_access_group": {"name": "Ops"}}
    ).json
    if change == "group_components":
        body = {"page_access_user": {"page_access_group_ids": [group["id"]]}}
        assert world.api.patch(user_path, body).status == 200
    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    assert reads(visitor, cookie)
    if change == "components":
        body = {"page_access_user": {"component_ids": [other["id"]]}}
        assert world.api.patch(user_path, body).status == 200
    elif change == "group":
        body = {"page_access_user": {"page_access_group_ids": [group["id"]]}}
        assert world.api.patch(user_path, body).status == 200
    elif change == "group_components":
        body = {"page_access_group": {"component_ids": [other["id"]]}}
        answer = world.api.patch(f"{pages}/page_access_groups/{group['id']}", body)
        assert answer.status == 200
    else:
        body = {"page_access_user": {"email": "alice@new.example.com"}}
        assert world.api.patch(user_path, body).status == 200
    assert not reads(visitor, cookie)


def test_a_change_that_leaves_the_user_as_it_was_keeps_its_session(world, visitor, audience_page):
    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    user_path = f"/v1/pages/{world.page_id}/page_access_users/{audience_page['id']}"
    same = {"page_access_user": {"email": "Alice@Example.com", "external_login": "alice"}}
    assert world.api.patch(user_path, same).status == 200
    make_viewer(world, "bob@example.com")  # another user
    assert reads(visitor, cookie)


def test_a_view_still_reads_the_user_with_the_snapshot(visitor, audience_page, app_views):
    from tests.dynamodb_calls import recording

    cookie = opened(visitor, link_for(visitor, "alice@example.com"))
    visitor.get("/api/v2/summary.json", headers=cookie)
    with recording() as calls:
        assert reads(visitor, cookie)
    assert calls.summary() == {"BatchGetItem": 1}


def test_of_readers_opening_one_link_at_once_one_signs_in(world, audience_page):
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.domain import page_access
    from chalicelib.public import audience

    token = audience.link_token(world.page_id, audience_page["id"])
    user_id, expires = audience.link_of(world.page_id, token)

    def open_link(_) -> int | None:
        return page_access.open_sign_in_link(world.page_id, user_id, expires)

    with ThreadPoolExecutor(8) as pool:
        sessions = list(pool.map(open_link, range(8)))
    assert len([generation for generation in sessions if generation is not None]) == 1
