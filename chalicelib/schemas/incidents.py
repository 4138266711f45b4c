"""Incident, incident update, postmortem and incident template bodies (SPEC 2.9-2.11, 4.8, 4.9)."""

import json
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator

from chalicelib.domain.incident_states import REALTIME, SCHEDULED
from chalicelib.http.pagination import MAX_PAGE_NUMBER
from chalicelib.schemas.common import (
    Clearable,
    Name,
    OutSchema,
    Schema,
    Text,
    wrapper_required,
)
from chalicelib.schemas.components import ComponentOut

ComponentStatus = Literal[
    "operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"
]
Impact = Literal["none", "minor", "major", "critical"]

# Metadata rides on the incident's item, which DynamoDB keeps under 400 KB with the rest.
MAX_METADATA_BYTES = 16 * 1024


class IncidentFields(Schema):
    """Create and update share the fields; create requires `name`, checked by the domain."""

    name: Name | None = None
    status: str | None = None
    body: Text | None = Field(None, validation_alias=AliasChoices("body", "message"))
    wants_social_update: bool | None = Field(
        None, validation_alias=AliasChoices("wants_social_update", "wants_twitter_update")
    )
    impact_override: Annotated[Impact | None, Clearable] = None
    component_ids: list[str] | None = None
    components: dict[str, ComponentStatus] | None = Field(
        None, description="component id to the status to apply"
    )
    deliver_notifications: bool | None = None
    metadata: dict[str, dict] | None = Field(
        None,
        description=f"top-level values must be objects; at most {MAX_METADATA_BYTES} bytes as JSON",
    )
    scheduled_for: datetime | None = None
    scheduled_until: datetime | None = None
    scheduled_remind_prior: bool | None = None
    scheduled_auto_in_progress: bool | None = Field(
        None,
        validation_alias=AliasChoices("scheduled_auto_in_progress", "scheduled_auto_transition"),
    )
    scheduled_auto_completed: bool | None = None
    auto_transition_to_maintenance_state: bool | None = Field(
        None, description="components go under maintenance at the automatic start (default true)"
    )
    auto_transition_to_operational_state: bool | None = Field(
        None, description="components go back to operational at the automatic end (default true)"
    )
    auto_transition_deliver_notifications_at_start: bool | None = Field(
        None, description="the automatic start notifies subscribers (default true)"
    )
    auto_transition_deliver_notifications_at_end: bool | None = Field(
        None, description="the automatic end notifies subscribers (default true)"
    )
    reminder_intervals: Annotated[str | list[int] | None, Clearable] = Field(
        None,
        description=(
            "hours without an update after which the team is reminded of an open incident: "
            '"[3, 6, 12, 24]" (the default, null), every N hours as "N", none as "[]"'
        ),
    )
    backfilled: bool | None = None
    backfill_date: datetime | None = None
    template_id: str | None = None

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_values_are_objects(cls, value):
        if isinstance(value, dict) and not all(isinstance(item, dict) for item in value.values()):
            raise ValueError("top-level values must be objects")
        if value is not None and len(json.dumps(value)) > MAX_METADATA_BYTES:
            raise ValueError(f"is larger than {MAX_METADATA_BYTES} bytes as JSON")
        return value

    @field_validator("component_ids", mode="before")
    @classmethod
    def _one_id_is_a_list(cls, value):
        return [value] if isinstance(value, str) else value


class IncidentCreate(Schema):
    model_config = wrapper_required("incident", "name")  # the rules refuse one without

    incident: IncidentFields


class IncidentUpdate(Schema):
    incident: IncidentFields


class AffectedComponentOut(OutSchema):
    code: str
    name: str
    old_status: str
    new_status: str


class IncidentUpdateOut(OutSchema):
    id: str
    incident_id: str
    body: str
    status: str
    created_at: str
    display_at: str
    updated_at: str
    social_updated_at: str | None
    wants_social_update: bool
    deliver_notifications: bool
    affected_components: list[AffectedComponentOut] | None
    # Statuspage's names of the social fields.
    wants_twitter_update: bool
    twitter_updated_at: str | None
    tweet_id: str | None
    custom_tweet: str | None


class IncidentComponentOut(OutSchema):
    id: str
    page_id: str
    group_id: str | None
    name: str
    description: str | None
    position: int | None
    status: str
    showcase: bool | None
    only_show_if_degraded: bool | None
    group: bool
    created_at: str | None
    updated_at: str | None
    start_date: str | None
    automation_email: str | None


class IncidentImpactOut(OutSchema):
    """Statuspage's per-product impacts (Atlassian products); this service records none."""

    id: str
    product_name: str | None
    experiences: list[str]
    created_at: str


class IncidentOut(OutSchema):
    id: str
    page_id: str
    name: str
    status: str
    impact: str
    impact_override: str | None
    incident_updates: list[IncidentUpdateOut]
    components: list[IncidentComponentOut]
    metadata: dict
    monitoring_at: str | None
    resolved_at: str | None
    postmortem_body: str | None
    postmortem_body_last_updated_at: str | None
    postmortem_published_at: str | None
    postmortem_ignored: bool
    postmortem_notified_subscribers: bool
    postmortem_notified_social: bool
    postmortem_notified_twitter: bool
    scheduled_for: str | None
    scheduled_until: str | None
    scheduled_remind_prior: bool
    scheduled_reminded_at: str | None
    scheduled_auto_in_progress: bool
    scheduled_auto_completed: bool
    auto_transition_to_maintenance_state: bool
    auto_transition_to_operational_state: bool
    auto_transition_deliver_notifications_at_start: bool
    auto_transition_deliver_notifications_at_end: bool
    reminder_intervals: str | None
    incident_impacts: list[IncidentImpactOut]
    shortlink: str
    created_at: str
    updated_at: str


class IncidentUpdateFields(Schema):
    body: Text | None = None
    display_at: datetime | None = None
    wants_social_update: bool | None = Field(
        None, validation_alias=AliasChoices("wants_social_update", "wants_twitter_update")
    )
    deliver_notifications: bool | None = None


class IncidentUpdateEdit(Schema):
    incident_update: IncidentUpdateFields


class PostmortemDraftFields(Schema):
    body_draft: Text = Field(validation_alias=AliasChoices("body_draft", "body"))


class PostmortemDraft(Schema):
    postmortem: PostmortemDraftFields


class PostmortemPublishFields(Schema):
    notify_subscribers: bool = False
    notify_social: bool = False
    custom_post: Annotated[str | None, Clearable] = Field(
        None, validation_alias=AliasChoices("custom_post", "custom_tweet")
    )


class PostmortemPublish(Schema):
    postmortem: PostmortemPublishFields = Field(
        default_factory=PostmortemPublishFields,
        # The archived parameter list spells the prefix `portmortem`.
        validation_alias=AliasChoices("postmortem", "portmortem"),
    )


class PostmortemOut(OutSchema):
    created_at: str
    preview_key: str
    body: str | None
    body_updated_at: str | None
    body_draft: str | None
    body_draft_updated_at: str | None
    published_at: str | None
    notify_subscribers: bool
    notify_social: bool
    custom_post: str | None
    updated_at: str


class IncidentTemplateFields(Schema):
    name: Name
    title: Name
    body: Text = ""
    group_id: str | None = None
    update_status: str | None = Field(
        None, json_schema_extra={"anyOf": [{"enum": [*REALTIME, *SCHEDULED]}, {"type": "null"}]}
    )
    should_tweet: bool = False
    should_send_notifications: bool = True
    component_ids: list[str] = []


class IncidentTemplateCreate(Schema):
    template: IncidentTemplateFields


class IncidentTemplateOut(OutSchema):
    id: str
    page_id: str
    name: str
    title: str
    body: str
    group_id: str | None
    update_status: str | None
    should_tweet: bool
    should_send_notifications: bool
    components: list[ComponentOut]
    created_at: str
    updated_at: str


class IncidentListQuery(Schema):
    q: str | None = Field(None, description="search text in names and update bodies")
    page: int | None = Field(None, ge=1, le=MAX_PAGE_NUMBER, description="1-based page number")
    per_page: int | None = Field(None, ge=1, le=100, description="page size, 100 at most")
    limit: int | None = Field(None, ge=1, le=100, description="alias of per_page")
