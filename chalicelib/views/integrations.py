"""Integrations, their receiver URLs and the automation audit as the API and the console show
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, config, schemas
from chalicelib.domain import integrations

if TYPE_CHECKING:
    from chalicelib.store.integrations import AutomationEvent, Integration


def receiver_url(token: str) -> str:
    return config.public_base_url() + integrations.RECEIVER_PATH.format(token=token)


def integration_out(integration: Integration, token: str | None = None) -> schemas.IntegrationOut:
    """`url` only with the token just made: only its hash is kept."""
    return schemas.IntegrationOut(
        id=integration.id,
        page_id=integration.page_id,
        kind=integration.kind,
        name=integration.name or "",
        url=receiver_url(token) if token else None,
        rules=integration.rules or [],
        severities=integration.severities or {},
        hold_minutes=int(integration.hold_minutes),
        min_firing_seconds=int(integration.min_firing_seconds),
        expire_after_minutes=integrations.expire_after_minutes(integration),
        rate_limit_per_minute=int(integration.rate_limit_per_minute),
        incident_template_id=integration.incident_template_id,
        resolve_incident=bool(integration.resolve_incident),
        open_incident_id=integration.open_incident_id,
        created_at=clock.iso(integration.created_at),
        updated_at=clock.iso(integration.updated_at),
    )


def event_out(event: AutomationEvent) -> schemas.AutomationEventOut:
    return schemas.AutomationEventOut(
        id=event.id,
        source_kind=event.source_kind,
        source_id=event.source_id,
        detail=event.detail or "",
        component_id=event.component_id,
        old_status=event.old_status,
        new_status=event.new_status,
        changed=bool(event.changed),
        reason=event.reason,
        created_at=clock.iso(event.created_at),
    )
