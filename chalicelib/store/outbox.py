"""The outbox: notification events written in the same transaction as the change they announce."""

from pynamodb.attributes import JSONAttribute, TTLAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta

PENDING = "pending"


class PendingOutboxEvents(GlobalSecondaryIndex):
    """Sparse: only events not yet handed to the queue carry `pending`."""

    class Meta:
        index_name = "pending-by-time"
        projection = AllProjection()

    pending = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class OutboxEvent(Model):
    """hash `id`; index `pending-by-time` (pending, created_at) for the sweep."""

    Meta = table_meta("outbox")
    id = UnicodeAttribute(hash_key=True)
    page_id = UnicodeAttribute()
    kind = UnicodeAttribute()
    payload = JSONAttribute()
    created_at = UTCDateTimeAttribute()
    pending = UnicodeAttribute(null=True)
    expires_at = TTLAttribute(null=True)
    pending_index = PendingOutboxEvents()
