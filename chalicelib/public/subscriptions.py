"""The reader's subscription flow on the public page: the form (email, SMS or webhook, as the
page allows; all components or some), the confirmation link's page, and the page to manage or
cancel a subscription from the link in every notification.

Every subscription a reader makes waits for its owner to confirm it (`subscribers.create`
with `by_reader`). The links carry signed tokens, so they work without login:
`/s/{page_id}/subscriptions/{token}/confirm`, `.../manage` and `.../unsubscribe`. Every answer
is uncached and carries the public pages' security headers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING

from chalice import Blueprint, Response

from chalicelib import schemas
from chalicelib.domain import chat_platforms, subscribers
from chalicelib.domain.errors import DomainError
from chalicelib.http import errors
from chalicelib.http.routing import ApiRequest, Router, Style, json_response
from chalicelib.public import caching, html, subscriber_api
from chalicelib.public.routes import HTML, Visit, public_view, refusal
from chalicelib.views import snapshot as page_snapshot
from chalicelib.web import security

if TYPE_CHECKING:
    from chalicelib.store.subscribers import Subscriber

blueprint = Blueprint(__name__)
router = Router(blueprint, "public status page")
LINK = "/s/{page_id}/subscriptions/{token}"


def uncached_html(body: str, status: int = 200) -> Response:
    return caching.uncached(body, status, HTML, security.for_html(body))


def _chosen_kind(visit: Visit) -> html.SubscriptionKind:
    kinds = html.subscription_kinds(visit.data["page"])
    if not kinds:
        raise errors.not_found()  # the page takes no subscribers from its readers
    wanted = visit.request.query.get("via")
    return next((kind for kind in kinds if kind.name == wanted), kinds[0])


def _address(subscriber: Subscriber) -> str:
    """Where the confirmation went: the number of an SMS subscriber, else the email."""
    if subscriber.kind == "sms":
        return subscribers.address_of(subscriber)
    return subscriber.email or ""


def _destination(subscriber: Subscriber) -> str:
    """Where notifications go: the webhook's endpoint, a chat channel's platform and host (its
    URL lets whoever holds it post there, and its messages' links reach the whole channel),
    else the number or the email."""
    if subscriber.kind == "webhook":
        return subscriber.endpoint or ""
    if chat_platforms.is_chat(subscriber.kind):
        return chat_platforms.described(subscriber.kind, subscriber.endpoint or "")
    return _address(subscriber)


def wants_json(request: ApiRequest) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


@public_view("/subscribe", "Subscribe to updates: the form", as_html=True, on=router)
def subscribe_form(visit: Visit) -> Response:
    return uncached_html(html.subscribe_page(visit.data, visit.base, _chosen_kind(visit)))


@public_view(
    "/subscribe",
    "Subscribe to updates: the form sent (subscriber[...] fields, as the API takes them)",
    as_html=True,
    methods=("POST",),
    answers=(422, 429),  # 429: anonymous subscribing is limited (subscriber_api._admit)
    body="SubscriberCreate",
    on=router,
)
def subscribe(visit: Visit) -> Response:
    chosen = _chosen_kind(visit)
    try:
        fields = visit.request.parse(schemas.SubscriberCreate).subscriber
        whole = visit.request.body.get("whole_groups")
        if whole:
            fields.component_ids = html.chosen_components(visit.data, fields.component_ids, whole)
        subscriber = subscriber_api.subscribe_reader(visit, fields)
    except (errors.ApiError, DomainError) as error:
        refused = error if isinstance(error, errors.ApiError) else errors.from_domain(error)
        if refused.status != 422:
            raise
        if wants_json(visit.request):
            return json_response(
                refused.body(), 422, {"Cache-Control": "no-store", **security.for_data()}
            )
        sent = visit.request.body.get("subscriber")
        values = sent if isinstance(sent, dict) else {}
        return uncached_html(
            html.subscribe_page(visit.data, visit.base, chosen, values, refused.errors), 422
        )
    where = "phone" if subscriber.kind == "sms" else "email"
    return uncached_html(
        html.notice_page(
            visit.data,
            visit.base,
            f"Check your {where}",
            f"We sent a link to {_address(subscriber)}: open it to confirm your subscription.",
        )
    )


class Visitor:
    """One visit through a signed link: the subscriber it names and its page's snapshot."""

    def __init__(self, request: ApiRequest, purpose: str):
        page_id = request.params["page_id"]
        self.subscriber = subscribers.by_token(page_id, request.params["token"], purpose)
        snapshot = page_snapshot.load_by_reference(page_id)
        if snapshot is None:
            raise errors.not_found()
        self.data = snapshot.content
        self.base = f"/s/{page_id}"

    def notice(self, title: str, message: str, link: dict | None = None) -> Response:
        return uncached_html(html.notice_page(self.data, self.base, title, message, link))

    def subscription(self, *, saved: bool = False) -> Response:
        subscriber = self.subscriber
        shown = {
            "kind": subscriber.kind,
            "state": subscriber.state,
            "incident_id": subscriber.incident_id,
            "component_ids": list(subscriber.component_ids or []),
            "address": _destination(subscriber),
        }
        body = html.subscription_page(
            self.data,
            self.base,
            shown,
            subscribers.link_path(subscriber, subscribers.MANAGE),
            subscribers.link_path(subscriber, subscribers.UNSUBSCRIBE),
            saved=saved,
        )
        return uncached_html(body)


def _link_view(suffix: str, methods: list[str], summary: str):
    """A route of a signed link; what it cannot show is an HTML page, as the rest of the
    public page's are."""

    def register(view: Callable[[ApiRequest], Response]) -> Callable:
        @wraps(view)
        def handler(request: ApiRequest) -> Response:
            try:
                return view(request)
            except errors.ApiError as error:
                return refusal(error, as_html=True)
            except DomainError as error:
                return refusal(errors.from_domain(error), as_html=True)

        router.route(
            LINK + suffix,
            methods,
            summary=summary,
            authenticated=False,
            style=Style.CURRENT,
            content_type=HTML,
        )(handler)
        return view

    return register


@_link_view(
    "/confirm",
    ["GET", "HEAD"],
    "The confirmation link's page: one button that confirms (opening the link, as a mail "
    "scanner does, confirms nothing)",
)
def confirmation_page(request: ApiRequest) -> Response:
    visitor = Visitor(request, subscribers.CONFIRM)
    if visitor.subscriber.state != subscribers.UNCONFIRMED:
        return _confirmed(visitor)
    return visitor.notice(
        "Confirm your subscription",
        f"Send this status page's notifications to {_address(visitor.subscriber)}?",
        {
            "href": subscribers.link_path(visitor.subscriber, subscribers.CONFIRM),
            "text": "Confirm subscription",
            "post": True,
        },
    )


@_link_view("/confirm", ["POST"], "Confirm a subscription (the confirmation page's button)")
def confirm_subscription(request: ApiRequest) -> Response:
    visitor = Visitor(request, subscribers.CONFIRM)
    subscribers.confirm(visitor.subscriber)
    return _confirmed(visitor)


def _confirmed(visitor: Visitor) -> Response:
    return visitor.notice(
        "Subscription confirmed",
        "You will now receive notifications from this status page.",
        {
            "href": subscribers.link_path(visitor.subscriber, subscribers.MANAGE),
            "text": "Manage your subscription",
        },
    )


@_link_view("/manage", ["GET"], "Manage a subscription (link in every notification)")
def manage_subscription(request: ApiRequest) -> Response:
    return Visitor(request, subscribers.MANAGE).subscription()


@_link_view("/manage", ["POST"], "Choose a subscription's components (none: all of them)")
def save_subscription(request: ApiRequest) -> Response:
    visitor = Visitor(request, subscribers.MANAGE)
    chosen = (
        request.parse(schemas.SubscriberCreate).subscriber.component_ids if request.body else None
    )
    if request.body and request.body.get("whole_groups"):
        chosen = html.chosen_components(visitor.data, chosen, request.body["whole_groups"])
    visitor.subscriber = subscribers.set_components(
        visitor.subscriber.page_id, visitor.subscriber, list(chosen or [])
    )
    return visitor.subscription(saved=True)


@_link_view("/unsubscribe", ["GET"], "Unsubscribe: the question (link in every notification)")
def unsubscribe_question(request: ApiRequest) -> Response:
    # A GET changes nothing: mail scanners and link previews open every link of an email.
    visitor = Visitor(request, subscribers.UNSUBSCRIBE)
    if visitor.subscriber.state == subscribers.UNSUBSCRIBED:
        return _unsubscribed(visitor)
    return uncached_html(
        html.unsubscribe_page(
            visitor.data,
            visitor.base,
            _destination(visitor.subscriber),
            subscribers.link_path(visitor.subscriber, subscribers.UNSUBSCRIBE),
        )
    )


@_link_view(
    "/unsubscribe",
    ["POST"],
    "Unsubscribe (the page's button, or RFC 8058 one-click: List-Unsubscribe=One-Click)",
)
def unsubscribe(request: ApiRequest) -> Response:
    # No login and no body needed: the signed link is the authority, and a mailbox provider's
    # one-click POST (form or multipart, `List-Unsubscribe=One-Click`) is answered as a click
    # on the page's button. Idempotent: a second POST is a 200 too.
    visitor = Visitor(request, subscribers.UNSUBSCRIBE)
    subscribers.unsubscribe(visitor.subscriber)
    return _unsubscribed(visitor)


def _unsubscribed(visitor: Visitor) -> Response:
    return visitor.notice(
        "Unsubscribed", "You will no longer receive notifications from this status page."
    )
