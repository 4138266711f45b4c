"""Components (SPEC 2.7, 3.1): the page's components read in one Query, and every change to
them made as one `Edit`.

A group is a component with `group` true; its members carry its id in `group_id`, so one
Query of the page partition holds the whole page. An `Edit` reads that Query consistently,
applies the rules in memory and stages the items it changed on the unit of work, each on the
condition that its version is still the one read. A concurrent writer therefore makes the commit
fail instead of being overwritten: the unit of work makes the change again from a fresh read.

Rules kept here: the five statuses, one level of groups, a group never empty (it goes with its
last member; deleting it orphans its members), every status change recorded in the component's
status day with a `component_update` event in the same transaction. The page order is by the
stored `position`, which may be fractional so that an insert or a move writes one item; the API
shows the dense rank 1..n (`position_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple, TypeVar

from chalicelib import clock, config, ids, net
from chalicelib.domain import errors, turns, unit_of_work
from chalicelib.domain.inputs import UNSET, Unset, given
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.components import Component, record_change
from chalicelib.store.third_party import SOURCES, ThirdPartySource, follower_of

OPERATIONAL = "operational"
# The five statuses of SPEC 2.7 (what a third-party source may report).
STATUSES = frozenset(
    (OPERATIONAL, "degraded_performance", "partial_outage", "major_outage", "under_maintenance")
)
COMPONENT_UPDATE_EVENT = "component_update"
# Who set a status (`status_set_by`): a person, unless an automation names itself.
SET_BY_HAND = "hand"
T = TypeVar("T")

# Every component is on the public page and in its one snapshot item, and every write of
# components reads them all (their order): a page of thousands would be neither.
MAX_COMPONENTS_PER_PAGE = 500


def in_page_order(records: list[Component]) -> list[Component]:
    return sorted(records, key=lambda record: (record.position, record.created_at))


def components_of(page_id: str, *, consistent: bool = False) -> list[Component]:
    """Every component of the page, groups included, in page order (one Query)."""
    return in_page_order(list(Component.query(page_id, consistent_read=consistent)))


def position_of(records: list[Component], component: Component) -> int:
    """The 1-based rank the API shows for `component` among the page's `records`."""
    return [record.id for record in records].index(component.id) + 1


def neighbour_position(records: list[Component], component: Component, step: int) -> int | None:
    """The position that moves `component` one place up (`step` -1) or down (+1) past the
    next one shown beside it on the page: a member among its group's members, anything else
    among the page's top level. None when it is already first or last there."""
    group_ids = {record.id for record in records if record.group}

    def parent(record: Component) -> str | None:
        return record.group_id if record.group_id in group_ids else None

    beside = [record for record in records if parent(record) == parent(component)]
    index = [record.id for record in beside].index(component.id) + step
    if not 0 <= index < len(beside):
        return None
    return position_of(records, beside[index])


def component_fields(records: list[Component], component: Component) -> dict:
    """A component as every reader shows it (a group with its members' ids)."""
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
        "third_party": _third_party_fields(component),
    }
    if component.group:
        fields["components"] = [member.id for member in members_of(records, component.id)]
    return fields


def _third_party_fields(component: Component) -> dict | None:
    if not component.third_party_url:
        return None
    return {
        "summary_url": component.third_party_url,
        "component_id": component.third_party_component_id,
        "official_status": component.official_status,
    }


def members_of(records: list[Component], group_id: str) -> list[Component]:
    return [record for record in records if record.group_id == group_id and not record.group]


def find(records: list[Component], component_id: str, *, group: bool | None = None) -> Component:
    """The component (or, with `group`, only a group or only a non-group); else a 404."""
    for record in records:
        if record.id == component_id and (group is None or bool(record.group) == group):
            return record
    raise errors.NotFound()


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


def stage_status(work: Work, component: Component, new_status: str) -> None:
    """Stage a status change on `work`: the component (on the version it was read at) and,
    if the status moved, its status day and the `component_update` event, all in one
    transaction. Incidents applying `components[id]=status` call this."""
    old_status = component.status
    component.status = new_status
    component.updated_at = work.moment
    _mark_set_by(component, SET_BY_HAND, work.moment)
    with work.together():
        work.save(component)
        if old_status != new_status:
            _stage_status_change(work, component, old_status)


def _mark_set_by(component: Component, by: str, moment) -> None:
    component.status_set_by = by
    component.status_set_at = moment


def _stage_status_change(work: Work, component: Component, old_status: str) -> None:
    """The status day's new entry and the event (staged with the component's own write)."""
    day, actions = record_change(component, old_status, work.moment)
    work.update(day, actions, versioned=False)
    work.event(
        COMPONENT_UPDATE_EVENT,
        {
            "id": ids.new_id(),
            "component_id": component.id,
            "old_status": old_status,
            "new_status": component.status,
            "created_at": clock.iso(work.moment),
        },
    )


class Edit:
    """One change to a page's components: read once, changed in memory, staged together."""

    def __init__(self, work: Work):
        self.work = work
        self.page_id = work.page_id
        self.moment = work.moment
        # Consistent: the versions read are the ones the commit is conditioned on.
        self.records = components_of(self.page_id, consistent=True)
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
        if len(self.records) >= MAX_COMPONENTS_PER_PAGE:
            raise errors.invalid(
                "components", f"a page has at most {MAX_COMPONENTS_PER_PAGE} (groups included)"
            )
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

    def set_status(self, record: Component, status: str, *, by: str = SET_BY_HAND) -> None:
        """`by`: who sets it, a person unless an automation names itself."""
        if status == record.status:
            return
        if record.group:
            raise errors.invalid("status", "a group's status follows its components")
        self._old_statuses.setdefault(record.id, record.status)
        record.status = status
        _mark_set_by(record, by, self.moment)
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

    def stage(self) -> None:
        """Stage the changes on the work: new and changed items first, deletions last, so
        that what a failure between two transactions leaves behind still keeps the rules.
        A status change lands with its status day and event."""
        for record in self._saved.values():
            old_status = self._old_statuses.get(record.id)
            with self.work.together():
                self.work.save(record)
                if old_status is not None and old_status != record.status:
                    _stage_status_change(self.work, record, old_status)
        for record in self._deleted.values():
            self.work.delete(record)
            if record.third_party_url:
                self.work.delete(follower_of(record.third_party_url, record.page_id, record.id))


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


def edit_components(page_id: str, change: Callable[[Edit], T]) -> T:
    """Apply `change` to a fresh `Edit` of the page, in the unit of work (which makes it
    again from a fresh read when another writer got in first)."""

    def staged(work: Work) -> T:
        edit = Edit(work)
        result = change(edit)
        edit.stage()
        return result

    return unit_of_work.run(page_id, staged)


def automation_email_of(component_id: str) -> str:
    host = config.public_base_url().split("//", 1)[-1].split("/")[0].split(":")[0]
    return f"component+{component_id}@notifications.{host}"


@dataclass(frozen=True)
class ThirdPartyLink:
    """A component of another Statuspage-compatible status page to follow: that page's
    summary.json URL and the component's id in it."""

    summary_url: str
    component_id: str


@dataclass(frozen=True)
class ComponentInput:
    """A new component, or what an update changes. None leaves a field as it is; a field
    that null clears (out of the group, the default automation email, no start date, no
    source followed) is UNSET when not given. `status` "" restores a third-party
    component's official status."""

    name: str | None = None
    description: str | None = None
    status: str | None = None
    group_id: str | None | Unset = UNSET
    position: int | None = None
    showcase: bool | None = None
    only_show_if_degraded: bool | None = None
    automation_email: str | None | Unset = UNSET
    start_date: date | None | Unset = UNSET
    third_party: ThirdPartyLink | None | Unset = UNSET


def _requested_status(component: Component, requested: str | None) -> str | None:
    """The status a body asks for; an empty one restores a third-party component's official
    status and leaves any other component as it is (SPEC 3.1)."""
    if requested == "":
        return component.official_status if component.third_party else None
    return requested


def _follow(edit: Edit, component: Component, link: ThirdPartyLink | None) -> None:
    """Make `component` follow a component of another status page (`link`: that page's
    summary.json URL and the component's id there), or nothing (None). A new link has no
    official status until the next poll brings one (`chalicelib.domain.third_party`)."""
    if link is not None and component.group:
        raise errors.invalid("third_party", "a group's status follows its components")
    new = (link.summary_url, link.component_id) if link else (None, None)
    if (component.third_party_url, component.third_party_component_id) == new:
        return
    if link is not None and not net.may_call(link.summary_url):
        raise errors.invalid("third_party.summary_url", "must resolve to a public address")
    old_url = component.third_party_url
    if old_url and old_url != new[0]:
        edit.work.delete(follower_of(old_url, component.page_id, component.id))
    component.third_party = link is not None
    component.third_party_url, component.third_party_component_id = new
    component.official_status = None
    if link is not None:
        edit.work.save(
            follower_of(link.summary_url, component.page_id, component.id, link.component_id)
        )
        # The poll reads the source's followers again when `linked_at` is newer than its
        # last reconciliation, so the new follower gets the source's status at the next tick.
        source = ThirdPartySource(SOURCES, link.summary_url)
        edit.work.update(source, [ThirdPartySource.linked_at.set(edit.moment)], versioned=False)
    edit.touch(component)


def _apply(edit: Edit, component: Component, fields: ComponentInput) -> None:
    changed = given(fields)
    if "third_party" in changed:
        _follow(edit, component, fields.third_party)
    for name in ("name", "description", "showcase", "only_show_if_degraded"):
        if getattr(fields, name) is not None:
            setattr(component, name, getattr(fields, name))
    if "automation_email" in changed:
        component.automation_email = fields.automation_email or automation_email_of(component.id)
    if "start_date" in changed:
        component.start_date = fields.start_date.isoformat() if fields.start_date else None
    if "group_id" in changed:
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


def create_component(page_id: str, fields: ComponentInput) -> Written:
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
            automation_email=automation_email_of(component_id),
            created_at=edit.moment,
            updated_at=edit.moment,
        )
        edit.add(component)
        return _updated(edit, component, fields)

    return edit_components(page_id, change)


def update_component(page_id: str, component_id: str, fields: ComponentInput) -> Written:
    with turns.taken(component_id):
        return edit_components(
            page_id, lambda edit: _updated(edit, edit.find(component_id), fields)
        )


def set_component_status(page_id: str, component_id: str, status: str) -> Component:
    """Set one component's status on its own (its history and event in the same transaction);
    a caller with a transaction of its own uses `stage_status` instead."""

    def change(edit: Edit) -> Component:
        component = edit.find(component_id, group=False)
        edit.set_status(component, status)
        return component

    with turns.taken(component_id):
        return edit_components(page_id, change)


def _updated(edit: Edit, component: Component, fields: ComponentInput) -> Written:
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
