"""Links in emails that work without login: confirm a subscription, unsubscribe; and the list
of countries SMS notifications go to."""

import html

from chalice import Blueprint, Response

from chalicelib import schemas
from chalicelib.domain import subscribers
from chalicelib.domain.sms_countries import COUNTRIES
from chalicelib.http.routing import ApiRequest, Router, Style

blueprint = Blueprint(__name__)
router = Router(blueprint, "subscriptions")
LINK = "/s/{page_id}/subscriptions/{token}"


def _page(title: str, message: str) -> Response:
    body = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title></head>"
        f"<body style='font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 32rem'>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></body></html>"
    )
    return Response(
        body=body, status_code=200, headers={"Content-Type": "text/html; charset=utf-8"}
    )


@router.route(
    LINK + "/confirm",
    ["GET", "POST"],
    summary="Confirm a subscription (link in the confirmation email)",
    authenticated=False,
    style=Style.CURRENT,
)
def confirm_subscription(request: ApiRequest):
    subscriber = subscribers.by_token(
        request.params["page_id"], request.params["token"], subscribers.CONFIRM
    )
    subscribers.confirm(subscriber)
    return _page(
        "Subscription confirmed", "You will now receive notifications from this status page."
    )


@router.route(
    LINK + "/unsubscribe",
    ["GET", "POST"],
    summary="Unsubscribe (link in every notification)",
    authenticated=False,
    style=Style.CURRENT,
)
def unsubscribe(request: ApiRequest):
    subscriber = subscribers.by_token(
        request.params["page_id"], request.params["token"], subscribers.UNSUBSCRIBE
    )
    subscribers.unsubscribe(subscriber)
    return _page("Unsubscribed", "You will no longer receive notifications from this status page.")


@router.route(
    "/sms_countries.json",
    ["GET"],
    summary="Countries SMS notifications go to",
    response="SmsCountryOut",
    many=True,
    authenticated=False,
    style=Style.ARCHIVED,
)
def sms_countries(request: ApiRequest):
    return [
        schemas.SmsCountryOut(
            code=country.code, name=country.name, calling_code=f"+{country.calling_code}"
        )
        for country in COUNTRIES.values()
    ]
