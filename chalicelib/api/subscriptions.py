"""The list of countries SMS notifications go to. (The links in notifications, which work
without login, are the public page's: `chalicelib.public.subscriptions`.)"""

from chalice import Blueprint

from chalicelib.domain.sms_countries import COUNTRIES
from chalicelib.http.routing import ApiRequest, Router, Style
from chalicelib.schemas.subscribers import SmsCountryOut

blueprint = Blueprint(__name__)
router = Router(blueprint, "subscriptions")


@router.route(
    "/sms_countries.json",
    ["GET"],
    summary="Countries SMS notifications go to",
    response=SmsCountryOut,
    many=True,
    authenticated=False,
    style=Style.ARCHIVED,
)
def sms_countries(request: ApiRequest):
    return [
        SmsCountryOut(code=country.code, name=country.name, calling_code=f"+{country.calling_code}")
        for country in COUNTRIES.values()
    ]
