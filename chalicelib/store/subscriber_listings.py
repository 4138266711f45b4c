"""How a page's subscribers are listed and counted without reading them all.

A page may have a hundred thousand subscribers; its lists are asked for 100 at a time, in one
of three orders, and its counts by kind and state. Both are kept as the subscribers change, in
the same transaction (`chalicelib.domain.subscriber_listing`).
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class SubscriberListing(Model):
    """One entry per (list, order) a subscriber appears in.

    hash `listing`: `<page id>#<state>` (every subscriber of the page in that state),
    `incident#<incident id>#<state>` (an incident's subscribers) or
    `organization#<organization id>#<state>` (those of every page of the organization);
    range `order`: the order's letter and the sort value, ending in the subscriber's id so
    that entries never tie: `a#<address> <id>` (by address, number or endpoint),
    `c#<created at> <id>`, `q#<quarantined at> <created at> <id>`. A list reads the entries
    of its page of results (one Query, a `begins_with` on the order), then those subscribers
    (one BatchGetItem).
    """

    Meta = table_meta("subscriber-listings")
    listing = UnicodeAttribute(hash_key=True)
    order = UnicodeAttribute(range_key=True)
    # The subscriber's page: what an organization's list reads the subscriber under. Null in
    # entries written before it was (a page's list knows its page).
    page_id = UnicodeAttribute(null=True)
    subscriber_id = UnicodeAttribute()
    kind = UnicodeAttribute()
    # Lowercased address, number or endpoint: what `q` searches.
    search = UnicodeAttribute()


class SubscriberTally(Model):
    """hash `page_id`, range `bucket` (`<kind>#<state>`): how many of the page's subscribers
    are of that kind in that state, counted up and down as they change."""

    Meta = table_meta("subscriber-tallies")
    page_id = UnicodeAttribute(hash_key=True)
    bucket = UnicodeAttribute(range_key=True)
    count = NumberAttribute(default=0)
