"""A page's images in the console: its logo (and the one readers in dark mode see instead)
and the icon browsers show for it, uploaded from
the settings, and the public route that serves them. (The API's `hero_cover` is shown by no
layout, so the console offers no upload of it.)

An upload is checked by the file's own bytes (`domain.images`: PNG, JPEG, WebP or ICO, at most
1 MB; never SVG), kept in the site store under the hash of its bytes
(`sitestore.branding`), and set on the page by the page update's domain call
(`pages.update_images`), under the API's role for page changes (`page_configuration`). The
page's field holds the image's public address, which the public page shows (the logo at its
top, the icon in the browser's tab) once the update is published. A refused file changes
nothing: the form says why, beside the image still shown.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from chalice import Response

from chalicelib import config
from chalicelib.console.views import BASE, Screen, blueprint, console_view, page_heading, redirect
from chalicelib.domain import errors, images, pages
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors as http_errors
from chalicelib.http import multipart
from chalicelib.http.multipart import UploadedFile
from chalicelib.sitestore import branding as branding_files
from chalicelib.web import security

BRANDING = "/pages/{page_id}/settings/branding"
# Each image by the page's field, as the form names it: what it is, where the page shows it.
IMAGES = {
    "transactional_logo": ("Logo", "at the top of the public page, left of its name"),
    "dark_logo": (
        "Dark-mode logo",
        "shown instead of the logo to readers in dark mode; without one, the logo is shown"
        " there on a light plate",
    ),
    "favicon_logo": ("Icon", "the browser tab's icon for the public page"),
}
# Where readers get an image: under the page's public path, by its file's name.
PUBLIC_PATH = "/s/{page_id}/branding/{name}"
_PAGE_ID = re.compile(r"^[0-9a-z]{1,64}$")
# What API Gateway must pass as bytes: the upload form's bodies, the images' answers.
BINARY_TYPES = (multipart.MEDIA_TYPE, *(kind.content_type for kind in images.KINDS))


def image_url(page_id: str, name: str) -> str:
    """The public address of an image of the page (the page's field holds it)."""
    return config.public_base_url() + PUBLIC_PATH.format(page_id=page_id, name=name)


def _render(screen: Screen, status: int = 200, problems: dict | None = None) -> Response:
    page = screen.current_page
    profile = pages.profile_of(page)
    shown = [
        {"field": field, "label": label, "hint": hint, "url": profile.get(field)}
        for field, (label, hint) in IMAGES.items()
    ]
    return screen.render(
        "branding.html",
        status,
        page=page_heading(page),
        images=shown,
        max_megabytes=images.MAX_IMAGE_BYTES // (1024 * 1024),
        allowed=images.ALLOWED,
        problems=problems or {},
        done=screen.request.query.get("done", ""),
    )


@console_view(BRANDING)
def show_branding(screen: Screen) -> Response:
    screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    return _render(screen)


@console_view(BRANDING, ("POST",))
def upload_images(screen: Screen) -> Response:
    """The images the form carries, every one checked before any is kept: one refused
    changes nothing."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    given = screen.form.get("branding")
    uploads = {
        field: value
        for field, value in (given.items() if isinstance(given, dict) else ())
        if field in IMAGES and isinstance(value, UploadedFile)
    }
    if not uploads:
        return _render(screen, 422, {"Image": ["choose a file to upload"]})
    kinds: dict[str, images.ImageKind] = {}
    problems: dict[str, list[str]] = {}
    for field, upload in uploads.items():
        try:
            kinds[field] = images.checked(field, upload.content)
        except errors.Invalid as refused:
            problems[IMAGES[field][0]] = refused.problems[field]
    if problems:
        return _render(screen, 422, problems)
    urls = {
        field: image_url(
            page.id,
            branding_files.store(
                page.id, upload.content, kinds[field].extension, kinds[field].content_type
            ),
        )
        for field, upload in uploads.items()
    }
    pages.update_images(page, urls)
    saved = " and ".join(IMAGES[field][0].lower() for field in urls)
    return _back(page.id, f"New {saved} saved")


@console_view(BRANDING + "/remove", ("POST",))
def remove_image(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    field = screen.form.get("image")
    if not isinstance(field, str) or field not in IMAGES:
        raise http_errors.invalid("image", "must be one of the page's images")
    pages.update_images(page, {field: None})
    return _back(page.id, f"{IMAGES[field][0]} removed")


def _back(page_id: str, done: str) -> Response:
    return redirect(f"{BASE}{BRANDING.format(page_id=page_id)}?{urlencode({'done': done})}")


@blueprint.route(PUBLIC_PATH, methods=["GET"], content_types=["*/*"])
def branding_image(page_id: str, name: str) -> Response:
    """An image of a page, as readers fetch it: its bytes, its type, kept for good (its name
    is its hash). The store knows no page's ids: an unknown one is simply not found."""
    content = branding_files.read(page_id, name) if _PAGE_ID.match(page_id) else None
    kind = images.kind_of(content) if content else None
    if kind is None:
        return Response(body="Not found", status_code=404, headers=_NOT_FOUND)
    headers = {
        "Content-Type": kind.content_type,
        "Cache-Control": branding_files.CACHE_CONTROL,
        **security.for_data(),
        # Shown by the page at its custom domain too, another origin.
        "Cross-Origin-Resource-Policy": "cross-origin",
    }
    return Response(body=content, status_code=200, headers=headers)


_NOT_FOUND = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=10"}
