"""Components (SPEC 2.7, 3.1): the page's components read in one Query, and every change to
them made as one `Edit`.

A group is a component with `group` true; its members carry its id in `group_id`, so one
Query of the page partition holds the whole page. An `Edit` reads that Query consistently,
applies the rules in memory and writes the items it changed in one transaction, each on the
condition that its version is still the one read. A concurrent writer therefore makes the commit
fail instead of being overwritten: the change is made once more from a fresh read, and a second
loss is a 409.

Rules kept here: the five statuses, one level of groups, a group never empty (it goes with its
last member; deleting it orphans its members), every status change recorded in the status
history with a `component_update` event in the same transaction. The page order is by the
stored `position`, which may be fractional so that an insert or a move writes one item; the API
shows the dense rank 1..n (`position_of`).
"""

import logging
from collections.abc import Callable
from datetime import datetime
from typing import NamedTuple, TypeVar, get_args

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import clock, config, ids
from chalicelib.domain.public_page import refresh_public_page
from chalicelib.http import errors
from chalicelib.notify import outbox
from chalicelib.schemas.components import ComponentFields, ComponentStatus
from chalicelib.store.base import transaction
from chalicelib.store.components import Component, ComponentStatusChange
from chalicelib.store.outbox import OutboxEvent

STATUSES = get_args(ComponentStatus)
OPERATIONAL = "operational"
COMPONENT_UPDATE_EVENT = "component_update"
# DynamoDB takes at most 100 items in one transaction.
MAX_TRANSACTION_ITEMS = 100
# Cancellation reasons of a transaction that another writer got in ahead of.
_RACE_REASONS = ("ConditionalCheckFailed", "TransactionConflict")
T = TypeVar("T")
logger = logging.getLogger(__name__)


def in_page_order(records: list[Component]) -> list[Component]:
    return sorted(records, key=lambda record: (record.position, record.created_at))


def components_of(page_id: str, *, consistent: bool = False) -> list[Component]:
    """Every component of the page, groups included, in page order (one Query)."""
    return in_page_order(list(Component.query(page_id, consistent_read=consistent)))


def position_of(records: list[Component], component: Component) -> int:
    """The 1-based rank the API shows for `component` among the page's `records`."""
    return [record.id for record in records].index(component.id) + 1


def members_of(records: list[Component], group_id: str) -> list[Component]:
    return [record for record in records if record.group_id == group_id and not record.group]


def find(records: list[Component], component_id: str, *, group: bool | None = None) -> Component:
    """The component (or, with `group`, only a group or only a non-group); else a 404."""
    for record in records:
        if record.id == component_id and (group is None or bool(record.group) == group):
            return record
    raise errors.not_found()


def check_named(
    records: list[Component], component_ids: list[str], field: str, *, group: bool = False
) -> None:
    """A 422 naming `field` unless every id is one of the page's components (with `group`,
    one of its groups): ids of another page or organization are never accepted."""
    known = {record.id for record in records if not group or record.group}
    for component_id in component_ids:
        if component_id not in known:
            what = "a component group" if group else "a component"
            raise errors.invalid(field, f"{component_id} is not {what} of this page")


def stage_status(
    writes: TransactWrite, component: Component, new_status: str, moment: datetime
) -> OutboxEvent | None:
    """Add a status change to the caller's transaction `writes`: the component (conditioned on
    the version it was read at), its history entry and the `component_update` event. Returns
    the event, to `outbox.publish` once the transaction committed (None if nothing changed).
    Incidents applying `components[id]=status` call this inside their own transaction."""
    old_status = component.status
    component.status = new_status
    component.updated_at = moment
    writes.save(component)
    if old_status == new_status:
        return None
    return _stage_status_change(writes, component, old_status, moment)


def _stage_status_change(
    writes: TransactWrite, component: Component, old_status: str, moment: datetime
) -> OutboxEvent:
    change_id = ids.new_id()
    writes.save(
        ComponentStatusChange(
            component.id,
            f"{clock.iso(moment)}#{change_id}",
            id=change_id,
            page_id=component.page_id,
            old_status=old_status,
            new_status=component.status,
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
            "new_status": component.status,
            "created_at": clock.iso(moment),
        },
    )


Step = Callable[[TransactWrite], OutboxEvent | None]


class Unit(NamedTuple):
    """Writes that land in the same transaction, and how many items they are."""

    items: int
    steps: list[Step]


class Edit:
    """One change to a page's components: read once, changed in memory, committed together."""

    def __init__(self, page_id: str):
        self.page_id = page_id
        self.moment = clock.now()
        # Consistent: the versions read are the ones the commit is conditioned on.
        self.records = components_of(page_id, consistent=True)
        self._saved: dict[str, Component] = {}
        self._deleted: dict[str, Component] = {}
        self._old_statuses: dict[str, str] = {}

    def find(self, component_id: str, *, group: bool | None = None) -> Component:
        return find(self.records, component_id, group=group)

    def members_of(self, group_id: str) -> list[Component]:
        return members_of(self.records, group_id)

    def touch(self, record: Component) -> None:
        """Mark `record` changed: it is written, and its `updated_at` moves."""
        record.updated_at = self.moment
        self._saved[record.id] = record

    def add(self, record: Component, position: int | None = None) -> None:
        """A new component or group, last in the page unless `position` says otherwise."""
        record.position = self.records[-1].position + 1 if self.records else 1
        self.records.append(record)
        self.touch(record)
        if position is not None:
            self.move(record, position)

    def move(self, record: Component, position: int) -> None:
        """Put `record` at the 1-based `position`, writing only it while there is room."""
        others = [other for other in self.records if other.id != record.id]
        index = min(max(position, 1), len(others) + 1) - 1
        if [other.id for other in self.records].index(record.id) == index:
            return
        between = _position_between(others, index)
        if between is None:
            self._renumber(others[:index] + [record] + others[index:])
        else:
            record.position = between
        self.records = in_page_order(self.records)
        self.touch(record)

    def _renumber(self, ordered: list[Component]) -> None:
        # Only when repeated moves into one gap exhaust a float's precision.
        for number, record in enumerate(ordered, start=1):
            if record.position != number:
                record.position = number
                self._saved[record.id] = record

    def set_status(self, record: Component, status: str) -> None:
        if status == record.status:
            return
        if record.group:
            raise errors.invalid("status", "a group's status follows its components")
        self._old_statuses.setdefault(record.id, record.status)
        record.status = status
        self.touch(record)

    def join_group(self, record: Component, group_id: str, field: str = "group_id") -> None:
        """Put `record` in the group `group_id`, out of any other (the left one may go)."""
        if record.group_id == group_id:
            return
        group = next((other for other in self.records if other.id == group_id), None)
        if group is None or not group.group:
            raise errors.invalid(field, "must name a component group of this page")
        if record.group:
            raise errors.invalid(field, "a group cannot be put inside a group")
        self.leave_group(record)
        record.group_id = group.id
        self.touch(record)
        # The group's member list changed: writing it also orders racing membership changes.
        self.touch(group)

    def leave_group(self, record: Component) -> None:
        left = record.group_id
        if not left:
            return
        record.group_id = None
        self.touch(record)
        group = next((other for other in self.records if other.id == left), None)
        if group is None:
            return
        if self.members_of(group.id):
            self.touch(group)
        else:
            self.delete(group)  # SPEC 2.8: a group cannot be empty

    def delete(self, record: Component) -> None:
        """Delete a component (its group goes with its last member) or a group (its members
        stay, out of any group)."""
        if record.group:
            for member in self.members_of(record.id):
                member.group_id = None
                self.touch(member)
        else:
            self.leave_group(record)
        self.records.remove(record)
        self._saved.pop(record.id, None)
        self._deleted[record.id] = record

    def commit(self) -> list[OutboxEvent]:
        """Write the changes; returns the events to publish. More changes than one transaction
        holds are written in several, new items first and deletions last, so that what a
        failure leaves behind still keeps the rules."""
        events: list[OutboxEvent] = []
        for steps in _batches(self._units()):
            with transaction() as writes:
                staged = [step(writes) for step in steps]
            events.extend(event for event in staged if event is not None)
        return events

    def _units(self) -> list[Unit]:
        """The writes, in units that must land in the same transaction."""
        units: list[Unit] = []
        for record in self._saved.values():
            old_status = self._old_statuses.get(record.id)
            if old_status is not None and old_status != record.status:
                units.append(Unit(3, [_saving(record), _recording(record, old_status)]))
            else:
                units.append(Unit(1, [_saving(record)]))
        units.extend(Unit(1, [_deleting(record)]) for record in self._deleted.values())
        return units


def _saving(record: Component) -> Step:
    return lambda writes: writes.save(record)


def _deleting(record: Component) -> Step:
    return lambda writes: writes.delete(record)


def _recording(record: Component, old_status: str) -> Step:
    """The status history entry and the event (two items)."""
    return lambda writes: _stage_status_change(writes, record, old_status, record.updated_at)


def _batches(units: list[Unit]) -> list[list[Step]]:
    batches: list[list[Step]] = []
    size = MAX_TRANSACTION_ITEMS
    for unit in units:
        if size + unit.items > MAX_TRANSACTION_ITEMS:
            batches.append([])
            size = 0
        batches[-1].extend(unit.steps)
        size += unit.items
    return batches


def _position_between(others: list[Component], index: int) -> float | int | None:
    """A stored position that sorts at `index` among `others`; None when there is no room."""
    before = others[index - 1].position if index > 0 else None
    after = others[index].position if index < len(others) else None
    if before is None:
        return 1 if after is None else after - 1
    if after is None:
        return before + 1
    middle = (before + after) / 2
    return middle if before < middle < after else None


def _lost_race(error: TransactWriteError) -> bool:
    if error.cause_response_code == "TransactionConflictException":
        return True
    reasons = error.cancellation_reasons or []
    return any(reason is not None and reason.code in _RACE_REASONS for reason in reasons)


def edit_components(page_id: str, change: Callable[[Edit], T]) -> T:
    """Apply `change` to a fresh `Edit` of the page and commit it; if another writer got in
    first, once more from a fresh read; a second loss is a 409. Then publish the events and
    refresh the public page."""
    for _ in range(2):
        edit = Edit(page_id)
        result = change(edit)
        try:
            events = edit.commit()
        except TransactWriteError as error:
            if _lost_race(error):
                continue
            raise
        outbox.publish(events)
        refresh_public_page(page_id)
        return result
    raise errors.conflict()


def _automation_email(component_id: str) -> str:
    host = config.public_base_url().split("//", 1)[-1].split("/")[0].split(":")[0]
    return f"component+{component_id}@notifications.{host}"


def _requested_status(component: Component, requested: str | None) -> str | None:
    """The status a body asks for; an empty one restores a third-party component's official
    status and leaves any other component as it is (SPEC 3.1)."""
    if requested == "":
        return component.official_status if component.third_party else None
    return requested


def _apply(edit: Edit, component: Component, fields: ComponentFields) -> None:
    given = fields.model_fields_set
    for name in ("name", "description", "showcase", "only_show_if_degraded"):
        if name in given and getattr(fields, name) is not None:
            setattr(component, name, getattr(fields, name))
    if "automation_email" in given:
        component.automation_email = fields.automation_email or _automation_email(component.id)
    if "start_date" in given:
        component.start_date = fields.start_date.isoformat() if fields.start_date else None
    if "group_id" in given:
        if fields.group_id:
            edit.join_group(component, fields.group_id)
        else:
            edit.leave_group(component)
    status = _requested_status(component, fields.status)
    if status:
        edit.set_status(component, status)
    if fields.position is not None:
        edit.move(component, fields.position)
    edit.touch(component)


class Written(NamedTuple):
    """A component or group as a change left it, with the page's components around it."""

    record: Component
    records: list[Component]


def create_component(page_id: str, fields: ComponentFields) -> Written:
    """A new component, `operational` until the body's `status` (recorded as a change)."""

    def change(edit: Edit) -> Written:
        component_id = ids.new_id()
        component = Component(
            page_id,
            component_id,
            name=fields.name,
            status=OPERATIONAL,
            showcase=True,
            only_show_if_degraded=False,
            automation_email=_automation_email(component_id),
            created_at=edit.moment,
            updated_at=edit.moment,
        )
        edit.add(component)
        return _updated(edit, component, fields)

    return edit_components(page_id, change)


def update_component(page_id: str, component_id: str, fields: ComponentFields) -> Written:
    return edit_components(page_id, lambda edit: _updated(edit, edit.find(component_id), fields))


def set_component_status(page_id: str, component_id: str, status: str) -> Component:
    """Set one component's status on its own (its history and event in the same transaction);
    a caller with a transaction of its own uses `stage_status` instead."""

    def change(edit: Edit) -> Component:
        component = edit.find(component_id, group=False)
        edit.set_status(component, status)
        return component

    return edit_components(page_id, change)


def _updated(edit: Edit, component: Component, fields: ComponentFields) -> Written:
    _apply(edit, component, fields)
    return Written(component, edit.records)


class Removal(NamedTuple):
    """A deleted component or group as it was, with the page as it was around it."""

    record: Component
    records: list[Component]
    member_ids: list[str]


def remove(edit: Edit, record: Component) -> Removal:
    before = list(edit.records)
    member_ids = [member.id for member in edit.members_of(record.id)] if record.group else []
    edit.delete(record)
    return Removal(record, before, member_ids)


def delete_component(page_id: str, component_id: str) -> Removal:
    """Delete a component (a group too: its members stay, orphaned)."""
    return edit_components(page_id, lambda edit: remove(edit, edit.find(component_id)))
