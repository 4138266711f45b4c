"""A user's own console password: chosen at the first sign-in with a one-time password (the
console shows nothing else until then), and changed whenever they like. A new password ends
every other session of the user; this browser gets a new one."""

from __future__ import annotations

from chalice import Response

from chalicelib.console import session
from chalicelib.console.views import BASE, PASSWORD_PATH, Screen, console_view, redirect
from chalicelib.domain import credentials, organizations


def _form(screen: Screen, status: int = 200, message: str = "") -> Response:
    return screen.render(
        "password.html",
        status,
        one_time=screen.user.password_is_one_time,
        minimum=credentials.MINIMUM_PASSWORD_LENGTH,
        message=message,
    )


@console_view(PASSWORD_PATH, before_new_password=True)
def password_form(screen: Screen) -> Response:
    return _form(screen)


@console_view(PASSWORD_PATH, ("POST",), before_new_password=True)
def choose_password(screen: Screen) -> Response:
    password = screen.form.get("password")
    password = password if isinstance(password, str) else ""
    current = screen.form.get("current")
    current = current if isinstance(current, str) else ""
    # A one-time password was spent by the sign-in this session made (and just typed); any
    # other change proves the present one, so a session left open cannot take the account.
    if not screen.user.password_is_one_time and not (
        screen.user.password_hash
        and credentials.password_matches(current, screen.user.password_hash)
    ):
        return _form(screen, 422, "Your present password is not the one you entered.")
    problem = credentials.password_problem(password)
    if problem:
        return _form(screen, 422, f"That password {problem}.")
    if screen.form.get("confirmation") != password:
        return _form(screen, 422, "The two passwords differ.")
    if screen.user.password_hash and credentials.password_matches(
        password, screen.user.password_hash
    ):
        return _form(screen, 422, "Choose a password other than the one you have.")
    organizations.set_password(screen.user, password)
    renewed = session.new_session(screen.user.id, screen.user.session_generation)
    return redirect(BASE, session.set_cookie(session.COOKIE, renewed, session.LIFETIME))
