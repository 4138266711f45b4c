"""Delivery claims: one per (event, subscriber), so a redelivered message sends nothing twice."""

from pynamodb.attributes import (
    ListAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class DeliveryClaim(Model):
    """hash `id`: `<event id>#<subscriber id>` for a claim, `batch#<batch id>` for a batch.

    A claim is written with a condition before sending: `outcome` `sending`, held by the
    delivery `batch` until `lease_until` (Unix seconds). When the batch has sent, its own item
    is written (`outcome` `settled`, the subscribers it `failed`): every claim of the batch is
    settled by that one write. (Claims of earlier versions carry `sent` or `failed` themselves.)
    """

    Meta = table_meta("deliveries")
    id = UnicodeAttribute(hash_key=True)
    outcome = UnicodeAttribute(default="sending")
    attempts = NumberAttribute(default=0)
    batch = UnicodeAttribute(null=True)
    lease_until = NumberAttribute(null=True)
    failed = ListAttribute(of=UnicodeAttribute, null=True)
    expires_at = TTLAttribute()
