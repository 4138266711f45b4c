"""Components and component groups (SPEC 2.7, 2.8, 3.1).

Rules kept here: statuses, one level of groups, a group never empty (deleting its last
member deletes it; deleting it orphans its members), positions dense 1..n in page order, and
every status change recorded in the status history with a `component_update` event, in the
same transaction as the change.
"""

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from pynamodb.exceptions import PutError, TransactWriteError, UpdateError

from chalicelib import clock, config, ids
from chalicelib.http import errors
from chalicelib.notify import outbox
from chalicelib.schemas.components import ComponentFields, ComponentGroupFields
from chalicelib.store.base import transaction
from chalicelib.store.components import Component, ComponentStatusChange
from chalicelib.store.outbox import OutboxEvent

STATUSES = (
    "operational",
    "degraded_performance",
    "partial_outage",
    "major_outage",
    "under_maintenance",
)
COMPONENT_UPDATE_EVENT = "component_update"
T = TypeVar("T")
_RACES = (PutError, UpdateError, TransactWriteError)


def retrying(change: Callable[[], T]) -> T:
    """Run a read-change-write once more from a fresh read if another writer won the race."""
    try:
        return change()
    except _RACES:
        try:
            return change()
        except _RACES:
            raise errors.conflict() from None


def components_of(page_id: str) -> list[Component]:
    """Every component of the page, groups included, in page order (one Query)."""
    records = list(Component.query(page_id))
    return sorted(records, key=lambda record: (record.position, record.created_at))


def position_of(records: list[Component], component: Component) -> int:
    return [record.id for record in records].index(component.id) + 1


def members_of(records: list[Component], group_id: str) -> list[Component]:
    return [record for record in records if record.group_id == group_id and not record.group]


def find(records: list[Component], component_id: str, *, group: bool | None = None) -> Component:
    for record in records:
        if record.id == component_id and (group is None or record.group == group):
            return record
    raise errors.not_found()


def _renumber(ordered: list[Component]) -> None:
    """Store positions 1..n in the given order, touching only the position of items that move."""
    for number, record in enumerate(ordered, start=1):
        if record.position != number:
            record.update(actions=[Component.position.set(number)], add_version_condition=False)


def _place(records: list[Component], component: Component, position: int | None) -> None:
    ordered = [record for record in records if record.id != component.id]
    index = len(ordered) if position is None else min(max(position, 1), len(ordered) + 1) - 1
    ordered.insert(index, component)
    _renumber(ordered)


def _automation_email(component_id: str) -> str:
    host = config.public_base_url().split("//", 1)[-1].split("/")[0].split(":")[0]
    return f"component+{component_id}@notifications.{host}"


def stage_status(
    writes, component: Component, new_status: str, moment: datetime
) -> OutboxEvent | None:
    """Add a status change to the transaction `writes`: the component itself, its history
    entry and the `component_update` event. Returns the event to publish after the commit."""
    old_status = component.status
    component.status = new_status
    component.updated_at = moment
    writes.save(component)
    if old_status == new_status:
        return None
    change_id = ids.new_id()
    writes.save(
        ComponentStatusChange(
            component.id,
            f"{clock.iso(moment)}#{change_id}",
            id=change_id,
            page_id=component.page_id,
            old_status=old_status,
            new_status=new_status,
            created_at=moment,
        )
    )
    return outbox.stage_event(
        writes,
        component.page_id,
        COMPONENT_UPDATE_EVENT,
        {
            "id": change_id,
            "component_id": component.id,
            "old_status": old_status,
            "new_status": new_status,
            "created_at": clock.iso(moment),
        },
    )


def _save_with_status(component: Component, new_status: str | None) -> None:
    """Save the component; through a transaction with its history when the status changes."""
    if new_status is None or new_status == component.status:
        component.save()
        return
    with transaction() as writes:
        event = stage_status(writes, component, new_status, component.updated_at)
    outbox.publish([event] if event else [])


def _check_group_id(records: list[Component], component: Component, group_id: str) -> None:
    group = next((record for record in records if record.id == group_id), None)
    if group is None or not group.group:
        raise errors.invalid("group_id", "must name a component group of this page")
    if component.group:
        raise errors.invalid("group_id", "a group cannot be put inside a group")


def _delete_if_empty(records: list[Component], group_id: str | None, leaving: str) -> None:
    """A group cannot be empty: it goes with its last member."""
    if not group_id:
        return
    remaining = [m for m in members_of(records, group_id) if m.id != leaving]
    if not remaining:
        group = next((record for record in records if record.id == group_id), None)
        if group is not None:
            group.delete(add_version_condition=False)


def _new_status(component: Component, requested: str | None) -> str | None:
    if requested == "":
        return component.official_status if component.third_party else None
    return requested


def create_component(page_id: str, fields: ComponentFields) -> Component:
    records = components_of(page_id)
    moment = clock.now()
    component_id = ids.new_id()
    component = Component(
        page_id,
        component_id,
        name=fields.name,
        description=fields.description,
        status="operational",
        showcase=True if fields.showcase is None else fields.showcase,
        only_show_if_degraded=bool(fields.only_show_if_degraded),
        automation_email=fields.automation_email or _automation_email(component_id),
        start_date=fields.start_date.isoformat() if fields.start_date else None,
        position=len(records) + 1,
        created_at=moment,
        updated_at=moment,
    )
    if fields.group_id:
        _check_group_id(records, component, fields.group_id)
        component.group_id = fields.group_id
    # A new component starts operational (SPEC 3.1); a status in the body applies at once.
    component.save()
    if fields.status:
        retrying(lambda: _save_with_status(component, fields.status))
    if fields.position is not None:
        _place(components_of(page_id), component, fields.position)
    return component


def update_component(page_id: str, component_id: str, fields: ComponentFields) -> Component:
    given = fields.model_fields_set

    def change() -> tuple[Component, list[Component]]:
        records = components_of(page_id)
        component = find(records, component_id)
        old_group_id = component.group_id
        for name in ("name", "description", "showcase", "only_show_if_degraded"):
            if name in given and getattr(fields, name) is not None:
                setattr(component, name, getattr(fields, name))
        if "automation_email" in given:
            component.automation_email = fields.automation_email or _automation_email(component.id)
        if "start_date" in given:
            component.start_date = fields.start_date.isoformat() if fields.start_date else None
        if "group_id" in given and fields.group_id != old_group_id:
            if fields.group_id:
                _check_group_id(records, component, fields.group_id)
            component.group_id = fields.group_id
        component.updated_at = clock.now()
        _save_with_status(component, _new_status(component, fields.status))
        if component.group_id != old_group_id:
            _delete_if_empty(records, old_group_id, component.id)
        return component, records

    component, records = retrying(change)
    if fields.position is not None:
        _place(records, component, fields.position)
    return component


def delete_component(page_id: str, component_id: str) -> Component:
    records = components_of(page_id)
    component = find(records, component_id, group=False)
    component.delete(add_version_condition=False)
    _delete_if_empty(records, component.group_id, component.id)
    _renumber([record for record in components_of(page_id)])
    return component


def _set_members(records: list[Component], group: Component, member_ids: list[str]) -> None:
    if not member_ids:
        raise errors.invalid("components", "a group cannot be empty")
    by_id = {record.id: record for record in records}
    for member_id in member_ids:
        member = by_id.get(member_id)
        if member is None:
            raise errors.invalid("components", f"{member_id} is not a component of this page")
        if member.group:
            raise errors.invalid("components", "a group cannot be put inside a group")
    moment = clock.now()
    for record in members_of(records, group.id):
        if record.id not in member_ids:
            record.update(
                actions=[Component.group_id.remove(), Component.updated_at.set(moment)],
                add_version_condition=False,
            )
    for member_id in dict.fromkeys(member_ids):
        member = by_id[member_id]
        if member.group_id != group.id:
            previous_group = member.group_id
            member.update(
                actions=[Component.group_id.set(group.id), Component.updated_at.set(moment)],
                add_version_condition=False,
            )
            _delete_if_empty(records, previous_group, member.id)


def create_group(page_id: str, fields: ComponentGroupFields) -> Component:
    records = components_of(page_id)
    moment = clock.now()
    group = Component(
        page_id,
        ids.new_id(),
        name=fields.name,
        description=fields.description,
        group=True,
        showcase=False,
        position=len(records) + 1,
        created_at=moment,
        updated_at=moment,
    )
    # Checked before the group exists, so a refused group leaves nothing behind.
    if not fields.components:
        raise errors.invalid("components", "a group cannot be empty")
    by_id = {record.id: record for record in records}
    unknown = [member for member in fields.components if member not in by_id]
    if unknown:
        raise errors.invalid("components", f"{unknown[0]} is not a component of this page")
    group.save()
    _set_members(records, group, fields.components)
    if fields.position is not None:
        _place(components_of(page_id), group, fields.position)
    return group


def update_group(page_id: str, group_id: str, fields: ComponentGroupFields) -> Component:
    records = components_of(page_id)
    group = find(records, group_id, group=True)
    if fields.components is not None:
        _set_members(records, group, fields.components)
    changes = [Component.updated_at.set(clock.now())]
    if fields.name:
        changes.append(Component.name.set(fields.name))
    if "description" in fields.model_fields_set:
        changes.append(Component.description.set(fields.description))
    group.update(actions=changes, add_version_condition=False)
    if fields.position is not None:
        _place(components_of(page_id), group, fields.position)
    return group


def delete_group(page_id: str, group_id: str) -> tuple[Component, list[str]]:
    """Delete the group; its members stay, orphaned. Returns the group and its former members."""
    records = components_of(page_id)
    group = find(records, group_id, group=True)
    members = members_of(records, group.id)
    moment = clock.now()
    for member in members:
        member.update(
            actions=[Component.group_id.remove(), Component.updated_at.set(moment)],
            add_version_condition=False,
        )
    group.delete(add_version_condition=False)
    _renumber(components_of(page_id))
    return group, [member.id for member in members]
