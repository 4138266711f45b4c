"""Built-in checks: HTTP requests the every-minute function makes for a component.

A check lives in its page's partition (hash `page_id`, range `id`), so a page's checks are one
Query. Every check carries `due` and the time of its next run, `due_at`, so the tick reads the
checks that are due with one Query of the `due-by-time` index, never a Scan.
"""

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta

DUE = "due"


class DueChecks(GlobalSecondaryIndex):
    """hash `due` (always `due`), range `due_at`: every check, by when it runs next."""

    class Meta:
        index_name = "due-by-time"
        projection = AllProjection()

    due = UnicodeAttribute(hash_key=True)
    due_at = UTCDateTimeAttribute(range_key=True)


class Check(Model):
    """hash `page_id`, range `id`.

    `expected_status_codes` are `[low, high]` ranges; `failure_thresholds` map a status to how
    many consecutive failures mean it. `verdict` is the status the check last asked for (through
    automation, which may have declined it); `metric_id` is the custom metric of its response
    times. `last_*` describe its latest run."""

    Meta = table_meta("checks")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    component_id = UnicodeAttribute()
    url = UnicodeAttribute()
    method = UnicodeAttribute(default="GET")
    expected_status_codes = JSONAttribute(default=list)
    expected_body = UnicodeAttribute(null=True)
    timeout_seconds = NumberAttribute(default=10)
    interval_seconds = NumberAttribute(default=60)
    failure_thresholds = JSONAttribute(default=dict)
    metric_id = UnicodeAttribute(null=True)
    consecutive_failures = NumberAttribute(default=0)
    verdict = UnicodeAttribute(default="operational")
    last_run_at = UTCDateTimeAttribute(null=True)
    last_ok = BooleanAttribute(null=True)
    last_status_code = NumberAttribute(null=True)
    last_response_ms = NumberAttribute(null=True)
    last_error = UnicodeAttribute(null=True)
    due = UnicodeAttribute(default=DUE)
    due_at = UTCDateTimeAttribute()
    due_index = DueChecks()
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()
