"""What a subscriber leaves in the page's lists, counts and address claims, kept in step with
its state in the transaction that changes it, so that no request reads a page's subscribers
to list, count or de-duplicate them.

- Lists (`chalicelib.store.subscriber_listings.SubscriberListing`): an entry per order a
  subscriber is listed in, under its page and state (and its incident's, for incident
  subscribers). A page of a list reads the entries up to that page, however many follow.
- Counts (`SubscriberTally`): one counter per kind and state, moved by one on each change.
- Address claims (`Claim` `subscriber#...`): one per subscriber not unsubscribed, made on the
  condition that none exists, so two subscribers of one address cannot both be created.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from chalicelib.domain import unit_of_work
from chalicelib.store.models import Claim
from chalicelib.store.subscriber_listings import SubscriberListing, SubscriberTally
from chalicelib.store.subscribers import Subscriber

UNSUBSCRIBED = "unsubscribed"
# Each list order's letter in `SubscriberListing.order`.
ORDERS = {"primary": "a", "created_at": "c", "quarantined_at": "q"}
# Entries read per Query: a page of 100 results at most, or a bulk action's next stretch.
ENTRIES_PER_READ = 200


@dataclass(frozen=True)
class Footprint:
    """What a subscriber in one state holds: its list entries, its count, its claim."""

    entries: frozenset[tuple[str, str]]
    bucket: str
    claim: str | None


def footprint(subscriber: Subscriber, address: str) -> Footprint:
    listings = [f"{subscriber.page_id}#{subscriber.state}"]
    if subscriber.incident_id:
        listings.append(f"incident#{subscriber.incident_id}#{subscriber.state}")
    created = _stamp(subscriber.created_at)
    quarantined = _stamp(subscriber.quarantined_at) if subscriber.quarantined_at else ""
    orders = (
        f"a#{address.lower()} {subscriber.id}",
        f"c#{created} {subscriber.id}",
        f"q#{quarantined} {created} {subscriber.id}",
    )
    claim = None if subscriber.state == UNSUBSCRIBED else claim_name(subscriber, address)
    return Footprint(
        frozenset((listing, order) for listing in listings for order in orders),
        f"{subscriber.kind}#{subscriber.state}",
        claim,
    )


def claim_name(subscriber: Subscriber, address: str) -> str:
    # Hashed: an endpoint may be longer than a key may be.
    digest = hashlib.sha256(address.encode()).hexdigest()
    scope = subscriber.incident_id or "page"
    return f"subscriber#{subscriber.page_id}#{subscriber.kind}#{scope}#{digest}"


def _stamp(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")


def stage(
    work: unit_of_work.Work, subscriber: Subscriber, address: str, before: Footprint | None
) -> None:
    """Stage what changes between `before` (None: a new subscriber) and the subscriber now. A
    claim already held by another subscriber fails the change with `errors.Conflict`."""
    after = footprint(subscriber, address)
    old_entries = before.entries if before else frozenset()
    for listing, order in old_entries - after.entries:
        work.delete(SubscriberListing(listing, order))
    for listing, order in after.entries - old_entries:
        work.save(
            SubscriberListing(
                listing,
                order,
                subscriber_id=subscriber.id,
                kind=subscriber.kind,
                search=address.lower(),
            )
        )
    if before is None or before.bucket != after.bucket:
        if before is not None:
            _count(work, subscriber.page_id, before.bucket, -1)
        _count(work, subscriber.page_id, after.bucket, 1)
    old_claim = before.claim if before else None
    if old_claim and old_claim != after.claim:
        work.delete(Claim(old_claim))
    if after.claim and after.claim != old_claim:
        claim = Claim(after.claim, page_id=subscriber.page_id)
        work.save(claim, Claim.name.does_not_exist(), intent=True)


def _count(work: unit_of_work.Work, page_id: str, bucket: str, step: int) -> None:
    tally = SubscriberTally(page_id, bucket)
    work.update(tally, [SubscriberTally.count.add(step)], versioned=False)


def listed_ids(
    listings: list[str],
    *,
    kind: str | None = None,
    text: str | None = None,
    sort_field: str | None = None,
    descending: bool = False,
    offset: int = 0,
    limit: int | None = None,
) -> list[str]:
    """The ids of the subscribers at `offset` of the lists merged in the order asked for (at
    most `limit`; None: all of them, for bulk actions and searches)."""
    wanted = None if limit is None else offset + limit
    found = entries(listings, kind, text, sort_field, descending, wanted)
    return [entry.subscriber_id for entry in islice(found, offset, wanted)]


def entries(
    listings: list[str],
    kind: str | None = None,
    text: str | None = None,
    sort_field: str | None = None,
    descending: bool = False,
    wanted: int | None = None,
) -> Iterator[SubscriberListing]:
    """The entries of the lists merged in one order, read as they are consumed (`wanted`: how
    many the caller will take, so that a short page is one short Query)."""
    letter = ORDERS[sort_field or "primary"]
    condition = None
    if kind:
        condition = SubscriberListing.kind == kind
    if text:
        contains = SubscriberListing.search.contains(text.lower())
        condition = contains if condition is None else condition & contains
    read = min(wanted or ENTRIES_PER_READ, ENTRIES_PER_READ)
    streams = [
        SubscriberListing.query(
            listing,
            SubscriberListing.order.startswith(f"{letter}#"),
            filter_condition=condition,
            scan_index_forward=not descending,
            page_size=read,
        )
        for listing in listings
    ]
    return heapq.merge(*streams, key=lambda entry: entry.order, reverse=descending)


def in_order(page_id: str, subscriber_ids: list[str]) -> list[Subscriber]:
    """The subscribers of those ids, in that order (one BatchGetItem per 100)."""
    found: dict[str, Subscriber] = {}
    for start in range(0, len(subscriber_ids), 100):
        keys = [(page_id, subscriber_id) for subscriber_id in subscriber_ids[start : start + 100]]
        found.update((s.id, s) for s in Subscriber.batch_get(keys))
    return [found[i] for i in subscriber_ids if i in found]


def tallies(page_id: str) -> dict[str, int]:
    """`<kind>#<state>` to how many (one Query of a few items)."""
    return {tally.bucket: int(tally.count) for tally in SubscriberTally.query(page_id)}
