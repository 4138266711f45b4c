"""What SES said about a subscriber's address: its recent soft bounces and why it was stopped."""

from pynamodb.attributes import (
    MapAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class BounceRecord(Model):
    """hash `page_id`, range `subscriber_id`. `soft_bounces` maps each soft bounce's SES
    `feedbackId` to when it happened (ISO 8601), so a notification SNS delivers twice counts
    once; `stopped_reason` says why a bounce or complaint quarantined or unsubscribed it."""

    Meta = table_meta("bounces")
    page_id = UnicodeAttribute(hash_key=True)
    subscriber_id = UnicodeAttribute(range_key=True)
    soft_bounces = MapAttribute(default=dict)
    stopped_reason = UnicodeAttribute(null=True)
    stopped_at = UTCDateTimeAttribute(null=True)
    updated_at = UTCDateTimeAttribute(null=True)
    version = VersionAttribute()
