"""Delivery claims: one per (event, subscriber), so a redelivered message sends nothing twice."""

from pynamodb.attributes import NumberAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class DeliveryClaim(Model):
    """hash `id` = `<event id>#<subscriber id>`; written with a condition before sending.

    `outcome` is `sending` while a delivery holds it (until `lease_until`, Unix seconds), then
    `sent` or `failed`."""

    Meta = table_meta("deliveries")
    id = UnicodeAttribute(hash_key=True)
    outcome = UnicodeAttribute(default="sending")
    attempts = NumberAttribute(default=0)
    lease_until = NumberAttribute(null=True)
    expires_at = TTLAttribute()
