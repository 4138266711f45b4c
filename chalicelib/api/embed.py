"""Status embed config (SPEC 4.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import pages
from chalicelib.http.routing import ApiRequest, Router

if TYPE_CHECKING:
    from chalicelib.store.models import Page

blueprint = Blueprint(__name__)
router = Router(blueprint, "status embed config")
PATH = "/v1/pages/{page_id}/status_embed_config"


def embed_out(page: Page) -> schemas.StatusEmbedConfigOut:
    return schemas.StatusEmbedConfigOut(page_id=page.id, **pages.embed_config_of(page))


@router.route(PATH, ["GET"], summary="Get the status embed config", response="StatusEmbedConfigOut")
def get_status_embed_config(request: ApiRequest):
    return embed_out(request.page())


@router.route(
    PATH,
    ["PATCH", "PUT"],
    summary="Update the status embed config",
    body="StatusEmbedConfigUpdate",
    response="StatusEmbedConfigOut",
)
def update_status_embed_config(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    changes = request.parse().status_embed_config
    return embed_out(pages.update_embed_config(page, changes.model_dump(exclude_none=True)))
