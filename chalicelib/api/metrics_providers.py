"""Metrics providers (SPEC 2.13, 4.11): the five kinds, and those linked to a page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import metrics_providers
from chalicelib.http.inputs import plain
from chalicelib.http.routing import ApiRequest, Router

if TYPE_CHECKING:
    from chalicelib.store.metrics import MetricsProvider

blueprint = Blueprint(__name__)
router = Router(blueprint, "metrics providers")
AVAILABLE = "/v1/metrics_providers"
PROVIDERS = "/v1/pages/{page_id}/metrics_providers"
PROVIDER = PROVIDERS + "/{metrics_provider_id}"


def provider_out(provider: MetricsProvider) -> schemas.MetricsProviderOut:
    """Never the credentials: they are kept only as hashes, and shown to nobody."""
    return schemas.MetricsProviderOut(
        id=provider.id,
        page_id=provider.page_id,
        type=provider.type,
        disabled=bool(provider.disabled),
        metric_base_uri=provider.metric_base_uri,
        created_at=clock.iso(provider.created_at),
        updated_at=clock.iso(provider.updated_at),
        last_revalidated_at=clock.iso(provider.last_revalidated_at),
    )


@router.route(
    AVAILABLE,
    ["GET"],
    summary="List the kinds of metrics provider and the fields each needs",
    response="AvailableProviderOut",
    many=True,
    authenticated=False,
)
def list_available_providers(request: ApiRequest):
    return metrics_providers.available()


@router.route(
    PROVIDERS,
    ["GET"],
    summary="List the page's metrics providers",
    response="MetricsProviderOut",
    many=True,
)
def list_metrics_providers(request: ApiRequest):
    page = request.page()
    return [provider_out(provider) for provider in metrics_providers.providers_of(page.id)]


@router.route(
    PROVIDERS,
    ["POST"],
    summary="Link a metrics provider",
    body="MetricsProviderCreate",
    response="MetricsProviderOut",
    status=201,
)
def create_metrics_provider(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().metrics_provider, metrics_providers.ProviderInput)
    return provider_out(metrics_providers.create_provider(page.id, fields))


@router.route(PROVIDER, ["GET"], summary="Get a metrics provider", response="MetricsProviderOut")
def get_metrics_provider(request: ApiRequest):
    page = request.page()
    provider_id = request.params["metrics_provider_id"]
    return provider_out(metrics_providers.get_provider(page.id, provider_id))


@router.route(
    PROVIDER,
    ["PATCH", "PUT"],
    summary="Update a metrics provider",
    body="MetricsProviderUpdate",
    response="MetricsProviderOut",
)
def update_metrics_provider(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().metrics_provider, metrics_providers.ProviderInput)
    provider_id = request.params["metrics_provider_id"]
    return provider_out(metrics_providers.update_provider(page.id, provider_id, fields))


@router.route(
    PROVIDER,
    ["DELETE"],
    summary="Unlink a metrics provider and delete its metrics (not the Self provider)",
    response="MetricsProviderOut",
)
def delete_metrics_provider(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    provider_id = request.params["metrics_provider_id"]
    return provider_out(metrics_providers.delete_provider(page.id, provider_id))
