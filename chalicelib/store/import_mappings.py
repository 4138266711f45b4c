"""Where imported things went: a source page's ids and ours, per resource kind."""

from pynamodb.attributes import UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class ImportMapping(Model):
    """hash `scope` (`<our page id>#<kind>`, or `organization#<id>#page` for the page itself),
    range `source_id`: the id the source gave, `target_id` ours. Written in the transaction
    that writes the item, so an interrupted import resumes without duplicates and a second
    run updates what the first wrote."""

    Meta = table_meta("import-mappings")
    scope = UnicodeAttribute(hash_key=True)
    source_id = UnicodeAttribute(range_key=True)
    target_id = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
