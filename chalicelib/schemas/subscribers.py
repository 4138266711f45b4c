"""Subscriber bodies (SPEC 2.12, 4.10)."""

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, field_validator

from chalicelib.domain import sms_countries
from chalicelib.http.pagination import MAX_PAGE_NUMBER
from chalicelib.schemas.common import (
    Clearable,
    Email,
    OutSchema,
    Schema,
    WebUrl,
)

Kind = Literal["email", "sms", "webhook"]


def _listed(value):
    return [value] if isinstance(value, str) else value


def _sms_countries(schema: dict) -> None:
    options = schema.get("anyOf", [schema])
    options[0]["enum"] = sorted(sms_countries.COUNTRIES)


class SubscriberFields(Schema):
    # The rules take an email; a phone_country and phone_number; or an endpoint (with email).
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {"required": ["email"], "properties": {"email": {"type": "string"}}},
                {
                    "required": ["phone_country", "phone_number"],
                    "properties": {
                        "phone_country": {"type": "string"},
                        "phone_number": {"type": "string"},
                    },
                },
            ]
        }
    )

    email: Annotated[Email | None, Clearable] = None
    phone_country: Annotated[str | None, Clearable] = Field(None, json_schema_extra=_sms_countries)
    phone_number: Annotated[str | None, Clearable] = None
    endpoint: Annotated[WebUrl | None, Clearable] = None
    component_ids: list[str] | None = None
    skip_confirmation_notification: bool = False
    page_access_user: Annotated[str | None, Clearable] = None

    _component_ids_listed = field_validator("component_ids", mode="before")(_listed)


class SubscriberCreate(Schema):
    subscriber: SubscriberFields


class SubscriberComponents(Schema):
    component_ids: list[str] = Field(min_length=1)

    _component_ids_listed = field_validator("component_ids", mode="before")(_listed)


class SubscriberUpdate(Schema):
    subscriber: SubscriberComponents


class SubscriberBatch(Schema):
    """`subscribers`: ids, or the string `all`."""

    subscribers: list[str] | Literal["all"]
    type: Kind | None = None
    state: Literal["active", "unconfirmed", "quarantined", "all"] | None = None

    _subscribers_listed = field_validator("subscribers", mode="before")(
        lambda value: value if value == "all" else _listed(value)
    )


class ResendConfirmations(Schema):
    subscribers: list[str]

    _subscribers_listed = field_validator("subscribers", mode="before")(_listed)


class SubscriberOut(OutSchema):
    id: str
    created_at: str
    mode: str
    email: str | None
    endpoint: str | None
    phone_number: str | None
    phone_country: str | None
    display_phone_number: str | None
    skip_confirmation_notification: bool
    quarantined_at: str | None
    purge_at: str | None
    components: list[str]
    page_access_user_id: str | None
    incident_id: str | None
    state: str


class SubscriberCountByType(OutSchema):
    """Statuspage's count: subscribers per type (kinds this service has no subscribers of,
    such as Slack or Teams, count 0)."""

    email: int
    sms: int
    webhook: int
    integration_partner: int
    slack: int
    teams: int


class StateCounts(OutSchema):
    active: int
    unconfirmed: int
    quarantined: int
    total: int


class SubscriberHistogram(OutSchema):
    email: StateCounts
    sms: StateCounts
    webhook: StateCounts


class SubscriberListQuery(Schema):
    q: str | None = Field(None, description="text in the address, number or endpoint")
    type: Kind | None = None
    state: Literal["active", "unconfirmed", "quarantined", "all"] | None = None
    limit: int | None = Field(None, ge=1)
    page: int | None = Field(None, ge=0, le=MAX_PAGE_NUMBER, description="0-based")
    sort_field: Literal["primary", "created_at", "quarantined_at"] | None = None
    sort_direction: Literal["asc", "desc"] | None = None


class SubscriberCountQuery(Schema):
    type: Literal["email", "sms", "webhook", "slack", "teams", "integration_partner"] | None = (
        Field(None, description="count only subscribers of this type")
    )
    state: Literal["active", "unconfirmed", "quarantined", "all"] | None = Field(
        None, description="count only subscribers in this state (default active)"
    )
    q: str | None = Field(None, description="text in the address, number or endpoint")


class SmsCountryOut(OutSchema):
    code: str
    name: str
    calling_code: str
