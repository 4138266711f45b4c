"""Signed tokens that name a user until they expire: the console's session cookie and the
public page's reader cookies and sign-in links are all made so."""

from __future__ import annotations

from datetime import timedelta

from chalicelib import clock
from chalicelib.domain import signing


def token(scope: str, user_id: str, purpose: str, lifetime: timedelta) -> str:
    """A token signed for `scope` (a page, or the console) naming the user until `lifetime`
    from now (ids hold no `_`)."""
    expires = int((clock.now() + lifetime).timestamp())
    return signing.token(scope, f"{user_id}_{expires}", purpose)


def named(
    scope: str, value: str | None, purpose: str, per_second: int = 1
) -> tuple[str, int] | None:
    """Whom a token names and when it expires (Unix seconds times `per_second`), if it is
    genuine and has not expired."""
    subject = signing.verified_subject(scope, value or "", purpose)
    if subject is None:
        return None
    name, _, expires = subject.partition("_")
    if not expires.isdigit() or int(expires) < clock.now().timestamp() * per_second:
        return None
    return name, int(expires)


def user_id_of(scope: str, value: str | None, purpose: str) -> str | None:
    """The user a token names, if it is genuine and has not expired."""
    found = named(scope, value, purpose)
    return found[0] if found else None
