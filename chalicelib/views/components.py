"""Components and groups as the API, webhooks, incidents and the public page show them."""

from __future__ import annotations

from chalicelib import clock, schemas
from chalicelib.domain.components import (
    component_fields,
    components_of,
    members_of,
    position_of,
)
from chalicelib.store.components import Component


def component_out(records: list[Component], component: Component) -> schemas.ComponentOut:
    fields = component_fields(records, component)
    if component.group:
        return schemas.GroupAsComponentOut(**fields)
    return schemas.ComponentOut(**fields)


def group_out(
    records: list[Component], group: Component, members: list[str] | None = None
) -> schemas.ComponentGroupOut:
    return schemas.ComponentGroupOut(
        id=group.id,
        page_id=group.page_id,
        name=group.name,
        description=group.description,
        position=position_of(records, group)
        if any(record.id == group.id for record in records)
        else int(group.position),
        components=members
        if members is not None
        else [m.id for m in members_of(records, group.id)],
        created_at=clock.iso(group.created_at),
        updated_at=clock.iso(group.updated_at),
    )


def page_components(page_id: str) -> list[dict]:
    """Every component of the page as JSON, in page order (one Query)."""
    records = components_of(page_id)
    return [component_out(records, record).model_dump(mode="json") for record in records]
