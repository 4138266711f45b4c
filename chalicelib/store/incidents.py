"""Incidents, their updates and postmortems, and incident templates.

An incident and its updates share the page's partition: the incident at `incident#<id>`, each
update at `incident#<id>#update#<update_id>`. Ids sort by time, so one Query on the page
reads every incident newest first with its updates, and one Query on `incident#<id>` reads
one incident whole, however many updates it has. The postmortem lives on the incident item.
"""

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    ListAttribute,
    MapAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta

INCIDENT_PREFIX = "incident#"
UPDATE_INFIX = "#update#"


def incident_key(incident_id: str) -> str:
    return f"{INCIDENT_PREFIX}{incident_id}"


def update_key(incident_id: str, update_id: str) -> str:
    return f"{INCIDENT_PREFIX}{incident_id}{UPDATE_INFIX}{update_id}"


class DueIncidents(GlobalSecondaryIndex):
    """Sparse: only maintenances with an automatic step still ahead carry `due`; `due_at` is
    the time of the next one, so the scheduler reads just what is due."""

    class Meta:
        index_name = "due-by-time"
        projection = AllProjection()

    due = UnicodeAttribute(hash_key=True)
    due_at = UTCDateTimeAttribute(range_key=True)


class IncidentRecord(Model):
    """hash `page_id`, range `key`: an incident (`kind` "incident") or one of its updates
    (`kind` "update"). Fields that only one of the two has are null on the other."""

    Meta = table_meta("incidents")
    page_id = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)
    kind = UnicodeAttribute()
    incident_id = UnicodeAttribute()
    id = UnicodeAttribute()
    status = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    # The incident's own fields.
    name = UnicodeAttribute(null=True)
    scheduled = BooleanAttribute(default=False)
    impact_override = UnicodeAttribute(null=True)
    impact = UnicodeAttribute(null=True)
    metadata = JSONAttribute(null=True)
    component_ids = ListAttribute(of=UnicodeAttribute, null=True)
    # The affected components as they were at the incident's last write, so reading an
    # incident needs no second query.
    components = JSONAttribute(null=True)
    monitoring_at = UTCDateTimeAttribute(null=True)
    resolved_at = UTCDateTimeAttribute(null=True)
    scheduled_for = UTCDateTimeAttribute(null=True)
    scheduled_until = UTCDateTimeAttribute(null=True)
    scheduled_remind_prior = BooleanAttribute(default=False)
    scheduled_reminded_at = UTCDateTimeAttribute(null=True)
    scheduled_auto_in_progress = BooleanAttribute(default=False)
    scheduled_auto_completed = BooleanAttribute(default=False)
    postmortem = MapAttribute(null=True)
    version = VersionAttribute(null=True)
    due = UnicodeAttribute(null=True)
    due_at = UTCDateTimeAttribute(null=True)
    due_index = DueIncidents()
    # An update's own fields.
    body = UnicodeAttribute(null=True)
    display_at = UTCDateTimeAttribute(null=True)
    wants_social_update = BooleanAttribute(default=False)
    deliver_notifications = BooleanAttribute(default=True)
    affected_components = JSONAttribute(null=True)


class IncidentTemplate(Model):
    """hash `page_id`, range `id`."""

    Meta = table_meta("incident-templates")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    name = UnicodeAttribute()
    title = UnicodeAttribute()
    body = UnicodeAttribute(default="")
    group_id = UnicodeAttribute(null=True)
    update_status = UnicodeAttribute(null=True)
    should_tweet = BooleanAttribute(default=False)
    should_send_notifications = BooleanAttribute(default=True)
    component_ids = ListAttribute(of=UnicodeAttribute, default=list)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
