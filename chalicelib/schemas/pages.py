"""Page bodies (SPEC 2.1), in the current style and the archived one."""

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from chalicelib.schemas.common import (
    Clearable,
    Color,
    Email,
    Hostname,
    Name,
    OutSchema,
    Schema,
    ShortText,
    Subdomain,
    Text,
    TimeZone,
    WebUrl,
)

Branding = Literal["basic", "premium"]


class PageFields(Schema):
    """Every writable page field, in either style; all optional (a PATCH sends some)."""

    name: Name | None = None
    domain: Annotated[Hostname | None, Clearable] = Field(None, description="CNAME alias")
    subdomain: Subdomain | None = None
    url: Annotated[WebUrl | None, Clearable] = Field(
        None, description="website the page image links to"
    )
    branding: Branding | None = None
    layout: Branding | None = Field(None, description="archived name of branding")
    page_description: Text | None = None
    headline: ShortText | None = None
    support_url: Annotated[WebUrl | None, Clearable] = None
    hidden_from_search: bool | None = None
    viewers_must_be_team_members: bool | None = None
    audience_specific: bool | None = Field(
        None,
        description="extension: only signed-in page access users see the public page, each "
        "the components and metrics granted to them",
    )
    allow_page_subscribers: bool | None = None
    allow_incident_subscribers: bool | None = None
    allow_email_subscribers: bool | None = None
    allow_sms_subscribers: bool | None = None
    allow_rss_atom_feeds: bool | None = None
    allow_webhook_subscribers: bool | None = None
    notifications_from_email: Annotated[Email | None, Clearable] = None
    notifications_email_footer: Text | None = None
    time_zone: TimeZone | None = None
    css_body_background_color: Color | None = None
    css_font_color: Color | None = None
    css_light_font_color: Color | None = None
    css_greens: Color | None = None
    css_yellows: Color | None = None
    css_oranges: Color | None = None
    css_blues: Color | None = None
    css_reds: Color | None = None
    css_border_color: Color | None = None
    css_graph_color: Color | None = None
    css_link_color: Color | None = None
    css_no_data: Color | None = None
    hero_cover_url: Annotated[WebUrl | None, Clearable] = Field(
        None, description="archived: cover image (premium layout), 850x315 or 1700x630"
    )
    transactional_logo_url: Annotated[WebUrl | None, Clearable] = Field(
        None, description="archived: logo (basic layout), 170x45 or 340x90"
    )


class PageCreateFields(PageFields):
    name: Name


class PageUpdate(Schema):
    page: PageFields


class PageCreate(Schema):
    page: PageCreateFields


class PageOut(OutSchema):
    id: str
    created_at: str
    updated_at: str
    name: str
    page_description: str | None
    headline: str | None
    branding: str
    subdomain: str
    domain: str | None
    url: str | None
    support_url: str | None
    hidden_from_search: bool
    allow_page_subscribers: bool
    allow_incident_subscribers: bool
    allow_email_subscribers: bool
    allow_sms_subscribers: bool
    allow_rss_atom_feeds: bool
    allow_webhook_subscribers: bool
    notifications_from_email: str | None
    notifications_email_footer: str | None
    activity_score: int
    social_username: str | None
    twitter_username: str | None = Field(description="Statuspage's name of social_username")
    viewers_must_be_team_members: bool
    audience_specific: Annotated[bool, BeforeValidator(bool)] = False
    ip_restrictions: str | None
    city: str | None
    state: str | None
    country: str | None
    time_zone: str
    css_body_background_color: str
    css_font_color: str
    css_light_font_color: str
    css_greens: str
    css_yellows: str
    css_oranges: str
    css_blues: str
    css_reds: str
    css_border_color: str
    css_graph_color: str
    css_link_color: str
    css_no_data: str
    favicon_logo: str | None
    transactional_logo: str | None
    hero_cover: str | None
    email_logo: str | None
    social_logo: str | None
    twitter_logo: str | None = Field(description="Statuspage's name of social_logo")


class ImageOut(OutSchema):
    """An archived image reference: null fields while no image is set."""

    normal_url: str | None
    original_url: str | None
    retina_url: str | None
    size: int | None
    updated_at: str | None


class ArchivedPageOut(PageOut):
    layout: str
    transactional_logo: ImageOut  # type: ignore[assignment]
    hero_cover: ImageOut  # type: ignore[assignment]


class WebhookSecretOut(OutSchema):
    webhook_secret: str
