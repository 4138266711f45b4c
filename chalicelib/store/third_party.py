"""Third-party components: the status pages they follow, and who follows each.

A source is a Statuspage-compatible `summary.json` URL. Every source some component follows
has one `ThirdPartySource` item in the one partition `source`, so the scheduled poll reads the
set of sources with one Query (paged) and fetches each URL once, however many components on
however many pages follow it. The components that follow a source are its `ThirdPartyFollower`
items, read only when the source's statuses changed or a component began to follow it.
"""

from pynamodb.attributes import UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.models import Model

from chalicelib.store.base import table_meta

SOURCES = "source"


class ThirdPartySource(Model):
    """hash `shard` (always `source`), range `url`.

    `digest` fingerprints the source's component statuses as last polled; `linked_at` is when
    a component last began to follow it, and `reconciled_at` the `linked_at` its followers were
    last brought in line with: a later `linked_at` means a follower has not been yet."""

    Meta = table_meta("third-party-sources")
    shard = UnicodeAttribute(hash_key=True, default=SOURCES)
    url = UnicodeAttribute(range_key=True)
    digest = UnicodeAttribute(null=True)
    linked_at = UTCDateTimeAttribute(null=True)
    reconciled_at = UTCDateTimeAttribute(null=True)
    checked_at = UTCDateTimeAttribute(null=True)


class ThirdPartyFollower(Model):
    """hash `url` (the source), range `member` (`<page id>#<component id>`)."""

    Meta = table_meta("third-party-followers")
    url = UnicodeAttribute(hash_key=True)
    member = UnicodeAttribute(range_key=True)
    page_id = UnicodeAttribute()
    component_id = UnicodeAttribute()
    source_component_id = UnicodeAttribute()


def follower_of(url: str, page_id: str, component_id: str, source_component_id: str = ""):
    return ThirdPartyFollower(
        url,
        f"{page_id}#{component_id}",
        page_id=page_id,
        component_id=component_id,
        source_component_id=source_component_id,
    )
