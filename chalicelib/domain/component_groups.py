"""Component groups (SPEC 2.8): components with `group` true, whose members carry their id in
`group_id`. Never empty; their members exist on the page before they join; a component is in
at most one group, so joining one leaves the other (which goes if that was its last member)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from chalicelib import ids
from chalicelib.domain import errors
from chalicelib.domain.components import (
    OPERATIONAL,
    Edit,
    Removal,
    Written,
    edit_components,
    remove,
)
from chalicelib.domain.inputs import UNSET, Unset, or_none
from chalicelib.store.components import Component

MEMBERS = "components"
# A group shows its most telling member: any outage over maintenance, maintenance over
# operational (as the page's indicator ranks them).
SHOWN_ORDER = (
    "operational",
    "under_maintenance",
    "degraded_performance",
    "partial_outage",
    "major_outage",
)


def shown_status(member_statuses: Iterable[str]) -> str:
    """A group's status wherever it is shown (the public page, the console's overview): the
    worst of its members' statuses, not the group's own stored one."""
    return max(member_statuses, key=SHOWN_ORDER.index, default=OPERATIONAL)


@dataclass(frozen=True)
class GroupInput:
    """A new group (a name and its members), or what an update changes: None leaves a field
    as it is; `description` is UNSET when not given (null clears it)."""

    name: str | None = None
    description: str | None | Unset = UNSET
    components: list[str] | None = None
    position: int | None = None


def _members(edit: Edit, member_ids: list[str]) -> list[Component]:
    """The components a body names as members, each checked to be a component of the page."""
    if not member_ids:
        raise errors.invalid(MEMBERS, "a group cannot be empty")
    members = []
    for member_id in member_ids:
        member = next((record for record in edit.records if record.id == member_id), None)
        if member is None:
            raise errors.invalid(MEMBERS, f"{member_id} is not a component of this page")
        if member.group:
            raise errors.invalid(MEMBERS, "a group cannot be put inside a group")
        members.append(member)
    return members


def _set_members(edit: Edit, group: Component, members: list[Component]) -> None:
    # Joins first, so the group is never left empty on the way.
    for member in members:
        edit.join_group(member, group.id, MEMBERS)
    kept = {member.id for member in members}
    for former in edit.members_of(group.id):
        if former.id not in kept:
            edit.leave_group(former)


def create_group(page_id: str, fields: GroupInput) -> Written:
    def change(edit: Edit) -> Written:
        members = _members(edit, fields.components or [])
        group = Component(
            page_id,
            ids.new_id(),
            name=fields.name,
            description=or_none(fields.description),
            group=True,
            status=OPERATIONAL,
            showcase=False,
            only_show_if_degraded=False,
            created_at=edit.moment,
            updated_at=edit.moment,
        )
        edit.add(group, fields.position)
        _set_members(edit, group, members)
        return Written(group, edit.records)

    return edit_components(page_id, change)


def update_group(page_id: str, group_id: str, fields: GroupInput) -> Written:
    def change(edit: Edit) -> Written:
        group = edit.find(group_id, group=True)
        if fields.components is not None:
            _set_members(edit, group, _members(edit, fields.components))
        if fields.name:
            group.name = fields.name
        if fields.description is not UNSET:
            group.description = fields.description
        if fields.position is not None:
            edit.move(group, fields.position)
        edit.touch(group)
        return Written(group, edit.records)

    return edit_components(page_id, change)


def delete_group(page_id: str, group_id: str) -> Removal:
    """Delete the group; its members stay, out of any group."""
    return edit_components(page_id, lambda edit: remove(edit, edit.find(group_id, group=True)))
