"""Integrations (alert webhooks), the alerts firing through them, what automation waits to
apply, and the audit of what automation did.

An integration's token is kept only as a hash, in `IntegrationToken` keyed by that hash: a post
finds its integration with one strongly consistent GetItem, so a rotated token stops working at
once (an index would answer the old hash a little longer).
"""

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta

DUE = "due"


class Integration(Model):
    """hash `page_id`, range `id`.

    `rules` are `[{"match": {label: value}, "component_id": id}]`, tried in order before the
    default labels; `severities` maps a `severity` label to a component status, over the
    default mapping. `open_incident_id` is the incident this integration opened and has not
    resolved yet. `expire_after_minutes` None stands for its kind's default (issue 45): an
    integration stored before the setting existed reads as its kind's default."""

    Meta = table_meta("integrations")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    kind = UnicodeAttribute()
    name = UnicodeAttribute(default="")
    token_hash = UnicodeAttribute()
    rules = JSONAttribute(default=list)
    severities = JSONAttribute(default=dict)
    hold_minutes = NumberAttribute(default=60)
    # Issue 45: flapping protection is on by default. An integration stored with a value keeps
    # it; one stored without any reads as this.
    min_firing_seconds = NumberAttribute(default=60)
    expire_after_minutes = NumberAttribute(null=True)
    # Issue 45: a page's 500 components firing at once under `group_by: [component]` are 500
    # posts within Alertmanager's group_wait, which must all fit.
    rate_limit_per_minute = NumberAttribute(default=600)
    incident_template_id = UnicodeAttribute(null=True)
    resolve_incident = BooleanAttribute(default=False)
    open_incident_id = UnicodeAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class IntegrationToken(Model):
    """hash `token_hash` (SHA-256 of the token in an integration's URL): its integration."""

    Meta = table_meta("integration-tokens")
    token_hash = UnicodeAttribute(hash_key=True)
    page_id = UnicodeAttribute()
    integration_id = UnicodeAttribute()


class ExpiringAlerts(GlobalSecondaryIndex):
    """Sparse: only firing alerts that expire when not posted again carry `due`."""

    class Meta:
        index_name = "due-by-expiry"
        projection = AllProjection()

    due = UnicodeAttribute(hash_key=True)
    expires_at = UTCDateTimeAttribute(range_key=True)


class FiringAlerts(Model):
    """hash `integration_id`, range `component_id`: the alerts firing on one component through
    one integration, `{fingerprint: {"status": wanted status, "since": ISO time it began to
    fire as seen here, "fired": ISO time it began to want that status, "seen": ISO time it
    was last posted}}`; the item goes when the last one resolves or expires. `expires_at`:
    when its first alert expires unless posted again (none when the integration's alerts
    never expire)."""

    Meta = table_meta("firing-alerts")
    integration_id = UnicodeAttribute(hash_key=True)
    component_id = UnicodeAttribute(range_key=True)
    page_id = UnicodeAttribute()
    alerts = JSONAttribute(default=dict)
    due = UnicodeAttribute(null=True)
    expires_at = UTCDateTimeAttribute(null=True)
    version = VersionAttribute()
    expiry_index = ExpiringAlerts()


class DueAutomation(GlobalSecondaryIndex):
    """Sparse: only waits that a later tick must look at again carry `due`."""

    class Meta:
        index_name = "due-by-time"
        projection = AllProjection()

    due = UnicodeAttribute(hash_key=True)
    due_at = UTCDateTimeAttribute(range_key=True)


class PendingStatus(Model):
    """hash `page_id`, range `key` (`<component id>#<source kind>#<source id>`): a status an
    automation wants for a component but has not applied yet (it has not been wanted for
    `min_firing_seconds`, or people hold the component), so the every-minute tick tries it
    again at `due_at`."""

    Meta = table_meta("pending-statuses")
    page_id = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)
    component_id = UnicodeAttribute()
    source_kind = UnicodeAttribute()
    source_id = UnicodeAttribute()
    status = UnicodeAttribute()
    detail = UnicodeAttribute(default="")
    wanted_since = UTCDateTimeAttribute()
    # When what wants the status last fired (None: nothing fires, a resolution or an expiry):
    # a component set by hand after it is not moved by it (issue 45).
    fired_at = UTCDateTimeAttribute(null=True)
    hold_minutes = NumberAttribute(default=60)
    min_firing_seconds = NumberAttribute(default=0)
    own_incident_id = UnicodeAttribute(null=True)
    reason = UnicodeAttribute(default="")
    due = UnicodeAttribute(null=True)
    due_at = UTCDateTimeAttribute(null=True)
    due_index = DueAutomation()


class AutomationEvent(Model):
    """hash `page_id`, range `key` (`<ISO time>#<id>`, so a Query reads the newest first):
    one thing automation did or declined to do, and why."""

    Meta = table_meta("automation-events")
    page_id = UnicodeAttribute(hash_key=True)
    key = UnicodeAttribute(range_key=True)
    id = UnicodeAttribute()
    source_kind = UnicodeAttribute()
    source_id = UnicodeAttribute()
    detail = UnicodeAttribute(default="")
    component_id = UnicodeAttribute(null=True)
    old_status = UnicodeAttribute(null=True)
    new_status = UnicodeAttribute(null=True)
    changed = BooleanAttribute(default=False)
    reason = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
    expires_at = TTLAttribute()
