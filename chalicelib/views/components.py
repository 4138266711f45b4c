"""Components and groups as the API, webhooks, incidents and the public page show them."""

from chalicelib import clock
from chalicelib.domain.components import components_of, members_of, position_of
from chalicelib.schemas.components import ComponentGroupOut, ComponentOut, GroupAsComponentOut
from chalicelib.store.components import Component


def component_out(records: list[Component], component: Component) -> ComponentOut:
    fields = {
        "id": component.id,
        "page_id": component.page_id,
        "group_id": component.group_id,
        "created_at": clock.iso(component.created_at),
        "updated_at": clock.iso(component.updated_at),
        "group": bool(component.group),
        "name": component.name,
        "description": component.description,
        "position": position_of(records, component),
        "status": component.status,
        "showcase": bool(component.showcase),
        "only_show_if_degraded": bool(component.only_show_if_degraded),
        "automation_email": component.automation_email,
        "start_date": component.start_date,
    }
    if component.group:
        members = [member.id for member in members_of(records, component.id)]
        return GroupAsComponentOut(**fields, components=members)
    return ComponentOut(**fields)


def group_out(
    records: list[Component], group: Component, members: list[str] | None = None
) -> ComponentGroupOut:
    return ComponentGroupOut(
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
