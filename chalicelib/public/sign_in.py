"""Signing in to an audience-specific page: the reader gives an email address; if a page
access user of the page has it, a link signed for that user and valid `LINK_LIFETIME` goes to
it (at most `LINKS_A_MINUTE` to one address); opening the link, once, sets a cookie, signed
and valid `SESSION_LIFETIME`, that names the user and its session generation to every view of
the page (`audience.viewer_from`). The answer to the form is the same whether or not the
address is known, and whether or not the mail service took the email, so the form tells
nobody who may read the page.

A link is single-use: opening it spends it (and any older one of the user's), and a spent link
answers as an expired one. Signing out is a POST (the signed-in page's button; a GET shows the
button): it moves the user's session generation on, so every copy of the cookie, on any
device, stops working. The cookie is `SameSite=Lax`, so another site's form carries none and
signs nobody out; and only a request that carries it has it cleared.

`/s/{page}/sign-in` (and `/sign-in` on the page's own host), `.../sign-in/{token}`,
`.../sign-out`. Every answer is uncached and carries the public pages' security headers.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError
from chalice import Blueprint, Response

from chalicelib.domain import page_access, pages
from chalicelib.http import errors, ratelimit
from chalicelib.http.routing import Router
from chalicelib.notify import content, email
from chalicelib.public import audience, caching, html
from chalicelib.public.routes import HTML, Visit, public_view
from chalicelib.web import security

if TYPE_CHECKING:
    from chalicelib.store.page_access import PageAccessUser

logger = logging.getLogger(__name__)

# Links emailed to one address for one page: nobody can flood a reader's inbox through the form.
LINKS_A_MINUTE = 5

blueprint = Blueprint(__name__)
router = Router(blueprint, "public status page")


def _html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return caching.uncached(body, status, HTML, {**security.for_html(body), **(headers or {})})


def _audience_page(visit: Visit) -> str:
    if not visit.data["page"].get("audience_specific"):
        raise errors.not_found()
    return visit.snapshot.page_id


def _redirect(location: str, cookie: str | None) -> Response:
    headers = {"Location": location, "Cache-Control": "no-store"}
    if cookie is not None:
        headers["Set-Cookie"] = cookie
    return Response(body="", status_code=303, headers={**headers, **security.for_data()})


def _cookie(visit: Visit, page_id: str, value: str, max_age: int) -> str:
    secure = "; Secure" if visit.site_url.startswith("https://") else ""
    name = audience.cookie_name(page_id)
    return f"{name}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"


@public_view(
    "/sign-in",
    "Audience-specific page: the sign-in form",
    as_html=True,
    on=router,
    viewers_only=False,
)
def sign_in_form(visit: Visit) -> Response:
    _audience_page(visit)
    return _html(html.sign_in_page(visit.data, visit.base))


@public_view(
    "/sign-in",
    "Audience-specific page: email a sign-in link to a page access user (`email`)",
    as_html=True,
    methods=("POST",),
    answers=(429,),
    on=router,
    viewers_only=False,
)
def send_sign_in_link(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    sent = visit.request.body.get("email")
    sent = sent if isinstance(sent, str) else ""
    try:
        # Counted for any address, known or not, so that the answer tells nobody either.
        ratelimit.check(ratelimit.token_for(f"sign-in-link#{page_id}", sent), LINKS_A_MINUTE)
    except errors.ApiError as refusal:
        notice = html.notice_page(
            visit.data, visit.base, "Too many links asked for", "Wait a minute, then ask again."
        )
        return _html(notice, 429, refusal.headers)
    user = page_access.user_by_email(page_id, sent) if sent else None
    if user is not None:
        _email_link(visit, page_id, user)
    return _html(
        html.notice_page(
            visit.data,
            visit.base,
            "Check your email",
            "If this address may read the page, we sent it a link that signs you in.",
        )
    )


def _email_link(visit: Visit, page_id: str, user: PageAccessUser) -> None:
    """The link, to the user's address. An email the mail service refuses (or that no
    address could carry) is logged, with the page and the user but never the link, and the
    reader is answered as for any address."""
    link = f"{visit.site_url}/sign-in/{audience.link_token(page_id, user.id)}"
    minutes = int(audience.LINK_LIFETIME.total_seconds() // 60)
    message = content.sign_in_content(pages.get_page(page_id), link, minutes)
    try:
        email.send_email(
            user.email, message["sender"], message["subject"], message["text"], message["html"]
        )
    except (BotoCoreError, ClientError, UnicodeError) as error:
        # The error's name and code say why; its text could quote the email, link and all.
        code = (
            error.response.get("Error", {}).get("Code") if isinstance(error, ClientError) else None
        )
        logger.warning(
            "sign-in link for page access user %s of page %s not sent: %s %s",
            user.id,
            page_id,
            type(error).__name__,
            code or "",
        )


def _one_button(visit: Visit, path: str, action: str, message: str) -> Response:
    """A page whose one button posts to `path` (under the page's base): what a `GET` of an
    action's address shows, so that only a person's click acts."""
    button = {"href": f"{visit.base}{path}", "text": action, "post": True}
    return _html(html.notice_page(visit.data, visit.base, action, message, button))


def _expired(visit: Visit) -> Response:
    link = {"href": f"{visit.base}/sign-in", "text": "Send a new link"}
    notice = html.notice_page(
        visit.data, visit.base, "This link has expired", "Ask for a new one.", link
    )
    return _html(notice, 400)


@public_view(
    "/sign-in/{token}",
    "Audience-specific page: the emailed link's page, one button that signs in (opening the "
    "link, as a mail scanner does, spends nothing); a spent or expired link says so",
    as_html=True,
    on=router,
    viewers_only=False,
)
def sign_in_link_page(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    token = visit.request.params["token"]
    link = audience.link_of(page_id, token)
    if link is None or not page_access.sign_in_link_unspent(page_id, *link):
        return _expired(visit)
    return _one_button(visit, f"/sign-in/{token}", "Sign in", "Sign in to this status page.")


@public_view(
    "/sign-in/{token}",
    "Audience-specific page: sign in with the emailed link, single-use (sets the reader's cookie)",
    as_html=True,
    methods=("POST",),
    on=router,
    viewers_only=False,
)
def open_sign_in_link(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    link = audience.link_of(page_id, visit.request.params["token"])
    if link is None:
        return _expired(visit)
    user_id, expires = link
    generation = page_access.open_sign_in_link(page_id, user_id, expires)
    if generation is None:  # opened already: as expired
        return _expired(visit)
    session = audience.session_token(page_id, user_id, generation)
    max_age = int(audience.SESSION_LIFETIME.total_seconds())
    return _redirect(visit.base or "/", _cookie(visit, page_id, session, max_age))


@public_view(
    "/sign-out",
    "Audience-specific page: the sign-out button",
    as_html=True,
    on=router,
    viewers_only=False,
)
def sign_out_form(visit: Visit) -> Response:
    _audience_page(visit)
    message = "Sign out of this status page, on this browser and every other one."
    return _one_button(visit, "/sign-out", "Sign out", message)


@public_view(
    "/sign-out",
    "Audience-specific page: sign out (every copy of the reader's cookie stops working)",
    as_html=True,
    methods=("POST",),
    on=router,
    viewers_only=False,
)
def sign_out(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    headers = visit.request.headers
    session = audience.session_of(headers, page_id)
    if session is not None:
        page_access.end_sessions(page_id, *session)
    # Cleared only where it was sent: another site's form carries no cookie and clears none.
    sent = audience.session_cookie(headers, page_id) is not None
    return _redirect(f"{visit.base}/sign-in", _cookie(visit, page_id, "", 0) if sent else None)
