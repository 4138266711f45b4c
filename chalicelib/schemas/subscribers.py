"""Subscriber bodies (SPEC 2.12, 4.10)."""

from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator

from chalicelib.domain import chat_platforms, sms_countries
from chalicelib.http.pagination import MAX_PAGE_NUMBER
from chalicelib.schemas.common import (
    Clearable,
    Email,
    OutSchema,
    Schema,
    WebUrl,
)

Kind = Literal["email", "sms", "webhook", "slack", "teams", "discord", "google_chat"]
ChatPlatform = Literal["slack", "teams", "discord", "google_chat"]
# A webhook's or a chat channel's URL: printable ASCII, bounded (its bytes are part of
# DynamoDB keys).
_CHAT_URL = r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?([/?#][!-~]*)?$"


def _chat_url(value: str) -> str:
    if not value.isascii() or len(value) > chat_platforms.MAX_URL_LENGTH:
        raise ValueError(f"must be at most {chat_platforms.MAX_URL_LENGTH} characters, all ASCII")
    return value


HookUrl = Annotated[
    WebUrl,
    AfterValidator(_chat_url),
    Field(json_schema_extra={"pattern": _CHAT_URL, "maxLength": chat_platforms.MAX_URL_LENGTH}),
]


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
    endpoint: Annotated[HookUrl | None, Clearable] = None
    chat_webhook_url: Annotated[HookUrl | None, Clearable] = Field(
        None,
        description=(
            "An extension: a chat channel's incoming-webhook URL (Slack, a Microsoft Teams "
            "Workflows webhook, Discord, Google Chat), with `email` as for an endpoint. The "
            "subscriber's `mode` is its platform."
        ),
    )
    chat_platform: Annotated[ChatPlatform | None, Clearable] = Field(
        None,
        description=(
            "An extension: the platform of `chat_webhook_url`; by default the one whose "
            "webhook host the URL is on (hooks.slack.com, *.logic.azure.com or "
            "*.api.powerplatform.com, discord.com/api/webhooks, chat.googleapis.com)."
        ),
    )
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
    chat_platform: ChatPlatform | None = Field(
        description="An extension: the platform of a chat subscriber (as its `mode`)"
    )
    chat_webhook_url: str | None = Field(
        description="An extension: a chat subscriber's incoming-webhook URL"
    )
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
    """Statuspage's count: subscribers per type (`integration_partner`, a kind this service
    has no subscribers of, counts 0; `discord` and `google_chat` are extensions)."""

    email: int
    sms: int
    webhook: int
    integration_partner: int
    slack: int
    teams: int
    discord: int
    google_chat: int


class StateCounts(OutSchema):
    active: int
    unconfirmed: int
    quarantined: int
    total: int


class SubscriberHistogram(OutSchema):
    email: StateCounts
    sms: StateCounts
    webhook: StateCounts
    slack: StateCounts
    teams: StateCounts
    discord: StateCounts
    google_chat: StateCounts


class SubscriberListQuery(Schema):
    q: str | None = Field(None, description="text in the address, number or endpoint")
    type: Kind | None = None
    state: Literal["active", "unconfirmed", "quarantined", "all"] | None = None
    limit: int | None = Field(None, ge=1)
    page: int | None = Field(None, ge=0, le=MAX_PAGE_NUMBER, description="0-based")
    sort_field: Literal["primary", "created_at", "quarantined_at"] | None = None
    sort_direction: Literal["asc", "desc"] | None = None


class SubscriberCountQuery(Schema):
    type: (
        Literal[
            "email",
            "sms",
            "webhook",
            "slack",
            "teams",
            "discord",
            "google_chat",
            "integration_partner",
        ]
        | None
    ) = Field(None, description="count only subscribers of this type")
    state: Literal["active", "unconfirmed", "quarantined", "all"] | None = Field(
        None, description="count only subscribers in this state (default active)"
    )
    q: str | None = Field(None, description="text in the address, number or endpoint")


class SmsCountryOut(OutSchema):
    code: str
    name: str
    calling_code: str
