"""Signing in to the console with an organization user's email and password, and out.

Attempts are counted per email address in the API's rate limit store (`SIGN_IN_ATTEMPTS`
a minute), so guessing a password is slow from any number of machines. A wrong email and a
wrong password get the same answer.
"""

from __future__ import annotations

from chalice import Response

from chalicelib.console import session
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import credentials, organizations
from chalicelib.http import errors, ratelimit

SIGN_IN_ATTEMPTS = 5  # a minute, per email address


def _next_path(value: object) -> str:
    """Where to go after signing in: a console path only (never another site)."""
    if isinstance(value, str) and value.startswith(BASE) and not value.startswith("//"):
        return value
    return BASE


def _form(screen: Screen, status: int = 200, message: str = "", email: str = "") -> Response:
    token = session.new_sign_in_token()
    response = screen.render(
        "sign_in.html",
        status,
        sign_in_token=token,
        message=message,
        email=email,
        next_path=_next_path(screen.request.query.get("next") or screen.form.get("next")),
    )
    response.headers["Set-Cookie"] = session.set_cookie(
        session.SIGN_IN_COOKIE, token, session.SIGN_IN_FORM_LIFETIME
    )
    return response


@console_view("/sign-in", signed_in=False)
def sign_in_form(screen: Screen) -> Response:
    return _form(screen)


@console_view("/sign-in", ("POST",), signed_in=False)
def sign_in(screen: Screen) -> Response:
    form = screen.form
    cookie = session.cookie_of(screen.request.headers, session.SIGN_IN_COOKIE)
    if not session.sign_in_token_matches(cookie, form.get("csrf")):
        return _form(screen, 403, "The form expired. Please sign in again.")
    email = form.get("email") if isinstance(form.get("email"), str) else ""
    password = form.get("password") if isinstance(form.get("password"), str) else ""
    email = email.strip()
    if not email or not password:
        return _form(screen, 422, "Enter your email and password.", email)
    try:
        ratelimit.check(ratelimit.token_for("console-sign-in", email), SIGN_IN_ATTEMPTS)
    except errors.ApiError as error:
        response = _form(screen, 429, "Too many attempts. Wait a minute and try again.", email)
        response.headers.update(error.headers)
        return response
    for user in organizations.users_by_email(email):
        if user.password_hash and credentials.password_matches(password, user.password_hash):
            value = session.new_session(user.id, user.session_generation or 0)
            cookie = session.set_cookie(session.COOKIE, value, session.LIFETIME)
            return redirect(_next_path(form.get("next")), cookie)
    return _form(screen, 401, "That email and password do not match.", email)


@console_view("/sign-out", ("POST",), before_new_password=True)
def sign_out(screen: Screen) -> Response:
    organizations.end_sessions(screen.user)  # a copy of the cookie is no use either
    return redirect(f"{BASE}/sign-in", session.set_cookie(session.COOKIE, "", None))
