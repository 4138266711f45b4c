"""Signing in to the console with an organization user's email and password, and out.

Failures are counted in the API's rate limit store, so that guessing is slow and nobody can
lock the owner out by failing with their address:

- per address and client together (`FAILURES_PER_CLIENT` a minute): the client past it is
  refused (429) whatever it sends, the right password included, and no other client is;
- per address from every client (`FAILURES_PER_ADDRESS` in `ADDRESS_WINDOW_SECONDS`): past
  it a client with a failure in the last minute or two is refused too, so guessing from many
  clients slows to one try per client until its failure is forgotten, while a client with no
  recent failure still signs in with the right password.

A client is the request's source address (`ratelimit.client_of`). A wrong email and a wrong
password get the same answers, the refusals included.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.console import session
from chalicelib.console.views import BASE, Screen, blueprint, console_view, redirect
from chalicelib.domain import credentials, organizations
from chalicelib.http import errors, ratelimit

if TYPE_CHECKING:
    from chalicelib.store.models import User  # annotations only: read by the domain

FAILURES_PER_CLIENT = 5  # a minute, per email address and client
FAILURES_PER_ADDRESS = 50  # per email address, from all clients together
ADDRESS_WINDOW_SECONDS = 15 * 60
TOO_MANY = "Too many attempts. Wait a minute and try again."
ONE_TIME_EXPIRED = (
    "That password was handed out once and has expired: ask an owner of your organization "
    "for a new one."
)


def _next_path(value: object) -> str:
    """Where to go after signing in: a path of the console, or the console's home. Never
    another site, and never a character a `Location` header cannot carry (a CR/LF in a
    crafted link made the sign-in a 500)."""
    if not isinstance(value, str) or not _NEXT_PATH.fullmatch(value):
        return BASE
    return value


# `/manage`, or under it; visible ASCII only, no backslash (which browsers read as a slash).
_NEXT_PATH = re.compile(re.escape(BASE) + r"(?:[/?#][!-\[\]-~]*)?")


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
    current = blueprint.current_request
    client = ratelimit.client_of(current.context, current.headers)
    this_client = ratelimit.token_for("console-sign-in", email, client)
    every_client = ratelimit.token_for("console-sign-in-address", email)
    try:
        _admit(this_client, every_client)
    except errors.ApiError as error:
        response = _form(screen, 429, TOO_MANY, email)
        response.headers.update(error.headers)
        return response
    user = _user_of(email, password)
    if user is not None and user.password_is_one_time:
        if organizations.one_time_password_expired(user):
            ratelimit.uncount(this_client)
            return _form(screen, 401, ONE_TIME_EXPIRED, email)
        if not organizations.spend_one_time_password(user):
            user = None  # another sign-in spent it first
    if user is None:
        ratelimit.count(every_client, ADDRESS_WINDOW_SECONDS)
        return _form(screen, 401, "That email and password do not match.", email)
    ratelimit.uncount(this_client)  # counted as a failure until it proved not one
    value = session.new_session(user.id, user.session_generation or 0)
    cookie = session.set_cookie(session.COOKIE, value, session.LIFETIME)
    return redirect(_next_path(form.get("next")), cookie)


def _admit(this_client: str, every_client: str) -> None:
    """Count the attempt against its address and client (before the password is checked, so
    that attempts sent at once are counted at once), and refuse it (429) when that client
    failed too often, or failed lately while the address is past its ceiling."""
    attempts = ratelimit.check(this_client, FAILURES_PER_CLIENT)
    if attempts <= 1:
        return  # no recent failure from this client
    if ratelimit.counted(every_client, ADDRESS_WINDOW_SECONDS) <= FAILURES_PER_ADDRESS:
        return
    ratelimit.uncount(this_client)
    wait = ratelimit.forgotten_after()
    raise errors.ApiError(429, errors.RATE_LIMITED, headers={"Retry-After": str(wait)})


def _user_of(email: str, password: str) -> User | None:
    for user in organizations.users_by_email(email):
        if user.password_hash and credentials.password_matches(password, user.password_hash):
            return user
    return None


@console_view("/sign-out", ("POST",), before_new_password=True)
def sign_out(screen: Screen) -> Response:
    organizations.end_sessions(screen.user)  # a copy of the cookie is no use either
    return redirect(f"{BASE}/sign-in", session.set_cookie(session.COOKIE, "", None))
