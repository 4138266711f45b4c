"""Console sessions: a signed, expiring cookie naming the user, and the CSRF tokens of its
forms.

The session cookie is `HttpOnly` (no script reads it), `SameSite=Lax` (other sites' forms do
not carry it) and `Secure` outside the local stage (served over plain HTTP on loopback). It
is stateless: its signature and expiry are checked, then its user is read, so a deleted user
is signed out at once. Every form of a signed-in screen carries a token bound to the session
(an HMAC of it); the sign-in form, before any session exists, uses a double-submit cookie,
so another site cannot sign a browser in to an account of its choosing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from http.cookies import CookieError, SimpleCookie

from chalicelib import config
from chalicelib.domain import signing
from chalicelib.public import audience

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


def new_session(user_id: str) -> str:
    return audience.token(_SCOPE, user_id, _SESSION, LIFETIME)


def user_id_of(value: str | None) -> str | None:
    """The user a session cookie names, if it is genuine and has not expired."""
    return audience.user_id_of(_SCOPE, value, _SESSION)


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
