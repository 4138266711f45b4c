"""Pages (SPEC 4.3) and the `POST /v1/pages` extension."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.domain import pages
from chalicelib.domain.organizations import PAGE_CONFIGURATION, has_role
from chalicelib.http.auth import require_owner
from chalicelib.http.inputs import plain
from chalicelib.http.routing import ApiRequest, Reply, Router, Style

if TYPE_CHECKING:
    from chalicelib.store.models import Page

blueprint = Blueprint(__name__)
router = Router(blueprint, "pages")


def with_warnings(page: Page, changed: set[str], body: schemas.PageOut, status: int = 200) -> Reply:
    """The page, and a `Warning` header (RFC 7234's form, code 299: a persistent warning) for
    each colour the body set that falls short of WCAG AA on the page's background: saved all
    the same, and said beside the page, whose fields stay those of the contract."""
    warnings = pages.color_warnings(pages.profile_of(page), changed)
    headers = {"Warning": ", ".join(f'299 - "{w.message}"' for w in warnings)} if warnings else {}
    return Reply(body, status, headers)


def page_out(page: Page, archived: bool = False) -> schemas.PageOut:
    profile = pages.profile_of(page)
    fields = {name: profile.get(name) for name in schemas.PageOut.model_fields}
    fields.update(
        id=page.id,
        subdomain=page.subdomain,
        domain=page.domain,
        created_at=clock.iso(page.created_at),
        updated_at=clock.iso(page.updated_at),
        twitter_username=profile.get("social_username"),
        twitter_logo=profile.get("social_logo"),
    )
    if not archived:
        return schemas.PageOut(**fields)
    for image in ("hero_cover", "transactional_logo"):
        url = profile.get(image)
        fields[image] = schemas.ImageOut(
            normal_url=url,
            original_url=url,
            retina_url=url,
            size=None,
            updated_at=profile.get(f"{image}_updated_at") if url else None,
        )
    return schemas.ArchivedPageOut(**fields, layout=profile.get("branding", "basic"))


@router.route(
    "/v1/pages",
    ["GET"],
    summary="List the pages the caller reaches",
    response="PageOut",
    many=True,
    style=Style.CURRENT,
)
def list_pages(request: ApiRequest):
    user = request.principal.user
    reachable = [
        page for page in pages.pages_of(user.organization_id) if has_role(user, page.id, None)
    ]
    return [page_out(page, request.archived) for page in reachable]


@router.route(
    "/v1/pages",
    ["POST"],
    summary="Create a page (extension; a Warning header names colours below WCAG AA)",
    body="PageCreate",
    response="PageOut",
    status=201,
    style=Style.CURRENT,
)
def create_page(request: ApiRequest):
    require_owner(request.principal)
    body = request.parse()
    page = pages.create_page(request.principal.organization_id, plain(body.page, pages.PageInput))
    changed = body.page.model_fields_set
    return with_warnings(page, changed, page_out(page, request.archived), status=201)


@router.route(
    "/v1/pages/{page_id}",
    ["GET"],
    summary="Get a page",
    response="PageOut",
    archived_response="ArchivedPageOut",
)
def get_page(request: ApiRequest):
    return page_out(request.page(), request.archived)


@router.route(
    "/v1/pages/{page_id}",
    ["PATCH", "PUT"],
    summary="Update a page (a Warning header names colours below WCAG AA contrast)",
    body="PageUpdate",
    response="PageOut",
    archived_response="ArchivedPageOut",
)
def update_page(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    body = request.parse()
    page = pages.update_page(page, plain(body.page, pages.PageInput))
    return with_warnings(page, body.page.model_fields_set, page_out(page, request.archived))


@router.route(
    "/v1/pages/{page_id}/webhook_secret",
    ["GET"],
    summary="Get the secret that signs webhook bodies (X-Webhook-Signature)",
    response="WebhookSecretOut",
)
def get_webhook_secret(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return schemas.WebhookSecretOut(webhook_secret=pages.webhook_secret_of(page))


@router.route(
    "/v1/pages/{page_id}/webhook_secret/rotate",
    ["POST"],
    summary="Replace the secret that signs webhook bodies",
    response="WebhookSecretOut",
)
def rotate_webhook_secret(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return schemas.WebhookSecretOut(webhook_secret=pages.rotate_webhook_secret(page))
