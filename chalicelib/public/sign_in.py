"""Signing in to an audience-specific page: the reader gives an email address; if a page
access user of the page has it, a link signed for that user and valid `LINK_LIFETIME` goes to
it (at most `LINKS_A_MINUTE` to one address); opening the link sets a cookie, signed and
valid `SESSION_LIFETIME`, that names the user to every view of the page
(`audience.viewer_of`). The answer to the form is the same whether
or not the address is known, so the form tells nobody who may read the page.

`/s/{page}/sign-in` (and `/sign-in` on the page's own host), `.../sign-in/{token}`,
`.../sign-out`. Every answer is uncached and carries the public pages' security headers.
"""

from __future__ import annotations

from chalice import Blueprint, Response

from chalicelib.domain import page_access, pages
from chalicelib.http import errors, ratelimit
from chalicelib.http.routing import Router
from chalicelib.notify import content, email
from chalicelib.public import audience, caching, html, security
from chalicelib.public.routes import HTML, Visit, public_view

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


def _redirect(location: str, cookie: str) -> Response:
    headers = {"Location": location, "Set-Cookie": cookie, "Cache-Control": "no-store"}
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
        token = audience.token(page_id, user.id, audience.SIGN_IN, audience.LINK_LIFETIME)
        minutes = int(audience.LINK_LIFETIME.total_seconds() // 60)
        message = content.sign_in_content(
            pages.get_page(page_id), f"{visit.site_url}/sign-in/{token}", minutes
        )
        email.send_email(
            user.email, message["sender"], message["subject"], message["text"], message["html"]
        )
    return _html(
        html.notice_page(
            visit.data,
            visit.base,
            "Check your email",
            "If this address may read the page, we sent it a link that signs you in.",
        )
    )


@public_view(
    "/sign-in/{token}",
    "Audience-specific page: the emailed link (sets the reader's cookie)",
    as_html=True,
    on=router,
    viewers_only=False,
)
def open_sign_in_link(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    user_id = audience.user_id_of(page_id, visit.request.params["token"], audience.SIGN_IN)
    if user_id is None:
        link = {"href": f"{visit.base}/sign-in", "text": "Send a new link"}
        notice = html.notice_page(
            visit.data, visit.base, "This link has expired", "Ask for a new one.", link
        )
        return _html(notice, 400)
    session = audience.token(page_id, user_id, audience.VIEWER, audience.SESSION_LIFETIME)
    max_age = int(audience.SESSION_LIFETIME.total_seconds())
    return _redirect(visit.base or "/", _cookie(visit, page_id, session, max_age))


@public_view(
    "/sign-out",
    "Audience-specific page: sign out",
    as_html=True,
    on=router,
    viewers_only=False,
)
def sign_out(visit: Visit) -> Response:
    page_id = _audience_page(visit)
    return _redirect(f"{visit.base}/sign-in", _cookie(visit, page_id, "", 0))
