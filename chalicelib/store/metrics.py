"""Metrics providers linked to a page, their metrics, and the data points of custom metrics.

Providers and metrics live in the page's partition (hash `page_id`, range `id`): a page has a
handful of each, so one Query reads them all. A data point is keyed by its metric and the
start of its 30-second interval (hash `metric_id`, range `at`, Unix seconds), so writing a
second point in one interval replaces the first by a plain put, and a chart's window is one
Query on a range of `at`.
"""

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class MetricsProvider(Model):
    """hash `page_id`, range `id`. `credentials`: required field -> its salted hash (a secret
    is never stored as sent, nor shown)."""

    Meta = table_meta("metrics-providers")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    type = UnicodeAttribute()
    disabled = BooleanAttribute(default=False)
    metric_base_uri = UnicodeAttribute(null=True)
    credentials = MapAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    last_revalidated_at = UTCDateTimeAttribute(null=True)
    version = VersionAttribute()


class Metric(Model):
    """hash `page_id`, range `id`."""

    Meta = table_meta("metrics")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    metrics_provider_id = UnicodeAttribute()
    metric_identifier = UnicodeAttribute(null=True)
    name = UnicodeAttribute()
    display = BooleanAttribute(default=False)
    tooltip_description = UnicodeAttribute(null=True)
    backfilled = BooleanAttribute(default=False)
    backfill_percentage = NumberAttribute(default=0)
    y_axis_min = NumberAttribute(null=True)
    y_axis_max = NumberAttribute(null=True)
    y_axis_hidden = BooleanAttribute(default=False)
    suffix = UnicodeAttribute(default="")
    decimal_places = NumberAttribute(default=0)
    transform = UnicodeAttribute(null=True)
    application_id = UnicodeAttribute(null=True)
    most_recent_data_at = UTCDateTimeAttribute(null=True)
    last_fetched_at = UTCDateTimeAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class MetricPoint(Model):
    """hash `metric_id`, range `at` (the start of the point's 30-second interval, Unix
    seconds). No version: the last point written in an interval is the one kept."""

    Meta = table_meta("metric-points")
    metric_id = UnicodeAttribute(hash_key=True)
    at = NumberAttribute(range_key=True)
    value = NumberAttribute()
