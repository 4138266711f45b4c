"""Component and component group bodies (SPEC 2.7, 2.8, 4.6, 4.7)."""

import datetime
from typing import Annotated, Literal

from pydantic import Field, field_validator

from chalicelib.schemas.common import Clearable, Email, Name, OutSchema, Schema, Text

ComponentStatus = Literal[
    "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"
]


class ComponentFields(Schema):
    name: Name | None = None
    description: Text | None = None
    # An empty status restores a third-party component's official one.
    status: ComponentStatus | Literal[""] | None = None
    group_id: Annotated[str | None, Clearable] = None
    position: int | None = Field(None, ge=1)
    showcase: bool | None = None
    only_show_if_degraded: bool | None = None
    automation_email: Annotated[Email | None, Clearable] = None
    start_date: Annotated[datetime.date | None, Clearable] = None


class ComponentCreateFields(ComponentFields):
    name: Name


class ComponentCreate(Schema):
    component: ComponentCreateFields


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


class GroupAsComponentOut(ComponentOut):
    """A group in a list of components: also names its members."""

    components: list[str]


class ComponentGroupFields(Schema):
    name: Name | None = None
    description: Text | None = None
    components: list[str] | None = Field(None, description="ids of the member components")
    position: int | None = Field(None, ge=1)

    @field_validator("components", mode="before")
    @classmethod
    def _one_id_is_a_list(cls, value):
        return [value] if isinstance(value, str) else value


class ComponentGroupCreateFields(ComponentGroupFields):
    name: Name
    components: list[str]


class ComponentGroupCreate(Schema):
    component_group: ComponentGroupCreateFields


class ComponentGroupUpdate(Schema):
    component_group: ComponentGroupFields


class ComponentGroupOut(OutSchema):
    id: str
    page_id: str
    name: str
    description: str | None
    position: int
    components: list[str]
    created_at: str
    updated_at: str
