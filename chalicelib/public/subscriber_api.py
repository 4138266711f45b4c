"""The status API v2's subscribe call, `POST /api/v2/subscribers.json`, as Statuspage's public
API takes it: the page's readers (and clients such as npm's `statuspage.io`) subscribe
without a key, at every place the page is served (`/s/{page}/api/v2/...` and a host's root).

A subscription made here is the one the page's subscribe form makes (`subscribe_reader`, one
domain call): the same fields (`subscriber[email]`; `subscriber[phone_country]` and
`subscriber[phone_number]`; `subscriber[endpoint]` with `subscriber[email]`;
`subscriber[component_ids][]`), form-encoded or JSON, the same checks and limits, and it
waits, unconfirmed, for its owner to open the link sent to the address, as the form's does.
The answer is Statuspage's, `201 {"subscriber": {...}}`; a refusal is the contract's JSON.

Not offered: a subscription to one incident (the form offers none: a 422 naming
`incident_id`, rather than a subscription to the whole page the caller did not ask for),
reading a subscription back, and cancelling one by its id (an id proves nothing about who
asks: the signed link in every notification cancels it, `.../subscriptions/{token}/...`).
docs/public-subscribe-api.md says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Blueprint, Response

from chalicelib import clock, config, schemas
from chalicelib.domain import errors, pages, subscribers
from chalicelib.http import errors as errors_http
from chalicelib.http import ratelimit
from chalicelib.http.inputs import plain
from chalicelib.http.routing import ApiRequest, Router, json_response
from chalicelib.public.routes import Visit, public_view
from chalicelib.web import security

if TYPE_CHECKING:
    from chalicelib.store.subscribers import Subscriber

blueprint = Blueprint(__name__)
router = Router(blueprint, "public status page")
# Statuspage's names of a subscription to one incident.
_INCIDENT_FIELDS = ("incident_id", "incident")


def subscribe_reader(
    visit: Visit, fields: schemas.SubscriberFields, incident_id: str | None = None
) -> Subscriber:
    """A reader's subscription, as the subscribe forms and this API make it: on an
    audience-specific page the signed-in reader follows as itself; it waits for confirmation."""
    if visit.viewer is not None:
        fields.page_access_user = visit.viewer.user_id
    _admit(visit.snapshot.page_id)
    page = pages.get_page(visit.snapshot.page_id)
    wanted = plain(fields, subscribers.SubscriberInput)
    return subscribers.create(page, wanted, incident_id, by_reader=True)


HOUR = 3600


def _admit(page_id: str) -> None:
    """Count an anonymous subscription against its client on the page and against the page
    (each its own setting, on whatever `RATE_LIMIT_PER_MINUTE` says): past either, 429 with
    `Retry-After`, and nothing is made or sent. Every confirmation is an email or a text
    message to an address the caller chose: unlimited, the form would mail or text anyone, at
    the operator's cost."""
    current = blueprint.current_request
    client = ratelimit.client_of(current.context, current.headers)
    this_client = ratelimit.token_for(f"subscribe#{page_id}", client)
    ratelimit.check(this_client, config.subscribe_per_client_per_hour(), HOUR)
    try:
        ratelimit.check(f"subscribe-page#{page_id}", config.subscribe_per_page_per_hour(), HOUR)
    except errors_http.ApiError:
        ratelimit.uncount(this_client, HOUR)
        raise


@public_view(
    "/api/v2/subscribers.json",
    "Status API v2: subscribe to the page's notifications (waits for confirmation, as the "
    "subscribe form's subscriptions do)",
    methods=("POST",),
    status=201,
    answers=(422, 429),  # 429: anonymous subscribing is limited (subscriber_api._admit)
    body="SubscriberCreate",
    response="PublicSubscriberDocument",
    on=router,
)
def create_subscription(visit: Visit) -> Response:
    fields = _fields(visit.request)
    subscriber = subscribe_reader(visit, fields)
    headers = {"Cache-Control": "no-store", "Access-Control-Allow-Origin": "*"}
    return json_response(_document(subscriber), 201, {**headers, **security.for_data()})


def _fields(request: ApiRequest) -> schemas.SubscriberFields:
    fields = request.parse(schemas.SubscriberCreate).subscriber
    sent = request.body.get("subscriber", request.body)
    sent = sent if isinstance(sent, dict) else {}
    for name in _INCIDENT_FIELDS:
        if sent.get(name):
            raise errors.invalid(
                "incident_id", "readers subscribe to the page or to components here"
            )
    # npm's `statuspage.io` names one component `component_id`.
    named = sent.get("component_id")
    if named and not fields.component_ids:
        if not isinstance(named, str):
            raise errors.invalid("component_id", "must be a component id")
        fields.component_ids = [named]
    return fields


def _document(subscriber: Subscriber) -> dict:
    return schemas.PublicSubscriberDocument(
        subscriber=schemas.PublicSubscriber(
            id=subscriber.id,
            created_at=clock.iso(subscriber.created_at),
            mode=subscriber.kind,
            email=subscriber.email,
            endpoint=subscriber.endpoint,
            phone_country=subscriber.phone_country,
            phone_number=subscriber.phone_number,
            components=list(subscriber.component_ids or []),
            skip_confirmation_notification=False,
            quarantined_at=None,
            purge_at=None,
            state=subscriber.state,
        )
    ).model_dump(mode="json")
