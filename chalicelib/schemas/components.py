"""Component and component group bodies (SPEC 2.7, 2.8, 4.6, 4.7)."""

import datetime
import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    RootModel,
    field_validator,
    model_validator,
)

from chalicelib.schemas.common import (
    Clearable,
    Email,
    Name,
    OutSchema,
    Schema,
    Text,
    WebUrl,
    wrapper_required,
)

ComponentStatus = Literal[
    "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"
]
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _day_only(value):
    # pydantic would also take timestamps and datetimes; SPEC 2.7 says YYYY-MM-DD.
    if isinstance(value, (int, float)) or (isinstance(value, str) and not _DAY.match(value)):
        raise ValueError("must be a date as YYYY-MM-DD")
    return value


Day = Annotated[datetime.date, BeforeValidator(_day_only)]


def _ids(value):
    """Form bodies send one id as a plain value and "no ids" as one blank one."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        return [item.strip() if isinstance(item, str) else item for item in value if item != ""]
    return value


def _distinct(value: list[str]) -> list[str]:
    return list(dict.fromkeys(value))


ComponentIds = Annotated[list[str], BeforeValidator(_ids), AfterValidator(_distinct)]
# A group cannot be empty (SPEC 2.8): refused by `_not_empty` below with that message.
GroupMembers = Annotated[ComponentIds, Field(json_schema_extra={"minItems": 1})]


# A followed page's address is a sort key of `third-party-sources` (DynamoDB: 1,024 bytes).
MAX_SUMMARY_URL = 1000
# What `_summary_url` takes, for the document: a web address whose path ends in summary.json.
SUMMARY_URL = r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?/[^?#\s]*summary\.json(\?[^#\s]*)?$"


def _summary_url(value: str) -> str:
    if len(value.encode()) > MAX_SUMMARY_URL or not value.split("?")[0].endswith("summary.json"):
        raise ValueError("must be a status page's summary.json URL (.../api/v2/summary.json)")
    return value


class ThirdPartyLink(Schema):
    """What a third-party component follows: a component of another Statuspage-compatible
    status page."""

    summary_url: Annotated[
        WebUrl,
        AfterValidator(_summary_url),
        Field(json_schema_extra={"pattern": SUMMARY_URL, "maxLength": MAX_SUMMARY_URL}),
    ] = Field(
        description="the source page's status API summary, e.g. "
        "https://www.githubstatus.com/api/v2/summary.json"
    )
    component_id: Name = Field(
        description="the id of the followed component in that summary's `components`"
    )


class ThirdPartyOut(OutSchema):
    summary_url: str
    component_id: str
    official_status: ComponentStatus | None = Field(
        description="the source component's status as last polled; null until the first poll"
    )


class ComponentFields(Schema):
    name: Name | None = None
    description: Text | None = None
    # An empty status restores a third-party component's official one (SPEC 3.1).
    status: ComponentStatus | Literal[""] | None = None
    group_id: Annotated[str | None, Clearable] = Field(
        None, description="id of the parent group; empty to take the component out of its group"
    )
    position: int | None = Field(None, ge=1, description="1-based place in the page order")
    showcase: bool | None = None
    only_show_if_degraded: bool | None = None
    automation_email: Annotated[Email | None, Clearable] = None
    start_date: Annotated[Day | None, Clearable] = None
    third_party: Annotated[ThirdPartyLink | None, Clearable] = Field(
        None,
        description="follow a component of another status page (its status is polled every "
        "minute and applied as a status change); empty or null to stop following",
    )


class ComponentCreateFields(ComponentFields):
    name: Name


class ComponentCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `name`.
    model_config = wrapper_required("component")

    component: ComponentCreateFields = Field(default_factory=dict, validate_default=True)


class ComponentUpdate(Schema):
    component: ComponentFields


class ComponentOut(OutSchema):
    id: str
    page_id: str
    group_id: str | None
    created_at: str
    updated_at: str
    group: bool
    name: str
    description: str | None
    position: int
    status: str
    showcase: bool
    only_show_if_degraded: bool
    automation_email: str | None
    start_date: str | None
    third_party: ThirdPartyOut | None


class GroupAsComponentOut(ComponentOut):
    """A group in a list of components: also names its members."""

    components: list[str]


class ComponentListItemOut(RootModel[GroupAsComponentOut | ComponentOut]):
    """An entry of a page's component list: a component, or a group with its members."""


class ComponentGroupFields(Schema):
    name: Name | None = None
    description: Text | None = None
    components: GroupMembers | None = Field(None, description="ids of the member components")
    position: int | None = Field(None, ge=1, description="1-based place in the page order")

    @field_validator("components")
    @classmethod
    def _not_empty(cls, value):
        if value is not None and not value:
            raise ValueError("a group cannot be empty")
        return value


class ComponentGroupCreateFields(ComponentGroupFields):
    name: Name
    components: GroupMembers


def _description_beside_the_group(data):
    """Statuspage's reference puts `description` beside `component_group`, not in it."""
    if isinstance(data, dict) and isinstance(data.get("component_group"), dict):
        inner = data["component_group"]
        if "description" in data and "description" not in inner:
            return {**data, "component_group": {**inner, "description": data["description"]}}
    return data


class ComponentGroupCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `name` and `components`.
    model_config = wrapper_required("component_group")

    component_group: ComponentGroupCreateFields = Field(default_factory=dict, validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _description_beside(cls, data):
        return _description_beside_the_group(data)


class ComponentGroupUpdate(Schema):
    component_group: ComponentGroupFields

    @model_validator(mode="before")
    @classmethod
    def _description_beside(cls, data):
        return _description_beside_the_group(data)


class ComponentGroupOut(OutSchema):
    id: str
    page_id: str
    name: str
    description: str | None
    position: int
    components: list[str]
    created_at: str
    updated_at: str
