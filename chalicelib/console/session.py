"""Console sessions: a signed, expiring cookie naming the user, and the CSRF tokens of its
forms.

The session cookie is `HttpOnly` (no script reads it), `SameSite=Lax` (other sites' forms do
not carry it) and `Secure` outside the local stage (served over plain HTTP on loopback). Its
signature and expiry are checked, then its user is read, so a deleted user is signed out at
once, and so is every session of a user who signs out or gets a new password (the session
names the user's session generation, which those move on). Every form of a signed-in screen
carries a token bound to the session (an HMAC of it); the sign-in form, before any session
exists, uses a double-submit cookie, so another site cannot sign a browser in to an account
of its choosing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from http.cookies import CookieError, SimpleCookie

from chalicelib import config
from chalicelib.domain import signing
from chalicelib.web import tokens

COOKIE = "manage_session"
SIGN_IN_COOKIE = "manage_sign_in"  # the sign-in form's double-submit CSRF token
LIFETIME = timedelta(hours=12)
SIGN_IN_FORM_LIFETIME = timedelta(minutes=30)
PATH = "/manage"
# Public tokens are signed for a page; console tokens for this scope, so neither passes for
# the other.
_SCOPE = "manage"
_SESSION = "console-session"
_CSRF = "console-csrf"


def new_session(user_id: str, generation: int) -> str:
    """A session of the user's current `generation` (`User.session_generation`)."""
    return tokens.token(_SCOPE, f"{user_id}.{generation}", _SESSION, LIFETIME)


def holder_of(value: str | None) -> tuple[str, int] | None:
    """The user a session cookie names and the generation it was made in, if it is genuine
    and has not expired."""
    subject = tokens.user_id_of(_SCOPE, value, _SESSION)
    if subject is None:
        return None
    user_id, _, generation = subject.partition(".")
    return user_id, int(generation) if generation.isdigit() else 0


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


def csrf_token(session_value: str) -> str:
    return signing.token(_SCOPE, _digest(session_value), _CSRF)


def csrf_matches(session_value: str, sent: object) -> bool:
    if not isinstance(sent, str) or not sent:
        return False
    return signing.verified_subject(_SCOPE, sent, _CSRF) == _digest(session_value)


def new_sign_in_token() -> str:
    return secrets.token_urlsafe(24)


def sign_in_token_matches(cookie_value: str | None, sent: object) -> bool:
    if not cookie_value or not isinstance(sent, str):
        return False
    return hmac.compare_digest(cookie_value, sent)


def cookie_of(headers: dict[str, str], name: str) -> str | None:
    jar = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except CookieError:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


def set_cookie(name: str, value: str, lifetime: timedelta | None) -> str:
    """A `Set-Cookie` value; no `lifetime` clears the cookie."""
    max_age = int(lifetime.total_seconds()) if lifetime else 0
    secure = "" if config.stage() == "local" else "; Secure"
    return f"{name}={value}; Path={PATH}; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
