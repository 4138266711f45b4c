"""How a console screen is served: the session read, the CSRF token checked on every POST,
the form decoded as the API decodes bodies, and refusals (a role missing, a field invalid)
shown as pages. A screen's handler then reads like an API handler: authorize with the same
role check (`auth.page_for`), call one domain function, render.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from chalice import Blueprint, Response

from chalicelib.console import form_errors, html, session, times
from chalicelib.domain import organizations, pages
from chalicelib.domain.errors import DomainError
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import auth, errors
from chalicelib.http.routing import ApiRequest, api_request
from chalicelib.web import security

if TYPE_CHECKING:
    from chalicelib.store.models import Page, User  # annotations only: read by the domain

logger = logging.getLogger(__name__)
blueprint = Blueprint(__name__)
BASE = session.PATH
HTML = "text/html; charset=utf-8"
# The console runs its one script and frames its previews of the public page, both from its
# own origin (never inline); the script fetches the previews.
SOURCES = {"script-src": "'self'", "connect-src": "'self'", "frame-src": "'self'"}
_TITLES = {
    400: "Bad request",
    403: "You may not do this",
    404: "Not found",
    409: "Someone changed this meanwhile",
    422: "Please check the form",
    429: "Too many attempts",
    500: "Something went wrong",
}


@dataclass
class Screen:
    """One console request: who is signed in, and their form's token."""

    request: ApiRequest
    user: User | None = None
    session_value: str | None = None
    framed: bool = False  # shown in the console's preview frame, refusals included
    current_page: Page | None = None  # the page this screen is about, once authorized
    # A refused form's problems in words and what was typed, when its screen is shown again.
    refused: tuple[dict, dict] | None = None

    @property
    def form(self) -> dict:
        return self.request.body

    @property
    def csrf(self) -> str:
        return session.csrf_token(self.session_value) if self.session_value else ""

    def page(self, page_id: str, role: str | None = None) -> Page:
        """The page, if the user reaches it and holds `role` there: the API's own check."""
        page = auth.page_for(auth.Principal("console-session", self.user), page_id, role)
        self.current_page = page
        return page

    @property
    def zone(self) -> str:
        """The time zone of the page this screen is about: times are shown and read in it."""
        if self.current_page is None:
            return times.DEFAULT_ZONE
        return pages.profile_of(self.current_page).get("time_zone") or times.DEFAULT_ZONE

    def time_input(self, text: str | None) -> str | None:
        """A form's `datetime-local` value, read in the page's zone, as the API's UTC time."""
        return times.from_input(text, self.zone)

    def may(self, page_id: str, role: str | None) -> bool:
        return organizations.has_role(self.user, page_id, role)

    def render(self, template_name: str, status: int = 200, /, **context) -> Response:
        if self.refused is not None:
            problems, typed = self.refused
            context.setdefault("problems", problems)
            context.setdefault("typed", typed)
            status = 422
        context.setdefault("zone", self.zone)
        context.setdefault("zone_label", times.zone_label(self.zone))
        nav_page = None
        if self.current_page is not None:
            # The sections a user without the page's configuration role would be refused.
            configure = self.may(self.current_page.id, PAGE_CONFIGURATION)
            nav_page = {**page_heading(self.current_page), "configure": configure}
        context.setdefault("nav_page", nav_page)
        body = html.render(template_name, user=self.user, csrf=self.csrf, base=BASE, **context)
        return page_response(body, status, framed=self.framed)


def page_heading(page: Page) -> dict:
    """What a screen's heading shows of its page (its name links to the page's overview)."""
    return {"id": page.id, "name": pages.profile_of(page).get("name", "")}


def page_response(
    body: str, status: int = 200, headers: dict | None = None, *, framed: bool = False
) -> Response:
    """A screen; `framed`: a preview the console shows in a frame (it runs no script)."""
    # A screen shows one user's data: no cache keeps it.
    headers = {"Content-Type": HTML, "Cache-Control": "no-store", **(headers or {})}
    if framed:
        policy = security.for_html(body, framed_by_self=True)
    else:
        policy = security.for_html(body, sources=SOURCES)
    return Response(body=body, status_code=status, headers={**headers, **policy})


def redirect(location: str, cookie: str | None = None) -> Response:
    headers = {"Location": location, "Cache-Control": "no-store", **security.for_data()}
    if cookie:
        headers["Set-Cookie"] = cookie
    return Response(body="", status_code=303, headers=headers)


def refusal(screen: Screen, error: errors.ApiError) -> Response:
    title = _TITLES.get(error.status, error.message)
    problems = error.body().get("errors", {})
    response = screen.render(
        "error.html", error.status, title=title, message=error.message, problems=problems
    )
    response.headers.update(error.headers)
    return response


def no_such_screen() -> Response:
    """A console address no screen answers (mistyped, or of a version gone): a page with the
    way back to the console, not the API's JSON."""
    missing = errors.ApiError(
        404, "No screen of the console is at this address: it may have been mistyped."
    )
    return refusal(Screen(ApiRequest({}, {}, {}, {}, False, None, None)), missing)


def confirmed(screen: Screen) -> bool:
    """Whether a destructive POST comes from its confirmation step (`confirm=yes`); a first
    POST (a row's button) or a GET is shown the confirmation instead, and changes nothing."""
    return blueprint.current_request.method == "POST" and screen.form.get("confirm") == "yes"


def confirmation(
    screen: Screen,
    page: Page,
    *,
    action: str,
    question: str,
    consequence: str,
    button: str,
    cancel: str,
) -> Response:
    """The second step of a destructive action: what goes, named, and the one form that
    posts it to `action` (its own path below `BASE`), confirmed."""
    return screen.render(
        "confirm.html",
        page=page_heading(page),
        question=question,
        consequence=consequence,
        button=button,
        action=BASE + action,
        cancel=BASE + cancel,
    )


# A form screen to show again, refused: its template and context, built as its GET builds
# it, from the screen and the form as typed.
FormScreen = Callable[[Screen, dict], tuple[str, dict]]


def refused_form(screen: Screen, form: FormScreen, typed: dict, error: errors.ApiError):
    """The form again, as typed, each problem in words beside its field (422)."""
    template, context = form(screen, typed)
    said = form_errors.words(error.body().get("errors", {}))
    return screen.render(template, 422, **context, problems=said, typed=typed)


def shown_again(screen: Screen, again: Callable, typed: dict, error: errors.ApiError):
    """The screen the refused form is on, as its GET shows it, with the problems in words
    and what was typed (422): its template puts them in the form."""
    screen.refused = (form_errors.words(error.body().get("errors", {})), typed)
    return again(screen)


def _signed_in(screen: Screen) -> bool:
    value = session.cookie_of(screen.request.headers, session.COOKIE)
    holder = session.holder_of(value)
    if holder is None:
        return False
    user_id, generation = holder
    screen.user = organizations.get_user(user_id)
    if screen.user is None:
        return False  # a deleted user's session ends with the user
    if generation != (screen.user.session_generation or 0):
        return False  # signed out since, or given a new password
    screen.session_value = value
    return True


PASSWORD_PATH = "/password"


def console_view(
    path: str,
    methods: tuple[str, ...] = ("GET",),
    *,
    signed_in: bool = True,
    before_new_password: bool = False,
    form: FormScreen | None = None,
    again: Callable[[Screen], Response] | None = None,
):
    """Register a screen at `BASE + path`. A signed-in screen sends a visitor without a
    session to the sign-in form (a POST without one is a 401), and refuses a POST whose CSRF
    token is not the session's (403). A user still on a one-time password is sent to choose
    a new one (`PASSWORD_PATH`) from every screen but those `before_new_password`. A POST
    of a `form` screen refused as invalid (422) shows that form again, as typed, each
    problem beside its field; with `again` (the GET handler of the screen the form is on),
    that screen is shown so, its template taking `problems` and `typed`."""

    def register(handler: Callable[[Screen], Response]) -> Callable:
        def view(**params: str) -> Response:
            current = blueprint.current_request
            screen = Screen(ApiRequest({}, {}, {}, {}, False, None, None))
            try:
                screen.request = api_request(current, params)
                if signed_in and not _signed_in(screen):
                    if current.method == "GET":
                        return redirect(f"{BASE}/sign-in?next={quote(BASE + _path(current))}")
                    raise errors.unauthenticated()
                if signed_in and current.method == "POST":
                    if not session.csrf_matches(screen.session_value, screen.form.get("csrf")):
                        raise errors.forbidden()
                if signed_in and screen.user.password_is_one_time and not before_new_password:
                    return redirect(f"{BASE}{PASSWORD_PATH}")
                typed = copy.deepcopy(screen.form)  # as typed: a handler may normalize it
                try:
                    return handler(screen)
                except Exception as error:
                    invalid = _invalid(error)
                    if invalid is None or (form is None and again is None):
                        raise
                    if again is not None:
                        return shown_again(screen, again, typed, invalid)
                    return refused_form(screen, form, typed, invalid)
            except errors.ApiError as error:
                return refusal(screen, error)
            except DomainError as error:
                return refusal(screen, errors.from_domain(error))
            except Exception as error:
                if errors.is_validation_error(error):
                    return refusal(screen, errors.from_validation_error(error))
                logger.exception("unhandled error in console screen %s", handler.__name__)
                return refusal(screen, errors.ApiError(500, errors.INTERNAL))

        view.__name__ = handler.__name__
        blueprint.route(
            BASE + path, methods=list(methods), content_types=["*/*"], name=handler.__name__
        )(view)
        return handler

    return register


def _invalid(error: Exception) -> errors.ApiError | None:
    """The 422 an error is, if it is one (a field refused by the schema or by a rule)."""
    if isinstance(error, DomainError):
        error = errors.from_domain(error)
    elif errors.is_validation_error(error):
        error = errors.from_validation_error(error)
    if isinstance(error, errors.ApiError) and error.status == 422:
        return error
    return None


def _path(current) -> str:
    """The path below `BASE` a request asked for (for the return after signing in)."""
    full = current.context.get("path", "") or ""
    return full[len(BASE) :] if full.startswith(BASE) else ""
