"""Incidents, their updates and postmortems, and incident templates.

An incident and its updates share the page's partition: the incident at `incident#<id>`, each
update at `incident#<id>#update#<update_id>`. Ids sort by time, so one Query on the page
reads incidents newest first with their updates, and one Query on `incident#<id>` reads
one incident whole, however many updates it has. The postmortem lives on the incident item.

Only incident items (never updates) carry `incident_page`, and only open ones `open_page`, so
three sparse indexes answer what the lists and the public page ask without reading a page's
history: where page N of a list starts (`incidents-by-page`, keys only), the open incidents and
maintenances (`open-by-page`) and the incidents that started in a period (`incidents-by-start`).
"""

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection
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


class IncidentsByPage(GlobalSecondaryIndex):
    """Sparse (incident items only), keys only: counting off the incidents before page N of a
    list reads keys, not incidents."""

    class Meta:
        index_name = "incidents-by-page"
        projection = KeysOnlyProjection()

    incident_page = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)


class OpenIncidents(GlobalSecondaryIndex):
    """Sparse: only unresolved incidents and maintenances not completed carry `open_page`."""

    class Meta:
        index_name = "open-by-page"
        projection = AllProjection()

    open_page = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)


class IncidentsByStart(GlobalSecondaryIndex):
    """Sparse (incident items only): incidents by when they began (a maintenance: its window's
    start), for the public page's recent days and the history's periods."""

    class Meta:
        index_name = "incidents-by-start"
        projection = AllProjection()

    incident_page = UnicodeAttribute(hash_key=True)
    started_at = UTCDateTimeAttribute(range_key=True)


class CountedBackfills(GlobalSecondaryIndex):
    """Sparse: only backfilled incidents that count toward uptime carry `uptime_page`, so the
    uptime bars read them without reading the other incidents of their window."""

    class Meta:
        index_name = "uptime-by-page"
        projection = AllProjection()

    uptime_page = UnicodeAttribute(hash_key=True)
    started_at = UTCDateTimeAttribute(range_key=True)


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
    # The automatic steps' effects; null means the default, true.
    auto_transition_to_maintenance_state = BooleanAttribute(null=True)
    auto_transition_to_operational_state = BooleanAttribute(null=True)
    auto_transition_deliver_notifications_at_start = BooleanAttribute(null=True)
    auto_transition_deliver_notifications_at_end = BooleanAttribute(null=True)
    # When the team is reminded of an open incident (null: the default hours), and how many
    # reminders went out since its last write (null: none).
    reminder_intervals = UnicodeAttribute(null=True)
    reminders_sent = NumberAttribute(null=True)
    postmortem = MapAttribute(null=True)
    # On a backfilled incident that counts toward uptime by its impact, from when it began
    # until resolved, the page's id (`CountedBackfills`); realtime incidents count through the
    # component statuses they set.
    uptime_page = UnicodeAttribute(null=True)
    counted_backfills = CountedBackfills()
    version = VersionAttribute(null=True)
    due = UnicodeAttribute(null=True)
    due_at = UTCDateTimeAttribute(null=True)
    due_index = DueIncidents()
    incident_page = UnicodeAttribute(null=True)
    open_page = UnicodeAttribute(null=True)
    started_at = UTCDateTimeAttribute(null=True)
    # The newest update in brief (status, body's start, display_at): what a list of past
    # incidents shows without reading updates.
    last_update = JSONAttribute(null=True)
    by_page = IncidentsByPage()
    open_index = OpenIncidents()
    by_start = IncidentsByStart()

    @property
    def counts_in_uptime(self) -> bool:
        return self.uptime_page is not None

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
