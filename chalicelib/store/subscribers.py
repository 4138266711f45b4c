"""Subscribers of a page (page, component and incident subscribers alike), and settings."""

from pynamodb.attributes import (
    ListAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class Subscriber(Model):
    """hash `page_id`, range `id`. `incident_id` is set on incident subscribers;
    `component_ids` on component subscribers; unsubscribed ones stay, state `unsubscribed`."""

    Meta = table_meta("subscribers")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    kind = UnicodeAttribute()
    email = UnicodeAttribute(null=True)
    phone_country = UnicodeAttribute(null=True)
    phone_number = UnicodeAttribute(null=True)
    endpoint = UnicodeAttribute(null=True)
    component_ids = ListAttribute(of=UnicodeAttribute, default=list)
    incident_id = UnicodeAttribute(null=True)
    page_access_user = UnicodeAttribute(null=True)
    state = UnicodeAttribute()
    quarantined_at = UTCDateTimeAttribute(null=True)
    confirmed_at = UTCDateTimeAttribute(null=True)
    unsubscribed_at = UTCDateTimeAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class Recipient(Model):
    """Who hears of what, one item per (audience, active subscriber), so the fan-out reads
    its recipients directly and in pages, never a page's whole subscriber list.

    hash `audience`: `page#<page id>` (page subscribers), `component#<component id>` (one
    item per component a component subscriber follows), `incident#<incident id>` (incident
    subscribers); range `member` = `<kind>#<subscriber id>`, so one kind is a `begins_with`
    and the audiences of one event merge in one order. Only active subscribers have items:
    quarantine, unsubscribe and unconfirmed take them out. The item carries what a delivery
    needs (kind, address, created_at), so the fan-out reads nothing else.
    """

    Meta = table_meta("recipients")
    audience = UnicodeAttribute(hash_key=True)
    member = UnicodeAttribute(range_key=True)
    page_id = UnicodeAttribute()
    subscriber_id = UnicodeAttribute()
    kind = UnicodeAttribute()
    address = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()


class Setting(Model):
    """hash `name`: deployment-wide values made once (the link-signing secret)."""

    Meta = table_meta("settings")
    name = UnicodeAttribute(hash_key=True)
    value = UnicodeAttribute()
