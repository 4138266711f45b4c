"""Subscribers (SPEC 4.10): page level, incident level and organization level."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import clock, schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import chat_platforms, incidents, subscribers
from chalicelib.domain.errors import NotFound
from chalicelib.domain.organizations import has_role
from chalicelib.domain.pages import pages_of
from chalicelib.http import errors
from chalicelib.http.auth import require_organization, require_role
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import limit_and_offset, start_and_size
from chalicelib.http.routing import ApiRequest, Reply, Router, Style

if TYPE_CHECKING:
    from chalicelib.store.models import Page
    from chalicelib.store.subscribers import Subscriber

blueprint = Blueprint(__name__)
router = Router(blueprint, "subscribers")
PAGE_SUBSCRIBERS = "/v1/pages/{page_id}/subscribers"
INCIDENT_SUBSCRIBERS = "/v1/pages/{page_id}/incidents/{incident_id}/subscribers"


def subscriber_out(subscriber: Subscriber) -> schemas.SubscriberOut:
    phone = subscribers.e164(subscriber)
    chat = chat_platforms.is_chat(subscriber.kind)
    return schemas.SubscriberOut(
        id=subscriber.id,
        created_at=clock.iso(subscriber.created_at),
        mode=subscriber.kind,
        email=subscriber.email,
        # A chat channel's URL has its own member: a client that takes `endpoint` for a
        # webhook's never meets one.
        endpoint=None if chat else subscriber.endpoint,
        chat_platform=subscriber.kind if chat else None,
        chat_webhook_url=subscriber.endpoint if chat else None,
        phone_number=subscriber.phone_number,
        phone_country=subscriber.phone_country,
        display_phone_number=phone,
        skip_confirmation_notification=subscriber.kind == "email"
        and subscriber.state != "unconfirmed",
        quarantined_at=clock.iso(subscriber.quarantined_at),
        purge_at=None,
        components=list(subscriber.component_ids or []),
        page_access_user_id=subscriber.page_access_user,
        incident_id=subscriber.incident_id,
        state=subscriber.state,
    )


def _listing(request: ApiRequest) -> dict:
    """What a subscriber list's query asks for, as `subscribers.listed` takes it."""
    query = request.parse_query()
    offset, limit = limit_and_offset(request.query)
    return {
        "kind": query.type,
        "state": query.state,
        "text": query.q,
        "sort_field": query.sort_field,
        "descending": query.sort_direction == "desc",
        "offset": offset,
        "limit": limit,
    }


def _listed(
    request: ApiRequest, page_id: str, incident_id: str | None = None
) -> list[schemas.SubscriberOut]:
    found = subscribers.listed(page_id, incident_id=incident_id, **_listing(request))
    return [subscriber_out(s) for s in found]


def _incident_id(request: ApiRequest) -> str:
    """The path's incident, which must be one of the page's."""
    incident_id = request.params["incident_id"]
    incidents.get_incident(request.params["page_id"], incident_id)
    return incident_id


# Page level.


@router.route(
    PAGE_SUBSCRIBERS,
    ["GET"],
    summary="List subscribers",
    response="SubscriberOut",
    many=True,
    query="SubscriberListQuery",
)
def list_subscribers(request: ApiRequest):
    return _listed(request, request.page().id)


@router.route(
    PAGE_SUBSCRIBERS,
    ["POST"],
    summary="Create a subscriber",
    body="SubscriberCreate",
    response="SubscriberOut",
    status=201,
)
def create_subscriber(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().subscriber, subscribers.SubscriberInput)
    return subscriber_out(subscribers.create(page, fields))


@router.route(
    PAGE_SUBSCRIBERS + "/count",
    ["GET"],
    summary="Count subscribers by type",
    response="SubscriberCountByType",
    query="SubscriberCountQuery",
)
def count_subscribers(request: ApiRequest):
    query = request.parse_query()
    counted = subscribers.count_by_kind(request.page().id, state=query.state, text=query.q)
    return schemas.SubscriberCountByType(
        **{
            kind: counted[kind] if query.type in (None, kind) else 0
            for kind in schemas.SubscriberCountByType.model_fields
        }
    )


@router.route(
    PAGE_SUBSCRIBERS + "/histogram_by_state",
    ["GET"],
    summary="Subscribers by kind and state",
    response="SubscriberHistogram",
)
def subscriber_histogram(request: ApiRequest):
    histogram = subscribers.counts(request.page().id)
    return schemas.SubscriberHistogram(
        **{
            kind: schemas.StateCounts(**states, total=sum(states.values()))
            for kind, states in histogram.items()
        }
    )


@router.route(
    PAGE_SUBSCRIBERS + "/unsubscribed",
    ["GET"],
    summary="List unsubscribed subscribers",
    response="SubscriberOut",
    many=True,
    query="Pagination",
)
def list_unsubscribed(request: ApiRequest):
    start, size = start_and_size(request.query)
    return [subscriber_out(s) for s in subscribers.unsubscribed(request.page().id, start, size)]


@router.route(
    PAGE_SUBSCRIBERS + "/resend_confirmation",
    ["POST"],
    summary="Resend confirmations to unconfirmed subscribers",
    body="ResendConfirmations",
)
def resend_confirmations(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    chosen = request.parse().subscribers
    for subscriber in subscribers.selected(page.id, chosen, "email", (subscribers.UNCONFIRMED,)):
        subscribers.send_confirmation(page, subscriber)
    return Reply({}, 200)


@router.route(
    PAGE_SUBSCRIBERS + "/unsubscribe",
    ["POST"],
    summary="Unsubscribe many subscribers",
    body="SubscriberBatch",
    status=204,
)
def unsubscribe_many(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    batch = request.parse()
    state = batch.state or subscribers.ACTIVE
    states = subscribers.LISTED_STATES if state == "all" else (state,)
    for subscriber in subscribers.selected(page.id, batch.subscribers, batch.type, states):
        subscribers.unsubscribe(subscriber)


@router.route(
    PAGE_SUBSCRIBERS + "/reactivate",
    ["POST"],
    summary="Reactivate quarantined subscribers",
    body="SubscriberBatch",
    status=204,
)
def reactivate_many(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    batch = request.parse()
    for subscriber in subscribers.selected(
        page.id, batch.subscribers, batch.type, (subscribers.QUARANTINED,)
    ):
        subscribers.reactivate(subscriber)


@router.route(
    PAGE_SUBSCRIBERS + "/{subscriber_id}",
    ["GET"],
    summary="Get a subscriber",
    response="SubscriberOut",
)
def get_subscriber(request: ApiRequest):
    page = request.page()
    return subscriber_out(subscribers.find(page.id, request.params["subscriber_id"]))


@router.route(
    PAGE_SUBSCRIBERS + "/{subscriber_id}",
    ["PATCH", "PUT"],
    summary="Change a subscriber's components",
    body="SubscriberUpdate",
    response="SubscriberOut",
)
def update_subscriber(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, request.params["subscriber_id"])
    component_ids = request.parse().subscriber.component_ids
    return subscriber_out(subscribers.set_components(page.id, subscriber, component_ids))


@router.route(
    PAGE_SUBSCRIBERS + "/{subscriber_id}",
    ["DELETE"],
    summary="Unsubscribe a subscriber",
    response="SubscriberOut",
)
def delete_subscriber(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, request.params["subscriber_id"])
    return subscriber_out(subscribers.unsubscribe(subscriber))


@router.route(
    PAGE_SUBSCRIBERS + "/{subscriber_id}/resend_confirmation",
    ["POST"],
    summary="Resend the confirmation email",
)
def resend_confirmation(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, request.params["subscriber_id"])
    subscribers.resend_confirmation(page, subscriber)
    return Reply({}, 200)


# Incident level.


@router.route(
    INCIDENT_SUBSCRIBERS,
    ["GET"],
    summary="List an incident's subscribers",
    response="SubscriberOut",
    many=True,
    query="SubscriberListQuery",
)
def list_incident_subscribers(request: ApiRequest):
    page = request.page()
    return _listed(request, page.id, _incident_id(request))


@router.route(
    INCIDENT_SUBSCRIBERS,
    ["POST"],
    summary="Subscribe to an incident",
    body="SubscriberCreate",
    response="SubscriberOut",
    status=201,
)
def create_incident_subscriber(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    incident_id = _incident_id(request)
    fields = plain(request.parse().subscriber, subscribers.SubscriberInput)
    return subscriber_out(subscribers.create(page, fields, incident_id))


@router.route(
    INCIDENT_SUBSCRIBERS + "/{subscriber_id}",
    ["GET"],
    summary="Get an incident subscriber",
    response="SubscriberOut",
)
def get_incident_subscriber(request: ApiRequest):
    page = request.page()
    return subscriber_out(
        subscribers.find(page.id, request.params["subscriber_id"], _incident_id(request))
    )


@router.route(
    INCIDENT_SUBSCRIBERS + "/{subscriber_id}",
    ["DELETE"],
    summary="Unsubscribe an incident subscriber",
    response="SubscriberOut",
)
def delete_incident_subscriber(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, request.params["subscriber_id"], _incident_id(request))
    return subscriber_out(subscribers.unsubscribe(subscriber))


@router.route(
    INCIDENT_SUBSCRIBERS + "/{subscriber_id}/resend_confirmation",
    ["POST"],
    summary="Resend an incident subscriber's confirmation",
)
def resend_incident_confirmation(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, request.params["subscriber_id"], _incident_id(request))
    subscribers.send_confirmation(page, subscriber)
    return Reply({}, 200)


# Organization level (archived): an organization's subscribers are those of its pages; a new
# one subscribes to the organization's first page the caller reaches. A write needs the same
# role on the subscriber's page as the page-level routes ask for.


def _organization_pages(request: ApiRequest) -> list[Page]:
    require_organization(request.principal, request.params["organization_id"])
    user = request.principal.user
    return [page for page in pages_of(user.organization_id) if has_role(user, page.id, None)]


def _organization_page_of_incident(request: ApiRequest, role: str | None = None) -> Page:
    for page in _organization_pages(request):
        try:
            incidents.get_incident(page.id, request.params["incident_id"])
        except NotFound:
            continue
        require_role(request.principal, page.id, role)
        return page
    raise errors.not_found()


def _first_page(request: ApiRequest, role: str | None = None) -> Page:
    reachable = _organization_pages(request)
    if not reachable:
        raise errors.not_found()
    require_role(request.principal, reachable[0].id, role)
    return reachable[0]


def _organization_subscriber(
    request: ApiRequest, incident_id: str | None, role: str | None = None
) -> Subscriber:
    for page in _organization_pages(request):
        try:
            subscriber = subscribers.find(page.id, request.params["subscriber_id"], incident_id)
        except NotFound:
            continue
        require_role(request.principal, page.id, role)
        return subscriber
    raise errors.not_found()


for prefix in ("/v0", "/v1"):
    organization_subscribers = prefix + "/organizations/{organization_id}/subscribers.json"
    organization_incident_subscribers = (
        prefix + "/organizations/{organization_id}/incidents/{incident_id}/subscribers.json"
    )

    @router.route(
        organization_subscribers,
        ["GET"],
        summary="List the organization's subscribers",
        response="SubscriberOut",
        many=True,
        query="SubscriberListQuery",
        style=Style.ARCHIVED,
    )
    def list_organization_subscribers(request: ApiRequest):
        require_organization(request.principal, request.params["organization_id"])
        user = request.principal.user
        every = pages_of(user.organization_id)
        reached = [page.id for page in every if has_role(user, page.id, None)]
        found = subscribers.organization_listed(
            user.organization_id,
            reached,
            every_page=len(reached) == len(every),
            **_listing(request),
        )
        return [subscriber_out(s) for s in found]

    @router.route(
        organization_subscribers,
        ["POST"],
        summary="Subscribe to the organization",
        body="SubscriberCreate",
        response="SubscriberOut",
        status=201,
        style=Style.ARCHIVED,
    )
    def create_organization_subscriber(request: ApiRequest):
        fields = plain(request.parse().subscriber, subscribers.SubscriberInput)
        fields = replace(fields, component_ids=None)
        return subscriber_out(subscribers.create(_first_page(request, PAGE_CONFIGURATION), fields))

    @router.route(
        organization_subscribers.replace(".json", "/{subscriber_id}"),
        ["DELETE"],
        summary="Unsubscribe an organization subscriber",
        response="SubscriberOut",
        style=Style.ARCHIVED,
    )
    def delete_organization_subscriber(request: ApiRequest):
        subscriber = _organization_subscriber(request, None, PAGE_CONFIGURATION)
        return subscriber_out(subscribers.unsubscribe(subscriber))

    @router.route(
        organization_incident_subscribers,
        ["GET"],
        summary="List an incident's subscribers (organization)",
        response="SubscriberOut",
        many=True,
        query="SubscriberListQuery",
        style=Style.ARCHIVED,
    )
    def list_organization_incident_subscribers(request: ApiRequest):
        page = _organization_page_of_incident(request)
        return _listed(request, page.id, request.params["incident_id"])

    @router.route(
        organization_incident_subscribers,
        ["POST"],
        summary="Subscribe to an incident (organization)",
        body="SubscriberCreate",
        response="SubscriberOut",
        status=201,
        style=Style.ARCHIVED,
    )
    def create_organization_incident_subscriber(request: ApiRequest):
        page = _organization_page_of_incident(request, PAGE_CONFIGURATION)
        fields = plain(request.parse().subscriber, subscribers.SubscriberInput)
        fields = replace(fields, component_ids=None)
        return subscriber_out(subscribers.create(page, fields, request.params["incident_id"]))

    @router.route(
        organization_incident_subscribers.replace(".json", "/{subscriber_id}"),
        ["DELETE"],
        summary="Unsubscribe an incident subscriber (organization)",
        response="SubscriberOut",
        style=Style.ARCHIVED,
    )
    def delete_organization_incident_subscriber(request: ApiRequest):
        incident_id = request.params["incident_id"]
        subscriber = _organization_subscriber(request, incident_id, PAGE_CONFIGURATION)
        return subscriber_out(subscribers.unsubscribe(subscriber))
