"""A page's settings and branding in the console, with a preview of the public page.

The webhook signing secret is shown there too (behind a disclosure: it is readable, as the
API's `GET .../webhook_secret` reads it, because every webhook body is signed with it) and
replaced after a confirmation, as the API's rotation replaces it.

The form posts the API's page fields (`page[name]`, `page[css_greens]`, ...), validated by
its schema (`PageUpdate`) and saved by its domain function (`pages.update_page`) under its
role (`page_configuration`). "Preview" checks the same fields the same way and renders the
public page from them (`pages.preview_page`, which saves nothing) into a frame beside the
form; the console's script asks for it again as the user types.
"""

from __future__ import annotations

import zoneinfo
from functools import lru_cache
from typing import TYPE_CHECKING

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import (
    BASE,
    Screen,
    console_view,
    page_heading,
    page_response,
    redirect,
)
from chalicelib.domain import contrast, pages
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.domain.pages import COLOR_FIELDS, DEFAULT_COLORS
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.public import preview

if TYPE_CHECKING:
    from chalicelib.store.models import Page  # annotations only: read by the domain

SETTINGS = "/pages/{page_id}/settings"
# As the API's `POST /v1/pages/{page_id}/webhook_secret/rotate`, after a confirmation.
WEBHOOK_SECRET_ROTATION = SETTINGS + "/webhook-secret/rotate"
# What the public page does, each a checkbox, as the API names them.
FLAGS = {
    "allow_page_subscribers": "Visitors may subscribe to the whole page",
    "allow_incident_subscribers": "Visitors may subscribe to one incident",
    "allow_email_subscribers": "Subscribe by email",
    "allow_sms_subscribers": "Subscribe by text message",
    "allow_webhook_subscribers": "Subscribe with a webhook",
    "allow_rss_atom_feeds": "Offer RSS and Atom feeds",
    "hidden_from_search": "Hide the page from search engines",
}
COLOR_LABELS = {
    "css_body_background_color": "Background",
    "css_font_color": "Text",
    "css_light_font_color": "Light text",
    "css_link_color": "Links",
    "css_border_color": "Borders",
    "css_greens": "Operational (green)",
    "css_yellows": "Degraded (yellow)",
    "css_oranges": "Partial outage (orange)",
    "css_reds": "Major outage (red)",
    "css_blues": "Maintenance (blue)",
    "css_graph_color": "Graphs",
    "css_no_data": "No data",
}


@lru_cache(maxsize=1)
def time_zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


def _page(screen: Screen) -> Page:
    return screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)


def color_warnings(profile: dict) -> list[str]:
    """A line for each saved colour below WCAG AA on the page's background (the API's
    `Warning` header says the same of the colours an update sets)."""
    return [
        f"{COLOR_LABELS[warning.field]} ({warning.color}) has a contrast of "
        f"{contrast.ratio_label(warning.ratio)} on the background ({warning.background}); "
        f"WCAG AA asks {warning.minimum:g}:1 for "
        + ("a graph." if warning.minimum < contrast.AA_TEXT else "text.")
        for warning in pages.color_warnings(profile)
    ]


def _fields(screen: Screen) -> pages.PageInput:
    fields = screen.form.get("page")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"page": ["is missing"]})
    body = errors.validated(schemas.PageUpdate, {"page": fields}, "page")
    return plain(body.page, pages.PageInput)


def _as_typed(typed: dict) -> dict:
    """A refused form's fields as the screen shows settings: a flag's box is checked when
    its last value is `"true"` (its hidden `"false"` comes first)."""
    shown = {}
    for name, value in typed.items():
        if name in FLAGS:
            last = value[-1] if isinstance(value, list) and value else value
            shown[name] = last == "true"
        elif isinstance(value, str):
            shown[name] = value
    return shown


@console_view(SETTINGS)
def show_settings(screen: Screen) -> Response:
    page = _page(screen)
    profile = pages.profile_of(page)
    settings = {**profile, "subdomain": page.subdomain, "domain": page.domain}
    if screen.refused is not None:  # shown again refused: the form as typed
        typed = screen.refused[1].get("page")
        settings.update(_as_typed(typed) if isinstance(typed, dict) else {})
    return screen.render(
        "settings.html",
        page=page_heading(page),
        settings=settings,
        colors={name: settings.get(name) or DEFAULT_COLORS[name] for name in COLOR_FIELDS},
        color_labels=COLOR_LABELS,
        color_warnings=color_warnings(profile),
        flags=FLAGS,
        time_zones=time_zones(),
        webhook_secret=pages.webhook_secret_of(page),
        done=screen.request.query.get("done", ""),
    )


@console_view(SETTINGS, ("POST",), again=show_settings)
def save_settings(screen: Screen) -> Response:
    page = _page(screen)
    pages.update_page(page, _fields(screen))
    return redirect(f"{BASE}{SETTINGS.format(page_id=page.id)}?done=Settings+saved")


@console_view(WEBHOOK_SECRET_ROTATION)
def confirm_webhook_secret_rotation(screen: Screen) -> Response:
    """What a new secret means for those who check signatures, and the button that makes it."""
    page = _page(screen)
    return screen.render("webhook_secret_rotation.html", page=page_heading(page))


@console_view(WEBHOOK_SECRET_ROTATION, ("POST",))
def rotate_webhook_secret(screen: Screen) -> Response:
    page = _page(screen)
    pages.rotate_webhook_secret(page)
    done = "?done=Webhook+signing+secret+replaced#webhook-secret"
    return redirect(f"{BASE}{SETTINGS.format(page_id=page.id)}{done}")


@console_view(SETTINGS + "/preview")
def preview_saved(screen: Screen) -> Response:
    """The public page as saved (what the frame shows before any change)."""
    screen.framed = True
    return page_response(preview.status_page_of(_page(screen)), framed=True)


@console_view(SETTINGS + "/preview", ("POST",))
def preview_settings(screen: Screen) -> Response:
    """The public page with the form's values, checked as saving checks them; nothing
    saved."""
    screen.framed = True
    changed = pages.preview_page(_page(screen), _fields(screen))
    return page_response(preview.status_page_of(changed), framed=True)
