"""Console sessions: sign-in, the cookie, CSRF tokens, expiry, sign-out, the rate limit."""

from datetime import UTC, datetime, timedelta
from urllib.parse import unquote

import pytest

from tests.console.conftest import PASSWORD


def test_signing_in_sets_a_secure_http_only_session_cookie(console, make_user, world):
    email = make_user()
    answer = console.sign_in(email)
    assert answer.status == 303
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("manage_session=")
    for attribute in ("HttpOnly", "SameSite=Lax", "Path=/manage", "Secure"):
        assert attribute in cookie  # Secure: the tests' stage is not `local`
    assert PASSWORD not in cookie
    page = console.get(answer.headers["location"])
    assert page.status in (200, 303)
    overview = console.get(f"/manage/pages/{world.page_id}")
    assert overview.status == 200
    assert "Acme" in overview.text and email in overview.text


@pytest.mark.parametrize(
    "given, goes_to",
    [
        ("/manage%0d%0aX-Injected:%201", "/manage"),  # a crafted link: CR/LF in the header
        ("/manage/pages%0aSet-Cookie:%20x=1", "/manage"),
        ("/manageevil", "/manage"),
        ("https://evil.example/manage", "/manage"),
        ("//evil.example/manage", "/manage"),
        ("/manage%5c%5cevil.example", "/manage"),
        ("/manage/pages?tab=1", "/manage/pages?tab=1"),
    ],
)
def test_a_sign_in_link_s_next_is_a_console_path_or_the_console(console, make_user, given, goes_to):
    email = make_user()
    console.get(f"/manage/sign-in?next={given}")
    answer = console.post(
        f"/manage/sign-in?next={given}",
        {"email": email, "password": PASSWORD, "next": unquote(given)},
    )
    assert answer.status == 303, answer.text
    assert answer.headers["location"] == goes_to
    assert "x-injected" not in answer.headers
    assert "manage_session" in console.cookies


def test_a_wrong_password_is_refused_like_an_unknown_email(console, make_user):
    email = make_user()
    wrong = console.sign_in(email, "not the password")
    assert wrong.status == 401
    assert "manage_session" not in console.cookies
    unknown = console.sign_in("nobody@example.com", PASSWORD)
    assert unknown.status == 401
    assert "do not match" in wrong.text and "do not match" in unknown.text


def test_a_screen_without_a_session_sends_to_sign_in(console, world):
    answer = console.get(f"/manage/pages/{world.page_id}")
    assert answer.status == 303
    assert answer.headers["location"].startswith("/manage/sign-in")


def test_sign_in_without_the_forms_token_is_refused(console, make_user):
    email = make_user()
    console.get("/manage/sign-in")
    answer = console.post("/manage/sign-in", {"email": email, "password": PASSWORD}, csrf=False)
    assert answer.status == 403
    assert "manage_session" not in console.cookies


def test_a_form_without_its_csrf_token_changes_nothing(console, make_user, world):
    from tests.public.conftest import make_component

    component = make_component(world, "API")
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}")
    form = {f"status[{component['id']}]": "major_outage"}
    missing = console.post(f"/manage/pages/{world.page_id}/components", form, csrf=False)
    assert missing.status == 403
    forged = console.request(
        "POST",
        f"/manage/pages/{world.page_id}/components",
        [*form.items(), ("csrf", "abc-0123")],
    )
    assert forged.status == 403
    shown = world.api.get(f"/v1/pages/{world.page_id}/components/{component['id']}").json
    assert shown["status"] == "operational"


def test_an_expired_session_signs_out(console, make_user, world, freeze_clock):
    start = freeze_clock(datetime(2030, 5, 1, 12, 0, tzinfo=UTC))
    console.sign_in(make_user())
    assert console.get(f"/manage/pages/{world.page_id}").status == 200
    freeze_clock(start + timedelta(hours=12, minutes=1))
    answer = console.get(f"/manage/pages/{world.page_id}")
    assert answer.status == 303
    assert answer.headers["location"].startswith("/manage/sign-in")


def test_signing_out_clears_the_cookie(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}")
    answer = console.post("/manage/sign-out", {})
    assert answer.status == 303
    assert "Max-Age=0" in answer.headers["set-cookie"]
    assert console.get(f"/manage/pages/{world.page_id}").status == 303


def test_signing_out_ends_the_session_everywhere(console, make_user, world, http):
    from tests.console.conftest import Console

    email = make_user()
    console.sign_in(email)
    elsewhere = Console(http)  # the same user on another device
    elsewhere.sign_in(email)
    copied = dict(console.cookies)  # a copy of the cookie, kept after signing out
    overview = f"/manage/pages/{world.page_id}"
    assert console.get(overview).status == 200 and elsewhere.get(overview).status == 200
    console.post("/manage/sign-out", {})
    console.cookies = copied
    assert console.get(overview).status == 303
    assert elsewhere.get(overview).status == 303
    assert console.sign_in(email).status == 303  # a new session works
    assert console.get(overview).status == 200


def test_a_new_password_ends_the_sessions_the_old_one_opened(console, make_user, world):
    from chalicelib.domain import organizations
    from chalicelib.store.models import User

    email = make_user()
    console.sign_in(email)
    overview = f"/manage/pages/{world.page_id}"
    assert console.get(overview).status == 200
    (user,) = organizations.users_by_email(email)
    organizations.set_password(User.get(user.id), "a new password")
    assert console.get(overview).status == 303
    assert console.sign_in(email, "a new password").status == 303
    assert console.get(overview).status == 200


def test_sign_in_attempts_are_rate_limited_per_email(console, make_user):
    email = make_user()
    for _ in range(5):
        assert console.sign_in(email, "guess").status == 401
    limited = console.sign_in(email, PASSWORD)
    assert limited.status == 429
    assert "retry-after" in limited.headers
    assert "manage_session" not in console.cookies


def test_a_one_time_password_must_be_changed_before_anything_else(console, world):
    from chalicelib.domain import organizations

    user = organizations.create_user(
        world.organization_id,
        "new@example.com",
        password="handed-out-once",
        one_time=True,
        owner=True,
    )
    assert console.sign_in("new@example.com", "handed-out-once").status == 303
    overview = f"/manage/pages/{world.page_id}"
    answer = console.get(overview)
    assert answer.status == 303 and answer.headers["location"] == "/manage/password"
    form = console.get("/manage/password")
    assert form.status == 200 and "handed to you once" in form.text
    answer = console.post(f"{overview}/components", {})  # with the session's CSRF token
    assert answer.status == 303 and answer.headers["location"] == "/manage/password"
    refusals = {
        "short": ("a" * 11, "a" * 11),
        "differ": ("a long new password", "another long password"),
        "the same": ("handed-out-once", "handed-out-once"),
    }
    for password, confirmation in refusals.values():
        answer = console.post(
            "/manage/password", {"password": password, "confirmation": confirmation}
        )
        assert answer.status == 422 and 'role="alert"' in answer.text
    chosen = console.post(
        "/manage/password",
        {"password": "my own long password", "confirmation": "my own long password"},
    )
    assert chosen.status == 303 and "manage_session=" in chosen.headers["set-cookie"]
    assert console.get(overview).status == 200  # the new session works, with the screens
    assert console.sign_in("new@example.com", "handed-out-once").status == 401
    assert (
        type(console)(console.client).sign_in("new@example.com", "my own long password").status
        == 303
    )
    assert organizations.users_by_email("new@example.com")[0].id == user.id


def test_a_user_changes_their_password_and_other_sessions_end(console, make_user, world, http):
    from tests.console.conftest import Console

    email = make_user()
    console.sign_in(email)
    elsewhere = Console(http)
    elsewhere.sign_in(email)
    overview = f"/manage/pages/{world.page_id}"
    assert "/manage/password" in console.get(overview).text  # the account menu links to it
    console.get("/manage/password")
    new = {"password": "a brand new password", "confirmation": "a brand new password"}
    for wrong in ({}, {"current": "not the password at all"}):
        refused = console.post("/manage/password", {**new, **wrong})
        assert refused.status == 422 and "present password" in refused.text
    changed = console.post("/manage/password", {**new, "current": PASSWORD})
    assert changed.status == 303
    assert console.get(overview).status == 200
    assert elsewhere.get(overview).status == 303


@pytest.mark.parametrize(
    "password", ["password1234", "qwertyuiop123", "aaaaaaaaaaaaaaaa", "123456789012"]
)
def test_a_new_password_is_not_a_common_one(console, make_user, password):
    email = make_user()
    console.sign_in(email)
    console.get("/manage/password")
    answer = console.post(
        "/manage/password", {"current": PASSWORD, "password": password, "confirmation": password}
    )
    assert answer.status == 422 and "too common" in answer.text


def test_a_one_time_password_signs_in_once_and_within_a_day(console, world, freeze_clock, http):
    from chalicelib.domain import organizations
    from tests.console.conftest import Console

    freeze_clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    organizations.create_user(
        world.organization_id, "once@example.com", password="handed-out-once", one_time=True
    )
    organizations.create_user(
        world.organization_id, "late@example.com", password="handed-out-late", one_time=True
    )
    assert console.sign_in("once@example.com", "handed-out-once").status == 303
    again = Console(http).sign_in("once@example.com", "handed-out-once")
    assert again.status == 401 and "expired" in again.text  # spent by the first sign-in
    freeze_clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))  # 24 hours later
    late = Console(http).sign_in("late@example.com", "handed-out-late")
    assert late.status == 401 and "expired" in late.text
