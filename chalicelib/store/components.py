"""Components (groups included) and the days of their status history.

A group is a component with `group` true; its members carry its id in `group_id`, so one
Query of the page partition gives every component with its group membership.
"""

from datetime import UTC, datetime

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    ListAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

from chalicelib import clock
from chalicelib.recent import Recent
from chalicelib.store.base import table_meta


class Component(Model):
    """hash `page_id`, range `id`."""

    Meta = table_meta("components")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    position = NumberAttribute(default=0)
    status = UnicodeAttribute(default="operational")
    showcase = BooleanAttribute(default=True)
    only_show_if_degraded = BooleanAttribute(default=False)
    automation_email = UnicodeAttribute(null=True)
    start_date = UnicodeAttribute(null=True)
    group_id = UnicodeAttribute(null=True)
    group = BooleanAttribute(default=False)
    # A third-party component follows the component `third_party_component_id` of the page
    # whose summary.json is at `third_party_url`; `official_status` is that component's
    # status as last applied (an empty status restores it).
    third_party = BooleanAttribute(default=False)
    third_party_url = UnicodeAttribute(null=True)
    third_party_component_id = UnicodeAttribute(null=True)
    official_status = UnicodeAttribute(null=True)
    # Who set the status last (`hand`, or an automation as `<kind>:<id>`) and when: automation
    # leaves alone a status a person set recently.
    status_set_by = UnicodeAttribute(null=True)
    status_set_at = UTCDateTimeAttribute(null=True)
    # The status-day item its next change goes to, and how many changes that item holds.
    status_slot = UnicodeAttribute(null=True)
    status_slot_changes = NumberAttribute(default=0)
    # Past days' uptime as the owner set it, which replaces what the status history gives:
    # `{"YYYY-MM-DD" (page time): [minutes of major outage, minutes of partial outage]}`.
    uptime_edits = JSONAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class ComponentStatusDay(Model):
    """hash `component_id`, range `day` (`YYYY-MM-DD`, UTC; `YYYY-MM-DD#0001` and on for a
    day of more than `MAX_CHANGES_PER_ITEM` changes): the day's status changes, each
    `[ISO time, old status, new status]`, appended as they happen.

    Uptime over a range reads one item per day that had a change (at most 92 for the public
    page's bars, more only for a component that changed over a thousand times a day), however
    long the component has existed or how often it flapped before."""

    Meta = table_meta("component-status-days")
    component_id = UnicodeAttribute(hash_key=True)
    day = UnicodeAttribute(range_key=True)
    page_id = UnicodeAttribute()
    changes = ListAttribute(null=True)


# About 60 KB of changes an item.
MAX_CHANGES_PER_ITEM = 1000


def day_of(moment: datetime) -> str:
    return moment.astimezone(UTC).date().isoformat()


def record_change(component: Component, old_status: str, moment: datetime):
    """The item and the update action that append one change to its day (no read needed).

    A day's changes fill items of at most `MAX_CHANGES_PER_ITEM` (a component flapping all day
    would otherwise outgrow DynamoDB's 400 KB item): `YYYY-MM-DD`, then `YYYY-MM-DD#0001`...,
    which sort in order. The component, written in the same transaction, keeps which item
    is being filled and how full it is."""
    today = day_of(moment)
    slot, held = component.status_slot, int(component.status_slot_changes or 0)
    if not slot or not slot.startswith(today):
        slot, held = today, 0
    elif held >= MAX_CHANGES_PER_ITEM:
        number = int(slot.partition("#")[2] or 0) + 1
        slot, held = f"{today}#{number:04}", 0
    component.status_slot, component.status_slot_changes = slot, held + 1
    day = ComponentStatusDay(component.id, slot, page_id=component.page_id)
    entry = [clock.iso(moment), old_status, component.status]
    return day, [
        ComponentStatusDay.page_id.set(component.page_id),
        ComponentStatusDay.changes.set((ComponentStatusDay.changes | []).append([entry])),
    ]


# Status change: when, from which status, to which.
Change = tuple[datetime, str, str]
_changes_read: Recent[tuple, list[Change]] = Recent(512)


def changes_since(component: Component, first_day: str) -> list[Change]:
    """The component's status changes recorded on `first_day` and after, oldest first: one
    Query of its status days, or none when this process read them since the last change.

    Every change is appended in the transaction that moves the component's `status_slot`
    counters, so the component read with its counters says whether a read is still whole. A
    read is kept only when it shows the newest item as full as the counters say (an eventually
    consistent read may miss the last append)."""
    key = (component.id, first_day, component.status_slot, int(component.status_slot_changes or 0))
    kept = _changes_read.get(key)
    if kept is not None:
        return kept
    days = list(ComponentStatusDay.query(component.id, ComponentStatusDay.day >= first_day))
    changes = [
        (datetime.fromisoformat(at), old, new) for day in days for at, old, new in day.changes or []
    ]
    newest = next((day for day in days if day.day == component.status_slot), None)
    if newest is not None and len(newest.changes or []) == key[3]:
        _changes_read.put(key, changes)
    return changes
