"""Components (groups included) and the history of their statuses.

A group is a component with `group` true; its members carry its id in `group_id`, so one
Query of the page partition gives every component with its group membership.
"""

from pynamodb.attributes import (
    BooleanAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

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
    # A third-party component mirrors a vendor's status; an empty status restores it.
    third_party = BooleanAttribute(default=False)
    official_status = UnicodeAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class ComponentStatusChange(Model):
    """hash `component_id`, range `key` = `<ISO time>#<change id>`: the status history that
    uptime and component webhooks read."""

    Meta = table_meta("component-status-changes")
    component_id = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)
    id = UnicodeAttribute()
    page_id = UnicodeAttribute()
    old_status = UnicodeAttribute()
    new_status = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
