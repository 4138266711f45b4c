"""Subscribers (SPEC 3.4, 4.10): who they are, their states, and who hears of what.

Kinds: `email`, `sms`, `webhook`, and a chat channel's incoming webhook, one kind per platform
(`chalicelib.domain.chat_platforms`), whose URL is kept in `endpoint`.

States: `unconfirmed` (an email subscriber until it opens its confirmation link), `active`,
`quarantined` (a delivery failed) and `unsubscribed` (kept for the unsubscribed list; gone
from everything else).
"""

from __future__ import annotations

import heapq
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from chalicelib import clock, config, ids, net
from chalicelib.domain import (
    chat_platforms,
    errors,
    page_access,
    pages,
    signing,
    sms_countries,
    subscriber_listing,
    unit_of_work,
)
from chalicelib.domain.components import check_named, components_of
from chalicelib.store.models import Claim, Page
from chalicelib.store.subscriber_listings import SubscriberTally
from chalicelib.store.subscribers import Recipient, Setting, Subscriber

logger = logging.getLogger(__name__)

ACTIVE, UNCONFIRMED, QUARANTINED, UNSUBSCRIBED = (
    "active",
    "unconfirmed",
    "quarantined",
    "unsubscribed",
)
LISTED_STATES = (ACTIVE, UNCONFIRMED, QUARANTINED)
# Why a new subscriber is refused when its address is someone's already.
ALREADY_SUBSCRIBED = "is already subscribed"
UNSUBSCRIBED_EARLIER = "unsubscribed earlier: only they can subscribe again"
CONFIRM, UNSUBSCRIBE, MANAGE = "confirm", "unsubscribe", "manage"
PAGE_AUDIENCE, COMPONENT_AUDIENCE, INCIDENT_AUDIENCE = "page", "component", "incident"
# Recipients read per Query: the fan-out holds about this many at a time, however many there
# are. The first read of an audience is one delivery batch, so the first batch leaves sooner.
RECIPIENTS_PER_READ = 500
FIRST_READ = 50
# Recipient items, list entries, tallies and address claims were added after subscribers were
# first stored: data written before has none until `index_recipients` makes them (the local
# stack does at start; on AWS the admin CLI).
RECIPIENTS_LAYOUT = ("subscriber-layout", "recipient-items-listings-v3")
# Not unsubscribed ones; a bound on what a page's notification costs (and on sign-up spam).
MAX_SUBSCRIBERS_PER_PAGE = 250_000
# Which page setting allows which kind, and the field a refusal names. A chat channel is
# reached by a webhook: the page's webhook setting allows it (Statuspage's page has no other).
KIND_SETTINGS = {
    "email": ("allow_email_subscribers", "email"),
    "sms": ("allow_sms_subscribers", "phone_number"),
    "webhook": ("allow_webhook_subscribers", "endpoint"),
    **{
        platform: ("allow_webhook_subscribers", "chat_webhook_url")
        for platform in chat_platforms.PLATFORMS
    },
}


@dataclass(frozen=True)
class SubscriberInput:
    """A new subscriber: an `email`; a `phone_country` and `phone_number`; an `endpoint`
    (with an email); or a chat channel's `chat_webhook_url` (with an email; its platform the
    URL's host's unless `chat_platform` names it). It follows `component_ids` (none: the
    whole page)."""

    email: str | None = None
    phone_country: str | None = None
    phone_number: str | None = None
    endpoint: str | None = None
    chat_webhook_url: str | None = None
    chat_platform: str | None = None
    component_ids: list[str] | None = None
    skip_confirmation_notification: bool = False
    page_access_user: str | None = None


def address_of(subscriber: Subscriber) -> str:
    """The `primary` sort key: address, number, endpoint or chat webhook URL."""
    if subscriber.kind == "webhook" or chat_platforms.is_chat(subscriber.kind):
        return subscriber.endpoint or ""
    if subscriber.kind == "sms":
        return e164(subscriber) or ""
    return (subscriber.email or "").lower()


def e164(subscriber: Subscriber) -> str | None:
    if subscriber.kind != "sms":
        return None
    return sms_countries.e164(subscriber.phone_country, subscriber.phone_number)


def find(page_id: str, subscriber_id: str, incident_id: str | None = None) -> Subscriber:
    try:
        subscriber = Subscriber.get(page_id, subscriber_id)
    except Subscriber.DoesNotExist:
        raise errors.NotFound() from None
    if subscriber.state == UNSUBSCRIBED or (incident_id and subscriber.incident_id != incident_id):
        raise errors.NotFound()
    return subscriber


def _kind(fields: SubscriberInput) -> str:
    if fields.endpoint:
        if fields.chat_webhook_url:
            raise errors.invalid("endpoint", "give an endpoint or a chat_webhook_url, not both")
        if not fields.email:
            raise errors.invalid("email", "is required with an endpoint (webhook subscribers)")
        return "webhook"
    if fields.chat_webhook_url:
        return _chat_platform(fields)
    if fields.chat_platform:
        raise errors.invalid("chat_webhook_url", "is required with a chat_platform")
    if fields.phone_number or fields.phone_country:
        return "sms"
    if fields.email:
        return "email"
    raise errors.invalid("email", "give an email, a phone_country and phone_number, or an endpoint")


def _chat_platform(fields: SubscriberInput) -> str:
    """A chat subscriber's kind: the platform given, else the one of the URL's host. Its email
    is where its confirmation goes, as a webhook subscriber's."""
    if not fields.email:
        raise errors.invalid("email", "is required with a chat_webhook_url (chat subscribers)")
    platform = fields.chat_platform or chat_platforms.detected(fields.chat_webhook_url)
    if platform is None:
        names = ", ".join(chat_platforms.PLATFORMS)
        raise errors.invalid(
            "chat_platform", f"is required when the URL's host is no platform's ({names})"
        )
    return platform


def _check_allowed(profile: dict, kind: str, incident_id: str | None) -> None:
    setting, field_name = KIND_SETTINGS[kind]
    if not profile.get(setting, True):
        raise errors.invalid(field_name, f"{kind} subscribers are not allowed on this page")
    scope = "allow_incident_subscribers" if incident_id else "allow_page_subscribers"
    if not profile.get(scope, True):
        raise errors.invalid("subscriber", f"{scope} is off for this page")


def _phone(fields: SubscriberInput) -> tuple[str, str]:
    country = sms_countries.COUNTRIES.get((fields.phone_country or "").upper())
    if country is None:
        raise errors.invalid("phone_country", "is not a country SMS notifications go to")
    national = sms_countries.national_number(country, fields.phone_number or "")
    if national is None:
        raise errors.invalid("phone_number", f"is not a valid number in {country.name}")
    if not sms_countries.is_mobile(country.code, national):
        raise errors.invalid(
            "phone_number",
            f"is not a mobile number in {country.name} (premium-rate, toll-free, shared-cost "
            "and landline numbers get no text messages)",
        )
    return country.code, national


def _check_components(page_id: str, component_ids: list[str]) -> None:
    check_named(components_of(page_id), component_ids, "component_ids")


def _check_endpoint(endpoint: str, field_name: str = "endpoint") -> None:
    if not net.may_call(endpoint):
        raise errors.invalid(field_name, "must resolve to a public address")


def create(
    page: Page, fields: SubscriberInput, incident_id: str | None = None, *, by_reader=False
) -> Subscriber:
    """A subscriber made by the page's team (through the API), or `by_reader` from the public
    page: then every kind waits for its owner to confirm (by email, or by text message), as
    anyone could type anyone's address."""
    profile = pages.profile_of(page)
    kind = _kind(fields)
    if sum(count_by_kind(page.id, state="all", text=None).values()) >= MAX_SUBSCRIBERS_PER_PAGE:
        raise errors.invalid(
            "subscriber", f"a page has at most {MAX_SUBSCRIBERS_PER_PAGE} subscribers"
        )
    _check_allowed(profile, kind, incident_id)
    if profile.get("viewers_must_be_team_members") and not fields.page_access_user:
        raise errors.invalid("page_access_user", "is required on an access-controlled page")
    component_ids = list(dict.fromkeys(fields.component_ids or []))
    if profile.get("audience_specific") and not incident_id:
        component_ids = page_access.subscribable(page.id, fields.page_access_user, component_ids)
    if component_ids:
        if incident_id:
            raise errors.invalid("component_ids", "incident subscribers follow one incident")
        _check_components(page.id, component_ids)
    moment = clock.now()
    subscriber = Subscriber(
        page.id,
        ids.new_id(),
        kind=kind,
        email=fields.email,
        endpoint=fields.endpoint,
        component_ids=component_ids,
        incident_id=incident_id,
        page_access_user=fields.page_access_user,
        state=ACTIVE,
        created_at=moment,
        updated_at=moment,
    )
    if kind == "sms":
        subscriber.phone_country, subscriber.phone_number = _phone(fields)
    if kind == "webhook":
        _check_endpoint(fields.endpoint)
    if chat_platforms.is_chat(kind):
        subscriber.endpoint = fields.chat_webhook_url
        _check_endpoint(fields.chat_webhook_url, "chat_webhook_url")
    if by_reader or (kind == "email" and not fields.skip_confirmation_notification):
        subscriber.state = UNCONFIRMED
    else:
        subscriber.confirmed_at = moment
    try:
        _write(subscriber, lambda new: True)
    except errors.Conflict:
        # Another subscriber holds the address's claim.
        raise errors.invalid(KIND_SETTINGS[kind][1], ALREADY_SUBSCRIBED) from None
    if subscriber.state == UNCONFIRMED:
        send_confirmation(page, subscriber, by_reader=by_reader)
    return subscriber


def listed(
    page_id: str,
    *,
    incident_id: str | None = None,
    kind: str | None = None,
    state: str | None = None,
    text: str | None = None,
    sort_field: str | None = None,
    descending: bool = False,
    offset: int = 0,
    limit: int | None = None,
) -> list[Subscriber]:
    """A page of a list (`limit` from `offset`; all from there when `limit` is None), read
    from the list entries: what it costs depends on where the page is, not on how many
    subscribers the page has."""
    ids = subscriber_listing.listed_ids(
        _listings(page_id, incident_id, _states(state)),
        kind=kind,
        text=text,
        sort_field=sort_field,
        descending=descending,
        offset=offset,
        limit=limit,
    )
    return subscriber_listing.in_order(page_id, ids)


def organization_listed(
    organization_id: str,
    page_ids: list[str],
    *,
    every_page: bool,
    state: str | None = None,
    **listing,
) -> list[Subscriber]:
    """A page of the organization's list, across the pages `page_ids` (those the caller
    reaches; `every_page` when that is all of them): as `listed` takes it."""
    return subscriber_listing.organization_listed(
        organization_id, page_ids, every_page=every_page, states=_states(state), **listing
    )


def _states(state: str | None) -> tuple[str, ...]:
    return LISTED_STATES if state == "all" else (state or ACTIVE,)


def _listings(page_id: str, incident_id: str | None, states: tuple[str, ...]) -> list[str]:
    if incident_id:
        return [f"incident#{incident_id}#{state}" for state in states]
    return [f"{page_id}#{state}" for state in states]


def count_by_kind(page_id: str, *, state: str | None, text: str | None) -> Counter[str]:
    """How many subscribers of each kind a list would hold: from the tallies, or, for a text
    search, from the entries that match (a search reads every entry of the states asked for)."""
    states = _states(state)
    if text:
        found = subscriber_listing.entries(_listings(page_id, None, states), text=text)
        return Counter(entry.kind for entry in found)
    counted: Counter[str] = Counter()
    for bucket, number in subscriber_listing.tallies(page_id).items():
        kind, bucket_state = bucket.split("#")
        if bucket_state in states:
            counted[kind] += number
    return counted


def unsubscribed(page_id: str, offset: int, limit: int) -> list[Subscriber]:
    return listed(page_id, state=UNSUBSCRIBED, sort_field="created_at", offset=offset, limit=limit)


def counts(page_id: str) -> dict[str, dict[str, int]]:
    """Subscribers by kind and state (one Query of the page's tallies)."""
    histogram = {kind: {state: 0 for state in LISTED_STATES} for kind in KIND_SETTINGS}
    for bucket, number in subscriber_listing.tallies(page_id).items():
        kind, state = bucket.split("#")
        if kind in histogram and state in LISTED_STATES:
            histogram[kind][state] = number
    return histogram


def audiences(subscriber: Subscriber) -> list[str]:
    """The audiences whose events reach the subscriber: none unless active; an incident
    subscriber's incident; a component subscriber's components; else the whole page."""
    if subscriber.state != ACTIVE:
        return []
    if subscriber.incident_id:
        return [f"{INCIDENT_AUDIENCE}#{subscriber.incident_id}"]
    if subscriber.component_ids:
        return [f"{COMPONENT_AUDIENCE}#{c}" for c in dict.fromkeys(subscriber.component_ids)]
    return [f"{PAGE_AUDIENCE}#{subscriber.page_id}"]


def _recipient_item(subscriber: Subscriber, audience: str) -> Recipient:
    return Recipient(
        audience,
        f"{subscriber.kind}#{subscriber.id}",
        page_id=subscriber.page_id,
        subscriber_id=subscriber.id,
        kind=subscriber.kind,
        address=address_of(subscriber),
        created_at=subscriber.created_at,
    )


def recipient_items(subscriber: Subscriber) -> list[Recipient]:
    """The recipient items the subscriber has in its state now."""
    return [_recipient_item(subscriber, audience) for audience in audiences(subscriber)]


def _stage_recipients(work: unit_of_work.Work, subscriber: Subscriber, before: list[str]) -> None:
    after = audiences(subscriber)
    for audience in before:
        if audience not in after:
            work.delete(_recipient_item(subscriber, audience))
    for audience in after:
        if audience not in before:
            work.save(_recipient_item(subscriber, audience))


def _write(subscriber: Subscriber, edit: Callable[[Subscriber], bool]) -> Subscriber:
    """`edit` the subscriber (False: nothing to change) and write it with its recipient items
    in one unit of work, on its version; a lost race edits a fresh read again."""
    attempts = []

    def change(work: unit_of_work.Work) -> Subscriber:
        work.quiet()  # the public page shows no subscriber
        current = subscriber
        if attempts and subscriber.version is not None:
            current = Subscriber.get(subscriber.page_id, subscriber.id, consistent_read=True)
        attempts.append(current)
        stored = current.version is not None
        before = audiences(current) if stored else []
        listed_before = (
            subscriber_listing.footprint(current, address_of(current)) if stored else None
        )
        if not edit(current):
            return current
        current.updated_at = work.moment
        work.save(current)
        _stage_recipients(work, current, before)
        subscriber_listing.stage(work, current, address_of(current), listed_before)
        return current

    return unit_of_work.run(subscriber.page_id, change)


def _move(subscriber: Subscriber, moves: dict[str, str], **stamps) -> Subscriber:
    """Move the subscriber to `moves[its state]`, if its state (as read when written) has one."""

    def edit(current: Subscriber) -> bool:
        if current.state not in moves:
            return False
        current.state = moves[current.state]
        for name, value in stamps.items():
            setattr(current, name, value)
        return True

    return _write(subscriber, edit)


def unsubscribe(subscriber: Subscriber) -> Subscriber:
    return _move(
        subscriber, dict.fromkeys(LISTED_STATES, UNSUBSCRIBED), unsubscribed_at=clock.now()
    )


def confirm(subscriber: Subscriber) -> Subscriber:
    return _move(subscriber, {UNCONFIRMED: ACTIVE}, confirmed_at=clock.now())


def reactivate(subscriber: Subscriber) -> Subscriber:
    return _move(subscriber, {QUARANTINED: ACTIVE}, quarantined_at=None)


def quarantine_by_id(page_id: str, subscriber_id: str) -> None:
    """A delivery failed: a page or component subscriber is held back from now on."""
    try:
        subscriber = Subscriber.get(page_id, subscriber_id)
    except Subscriber.DoesNotExist:
        return
    if subscriber.incident_id is None:
        _move(subscriber, {ACTIVE: QUARANTINED}, quarantined_at=clock.now())


def selected(
    page_id: str, chosen: list[str] | str, kind: str | None, states: tuple[str, ...]
) -> Iterator[Subscriber]:
    """The subscribers a batch names (ids or `all`), of `kind`, in `states`, read 100 at a
    time as they are consumed."""
    if chosen == "all":
        ids = subscriber_listing.listed_ids(
            _listings(page_id, None, states),
            kind=kind,
            text=None,
            sort_field="created_at",
            descending=False,
            offset=0,
            limit=None,
        )
    else:
        ids = list(dict.fromkeys(chosen))
    for start in range(0, len(ids), 100):
        for subscriber in subscriber_listing.in_order(page_id, ids[start : start + 100]):
            if subscriber.state in states and (kind is None or subscriber.kind == kind):
                yield subscriber


def set_components(page_id: str, subscriber: Subscriber, component_ids: list[str]) -> Subscriber:
    if subscriber.incident_id:
        raise errors.invalid("component_ids", "incident subscribers follow one incident")
    _check_components(page_id, component_ids)

    def edit(current: Subscriber) -> bool:
        current.component_ids = list(dict.fromkeys(component_ids))
        return True

    return _write(subscriber, edit)


def link_path_of(page_id: str, subscriber_id: str, purpose: str) -> str:
    """The path of a signed link that works without login."""
    token = signing.token(page_id, subscriber_id, purpose)
    return f"/s/{page_id}/subscriptions/{token}/{purpose}"


def link_path(subscriber: Subscriber, purpose: str) -> str:
    return link_path_of(subscriber.page_id, subscriber.id, purpose)


def link_of(page_id: str, subscriber_id: str, purpose: str) -> str:
    return config.public_base_url() + link_path_of(page_id, subscriber_id, purpose)


def link(subscriber: Subscriber, purpose: str) -> str:
    return link_of(subscriber.page_id, subscriber.id, purpose)


def unsubscribe_link(subscriber: Subscriber) -> str:
    return link(subscriber, UNSUBSCRIBE)


def manage_link(subscriber: Subscriber) -> str:
    return link(subscriber, MANAGE)


def by_token(page_id: str, token: str, purpose: str) -> Subscriber:
    """The subscriber a signed link names. An unsubscribe link still finds its subscriber
    once unsubscribed: unsubscribing again answers as the first time (RFC 8058's one-click
    POST may come twice)."""
    subscriber_id = signing.verified_subject(page_id, token, purpose)
    if subscriber_id is None:
        raise errors.NotFound()
    if purpose != UNSUBSCRIBE:
        return find(page_id, subscriber_id)
    try:
        return Subscriber.get(page_id, subscriber_id)
    except Subscriber.DoesNotExist:
        raise errors.NotFound() from None


def resend_confirmation(page: Page, subscriber: Subscriber) -> None:
    """Send an unconfirmed subscriber its confirmation link again; any other is refused."""
    if subscriber.state != UNCONFIRMED:
        raise errors.invalid("subscriber", "is not waiting for confirmation")
    send_confirmation(page, subscriber)


def subscribed_emails(page_id: str, emails: Iterable[str]) -> set[str]:
    """Which of `emails` (lowercased) already hold a page-wide or component email
    subscription to the page, unsubscribed ones aside: what a new one would collide with."""
    return subscriber_listing.claimed(page_id, "email", {email.lower() for email in emails})


def unsubscribed_emails(page_id: str, emails: Iterable[str]) -> set[str]:
    """Which of `emails` (lowercased) unsubscribed from a page-wide or component email
    subscription to the page: what an import must not add back."""
    return subscriber_listing.left(page_id, "email", {email.lower() for email in emails})


def send_confirmations_with(sender: Callable[[Page, Subscriber, bool], None]) -> None:
    """How confirmation links are sent (`notify.confirmation.send`, which app.py registers):
    the message is the notifiers' to make, and the rules import no notifier."""
    _confirmation_senders[:] = [sender]


def send_confirmation(page: Page, subscriber: Subscriber, *, by_reader: bool = False) -> None:
    """Ask an unconfirmed subscriber to open its confirmation link (`link(subscriber,
    CONFIRM)`), at the address that will hear from the page; `by_reader`: a subscription an
    anonymous reader made, whose address the page asks at most once an hour."""
    if subscriber.state != UNCONFIRMED:
        return
    for sender in _confirmation_senders:
        try:
            sender(page, subscriber, by_reader)
        except Exception:
            # The subscriber is saved and may ask again; a refused address (SES: "Missing
            # domain") is no reason to fail the request that made it.
            logger.exception(
                "confirmation of subscriber %s of page %s not sent", subscriber.id, page.id
            )


_confirmation_senders: list[Callable[[Page, Subscriber, bool], None]] = []


def recipients(
    page_id: str,
    *,
    component_ids: list[str],
    incident_id: str | None,
    since: datetime | None,
    kind: str | None = None,
) -> Iterator[Recipient]:
    """Active subscribers who hear of an update, read in pages as they are consumed: page
    subscribers always, component subscribers when it touches their components, incident
    subscribers of that incident who subscribed before the update. One Query per audience
    (the page, each touched component, the incident), however many components a subscriber
    follows; the audiences come sorted by member and are merged, so a subscriber of several
    touched components is met once, holding one page of each in memory."""
    names = [f"{PAGE_AUDIENCE}#{page_id}"]
    names += [f"{COMPONENT_AUDIENCE}#{c}" for c in dict.fromkeys(component_ids)]
    if incident_id:
        names.append(f"{INCIDENT_AUDIENCE}#{incident_id}")
    condition = Recipient.member.startswith(f"{kind}#") if kind else None
    members = (_audience(name, condition) for name in names)
    previous = None
    for recipient in heapq.merge(*members, key=lambda r: r.member):
        if recipient.member == previous:
            continue
        previous = recipient.member
        if recipient.audience.startswith(INCIDENT_AUDIENCE + "#") and (
            since is not None and recipient.created_at > since
        ):
            continue
        yield recipient


def _audience(name: str, condition) -> Iterator[Recipient]:
    first = Recipient.query(name, condition, limit=FIRST_READ, page_size=FIRST_READ)
    yield from first
    if first.last_evaluated_key:
        yield from Recipient.query(
            name,
            condition,
            page_size=RECIPIENTS_PER_READ,
            last_evaluated_key=first.last_evaluated_key,
        )


def component_recipients(page_id: str, component_id: str, kind: str) -> Iterator[Recipient]:
    return recipients(
        page_id, component_ids=[component_id], incident_id=None, since=None, kind=kind
    )


def recipient_items_are_current() -> bool:
    name, layout = RECIPIENTS_LAYOUT
    try:
        return Setting.get(name, consistent_read=True).value == layout
    except Setting.DoesNotExist:
        return False


def index_recipients(subscribers: Iterable[Subscriber]) -> int:
    """Write the recipient items, list entries and address claims of subscribers stored before
    they existed and count the tallies afresh (idempotent), then note that the layout is
    current; returns how many subscribers hear of something."""
    indexed = 0
    counted: Counter[tuple[str, str]] = Counter()
    for subscriber in subscribers:
        listed_now = subscriber_listing.footprint(subscriber, address_of(subscriber))
        counted[(subscriber.page_id, listed_now.bucket)] += 1

        def change(work: unit_of_work.Work, subscriber=subscriber, listed_now=listed_now) -> None:
            work.quiet()
            _stage_recipients(work, subscriber, [])
            # Its entries as if it were new; its tally is counted below, its claim taken as
            # it is (a second run finds it already there).
            unlisted = replace(listed_now, entries=frozenset())
            subscriber_listing.stage(work, subscriber, address_of(subscriber), unlisted)
            if listed_now.claim:
                work.save(Claim(listed_now.claim, page_id=subscriber.page_id))

        unit_of_work.run(subscriber.page_id, change)
        indexed += bool(audiences(subscriber))

    def mark(work: unit_of_work.Work) -> None:
        work.quiet()
        for (page_id, bucket), number in counted.items():
            work.save(SubscriberTally(page_id, bucket, count=number))
        work.save(Setting(RECIPIENTS_LAYOUT[0], value=RECIPIENTS_LAYOUT[1]))

    unit_of_work.run(None, mark)
    return indexed
