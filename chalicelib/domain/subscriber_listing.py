"""What a subscriber leaves in the page's lists, counts and address claims, kept in step with
its state in the transaction that changes it, so that no request reads a page's subscribers
to list, count or de-duplicate them.

- Lists (`chalicelib.store.subscriber_listings.SubscriberListing`): an entry per order a
  subscriber is listed in, under its page and state, its organization and state (the
  organization-level list) and, for incident subscribers, its incident and state. A page of
  a list reads the entries up to that page, however many follow, however many pages the
  organization has.
- Counts (`SubscriberTally`): one counter per kind and state, moved by one on each change.
- Address claims (`Claim` `subscriber#...`): one per subscriber not unsubscribed, made on the
  condition that none exists, so two subscribers of one address cannot both be created.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from chalicelib.domain import unit_of_work
from chalicelib.store.models import Claim, Page
from chalicelib.store.subscriber_listings import SubscriberListing, SubscriberTally
from chalicelib.store.subscribers import Subscriber

UNSUBSCRIBED = "unsubscribed"
# Each list order's letter in `SubscriberListing.order`.
ORDERS = {"primary": "a", "created_at": "c", "quarantined_at": "q"}
# Entries read per Query: a page of 100 results at most, or a bulk action's next stretch.
ENTRIES_PER_READ = 200
# Page id to organization id, for the organization's list entries.
_ORGANIZATIONS: dict[str, str] = {}
MAX_PAGES_REMEMBERED = 4096


@dataclass(frozen=True)
class Footprint:
    """What a subscriber in one state holds: its list entries, its count, its claim."""

    entries: frozenset[tuple[str, str]]
    bucket: str
    claim: str | None


def footprint(subscriber: Subscriber, address: str) -> Footprint:
    listings = [f"{subscriber.page_id}#{subscriber.state}"]
    organization_id = _organization_of(subscriber.page_id)
    if organization_id:  # None: its page was deleted, and so is the page from the list
        listings.append(organization_listing(organization_id, subscriber.state))
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


def organization_listing(organization_id: str, state: str) -> str:
    return f"organization#{organization_id}#{state}"


def _organization_of(page_id: str) -> str | None:
    """The organization of the page, read once per process: a page never changes
    organization. None: the page was deleted."""
    found = _ORGANIZATIONS.get(page_id)
    if found is None:
        try:
            found = Page.get(page_id, attributes_to_get=["organization_id"]).organization_id
        except Page.DoesNotExist:
            return None
        if len(_ORGANIZATIONS) >= MAX_PAGES_REMEMBERED:
            _ORGANIZATIONS.clear()
        _ORGANIZATIONS[page_id] = found
    return found


def claim_name(subscriber: Subscriber, address: str) -> str:
    return address_claim(subscriber.page_id, subscriber.kind, subscriber.incident_id, address)


def address_claim(page_id: str, kind: str, incident_id: str | None, address: str) -> str:
    # Hashed: an endpoint may be longer than a key may be.
    digest = hashlib.sha256(address.encode()).hexdigest()
    return f"subscriber#{page_id}#{kind}#{incident_id or 'page'}#{digest}"


def claimed(page_id: str, kind: str, addresses: Collection[str]) -> set[str]:
    """Which of the page-wide `addresses` (as `address_of` writes them) a subscriber of
    `kind` not unsubscribed holds (one BatchGetItem per 100)."""
    names = {address_claim(page_id, kind, None, address): address for address in addresses}
    keys = list(names)
    found: set[str] = set()
    for start in range(0, len(keys), 100):
        found.update(names[claim.name] for claim in Claim.batch_get(keys[start : start + 100]))
    return found


def left(page_id: str, kind: str, addresses: Collection[str]) -> set[str]:
    """Which of the page-wide `addresses` (lowercased) a subscriber of `kind` unsubscribed
    from: the page's unsubscribed list by address, one Query for each, and the subscribers
    found (one BatchGetItem per 100), whose page-wide or component subscription it was."""
    listing = f"{page_id}#{UNSUBSCRIBED}"
    found: dict[str, str] = {}
    for address in addresses:
        prefix = f"a#{address.lower()} "  # the space ends the address: ids follow it
        for entry in SubscriberListing.query(listing, SubscriberListing.order.startswith(prefix)):
            if entry.kind == kind:
                found[entry.subscriber_id] = address.lower()
    return {
        found[subscriber.id]
        for subscriber in in_order(page_id, list(found))
        if subscriber.incident_id is None
    }


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
                page_id=subscriber.page_id,
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
    streams = [_stream(listing, kind, text, sort_field, descending, wanted) for listing in listings]
    return heapq.merge(*streams, key=lambda entry: entry.order, reverse=descending)


def _stream(
    listing: str,
    kind: str | None,
    text: str | None,
    sort_field: str | None,
    descending: bool,
    wanted: int | None,
) -> Iterator[SubscriberListing]:
    """One list's entries in one order, read a Query page at a time as they are consumed."""
    letter = ORDERS[sort_field or "primary"]
    condition = None
    if kind:
        condition = SubscriberListing.kind == kind
    if text:
        contains = SubscriberListing.search.contains(text.lower())
        condition = contains if condition is None else condition & contains
    return SubscriberListing.query(
        listing,
        SubscriberListing.order.startswith(f"{letter}#"),
        filter_condition=condition,
        scan_index_forward=not descending,
        page_size=min(wanted or ENTRIES_PER_READ, ENTRIES_PER_READ),
    )


def organization_listed(
    organization_id: str,
    page_ids: Collection[str],
    *,
    every_page: bool,
    states: tuple[str, ...],
    kind: str | None = None,
    text: str | None = None,
    sort_field: str | None = None,
    descending: bool = False,
    offset: int = 0,
    limit: int = 100,
) -> list[Subscriber]:
    """A page of the organization's list: its subscribers on `page_ids` (the pages the caller
    reaches), merged in one order across pages as a page's list is. For a caller who reaches
    `every_page`, the organization's own list (a Query per state, whatever the number of
    pages; entries of a page deleted since are passed over); otherwise the lists of the
    pages it reaches, merged (a Query per page and state)."""
    wanted = offset + limit
    if every_page:
        sources = [(organization_listing(organization_id, state), None) for state in states]
    else:
        sources = [(f"{page_id}#{state}", page_id) for page_id in page_ids for state in states]
    streams = [
        _of_page(_stream(listing, kind, text, sort_field, descending, wanted), page_id)
        for listing, page_id in sources
    ]
    merged = heapq.merge(*streams, key=lambda found: found[1].order, reverse=descending)
    reached = set(page_ids)
    kept = (found for found in merged if found[0] in reached)
    keys = [(page_id, entry.subscriber_id) for page_id, entry in islice(kept, offset, wanted)]
    return _in_order_by_key(keys)


def _of_page(
    entries: Iterable[SubscriberListing], page_id: str | None
) -> Iterator[tuple[str | None, SubscriberListing]]:
    for entry in entries:
        yield entry.page_id or page_id, entry


def in_order(page_id: str, subscriber_ids: list[str]) -> list[Subscriber]:
    """The subscribers of those ids, in that order (one BatchGetItem per 100)."""
    return _in_order_by_key([(page_id, subscriber_id) for subscriber_id in subscriber_ids])


def _in_order_by_key(keys: list[tuple[str, str]]) -> list[Subscriber]:
    """The subscribers of those (page id, subscriber id) keys, in that order."""
    found: dict[tuple[str, str], Subscriber] = {}
    for start in range(0, len(keys), 100):
        for subscriber in Subscriber.batch_get(keys[start : start + 100]):
            found[(subscriber.page_id, subscriber.id)] = subscriber
    return [found[key] for key in keys if key in found]


def tallies(page_id: str) -> dict[str, int]:
    """`<kind>#<state>` to how many (one Query of a few items)."""
    return {tally.bucket: int(tally.count) for tally in SubscriberTally.query(page_id)}
