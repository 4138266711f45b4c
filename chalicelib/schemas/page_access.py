"""Page access users and groups, and their components and metrics (SPEC 2.5, 2.6, 4.4, 4.5)."""

from typing import Annotated

from pydantic import ConfigDict, Field

from chalicelib.schemas.common import (
    Clearable,
    Email,
    Name,
    OutSchema,
    Pagination,
    Schema,
    ShortText,
    wrapper_required,
)
from chalicelib.schemas.components import ComponentIds

# Every list of ids these bodies take: one id alone or a blank form value are fine too.
Ids = ComponentIds


class PageAccessUserFields(Schema):
    email: Annotated[Email | None, Clearable] = None
    # Stored and returned exactly as sent (CONTRACT.md): no trimming, no clearing.
    external_login: str | None = Field(None, max_length=1000)
    page_access_group_ids: Ids | None = Field(None, description="the groups the user is in")
    # SPEC 2.5: the archived style also takes the user's components and metrics here.
    component_ids: Ids | None = None
    metric_ids: Ids | None = None
    subscribe_to_components: bool = Field(
        False, description="subscribe the user to incidents on the components they can see"
    )


def _email_or_login(schema: dict) -> None:
    """The rules refuse a user with neither an email nor an external login."""
    schema["required"] = ["page_access_user"]
    inner = schema["properties"]["page_access_user"]
    either = [
        {"required": [name], "properties": {name: {"type": "string"}}}
        for name in ("email", "external_login")
    ]
    schema["properties"]["page_access_user"] = {"allOf": [inner, {"anyOf": either}]}


class PageAccessUserCreate(Schema):
    model_config = ConfigDict(json_schema_extra=_email_or_login)

    page_access_user: PageAccessUserFields = Field(default_factory=dict, validate_default=True)


class PageAccessUserUpdate(Schema):
    page_access_user: PageAccessUserFields


class PageAccessUserOut(OutSchema):
    id: str
    page_id: str
    email: str | None
    external_login: str | None
    page_access_group_id: str | None
    page_access_group_ids: list[str]
    created_at: str
    updated_at: str


class PageAccessUserDeleted(OutSchema):
    message: str


class PageAccessGroupFields(Schema):
    name: Name | None = None
    external_identifier: Annotated[ShortText | None, Clearable] = None
    page_access_user_ids: Ids | None = None
    component_ids: Ids | None = None
    metric_ids: Ids | None = None


class PageAccessGroupCreateFields(PageAccessGroupFields):
    name: Name


class PageAccessGroupCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `name`.
    model_config = wrapper_required("page_access_group")

    page_access_group: PageAccessGroupCreateFields = Field(
        default_factory=dict, validate_default=True
    )


class PageAccessGroupUpdate(Schema):
    page_access_group: PageAccessGroupFields


class PageAccessGroupOut(OutSchema):
    id: str
    page_id: str
    name: str
    page_access_user_ids: list[str]
    external_identifier: str | None
    metric_ids: list[str]
    component_ids: list[str]
    created_at: str
    updated_at: str


class ComponentIdsGiven(Schema):
    """Components to add or to make the whole set."""

    component_ids: Ids


class ComponentIdsToRemove(Schema):
    """Components to remove; none listed: all of them."""

    component_ids: Ids | None = None


class MetricIdsGiven(Schema):
    metric_ids: Ids


class MetricIdsToRemove(Schema):
    metric_ids: Ids | None = None


class PageAccessUserIdsGiven(Schema):
    page_access_user_ids: Ids


class PageAccessGroupIdsGiven(Schema):
    page_access_group_ids: Ids


class PageAccessUserQuery(Pagination):
    email: str | None = Field(None, description="only the user with this email address")
