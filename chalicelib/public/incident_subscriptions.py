"""A reader's subscription to one incident, from the form on the incident's page (while it is
open, when the page allows incident subscribers, by email or text message).

The incident's page is a published file; its form posts here, to the app. The rules are the
page form's (`subscriptions.py`): every such subscriber waits for its owner to confirm it, and
then hears only of this incident's updates (SPEC 4.10: incident subscribers).
"""

from chalice import Blueprint, Response

from chalicelib import schemas
from chalicelib.domain import subscribers
from chalicelib.domain.errors import DomainError
from chalicelib.http import errors
from chalicelib.http.routing import Router, json_response
from chalicelib.public import html, subscriber_api
from chalicelib.public.routes import Visit, incident_entry, public_view
from chalicelib.public.subscriptions import uncached_html, wants_json
from chalicelib.web import security

blueprint = Blueprint(__name__)
router = Router(blueprint, "public status page")


@public_view(
    "/incidents/{incident_id}/subscribe",
    "Subscribe to one incident's updates: its page's form sent (subscriber[...] fields)",
    as_html=True,
    methods=("POST",),
    answers=(422, 429),  # 429: anonymous subscribing is limited (subscriber_api._admit)
    body="SubscriberCreate",
    on=router,
)
def subscribe_to_incident(visit: Visit) -> Response:
    entry = incident_entry(visit, visit.request.params["incident_id"])
    kinds = html.incident_subscription_kinds(visit.data["page"])
    if not kinds:
        raise errors.not_found()  # the page takes no incident subscribers from its readers
    wanted = visit.request.query.get("via")
    chosen = next((kind for kind in kinds if kind.name == wanted), kinds[0])
    try:
        fields = visit.request.parse(schemas.SubscriberCreate).subscriber
        subscriber = subscriber_api.subscribe_reader(visit, fields, entry["incident"]["id"])
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
        body = html.incident_page(
            visit.data, entry, visit.base, chosen.name, values, refused.errors
        )
        return uncached_html(body, 422)
    where = "phone" if subscriber.kind == "sms" else "email"
    address = subscribers.address_of(subscriber) if subscriber.kind == "sms" else subscriber.email
    noun = "maintenance" if entry["scheduled"] else "incident"
    return uncached_html(
        html.notice_page(
            visit.data,
            visit.base,
            f"Check your {where}",
            f"We sent a link to {address}: open it to confirm your subscription to this {noun}.",
            {
                "href": f"{visit.base}/incidents/{entry['incident']['id']}",
                "text": f"Back to the {noun}",
            },
        )
    )
