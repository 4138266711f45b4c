"""Integrations (alert webhooks) and the audit of automation (issue 34)."""

from typing import Annotated, Literal

from pydantic import Field

from chalicelib.schemas.common import NotNull, OutSchema, Schema, ShortText, wrapper_required
from chalicelib.schemas.components import ComponentStatus

IntegrationKind = Literal["alertmanager", "grafana", "generic"]
# Statuses an alert may set (a resolved alert gives `operational` back on its own).
OutageStatus = Literal[
    "degraded_performance", "partial_outage", "major_outage", "under_maintenance"
]
LabelText = Annotated[str, Field(max_length=255)]


class IntegrationRule(Schema):
    match: dict[LabelText, LabelText] = Field(
        min_length=1, max_length=20, description="labels an alert must all carry, with values"
    )
    component_id: ShortText = Field(description="the component such an alert sets")


class IntegrationFields(Schema):
    kind: Annotated[IntegrationKind | None, NotNull] = Field(
        None, description="the payload posted: alertmanager (v4), grafana or generic"
    )
    name: ShortText | None = None
    rules: Annotated[list[IntegrationRule] | None, NotNull] = Field(
        None,
        max_length=100,
        description="tried in order before the default labels `component_id` and `component`",
    )
    severities: Annotated[dict[LabelText, OutageStatus] | None, NotNull] = Field(
        None,
        max_length=50,
        description="`severity` label to status, over the defaults (critical/page: "
        "major_outage, error/major: partial_outage, any other: degraded_performance)",
    )
    hold_minutes: Annotated[int | None, NotNull] = Field(
        None, ge=0, le=10080, description="a status set by hand this recently is left alone"
    )
    min_firing_seconds: Annotated[int | None, NotNull] = Field(
        None,
        ge=0,
        le=86400,
        description="a status is applied once wanted this long (default 60; 0 turns the "
        "flapping protection off)",
    )
    expire_after_minutes: int | None = Field(
        None,
        ge=0,
        le=10080,
        description="a firing alert not posted again for this long expires, as if resolved "
        "(0: never; null: the kind's default, 15 for alertmanager and grafana, never for "
        "generic)",
    )
    rate_limit_per_minute: Annotated[int | None, NotNull] = Field(
        None, ge=1, le=6000, description="posts a minute this integration accepts (default 600)"
    )
    incident_template_id: ShortText | None = Field(
        None, description="opens an incident from this template on a major outage"
    )
    resolve_incident: Annotated[bool | None, NotNull] = Field(
        None, description="resolves that incident once every alert has resolved"
    )


class IntegrationCreateFields(IntegrationFields):
    kind: IntegrationKind = Field(
        description="the payload posted: alertmanager (v4), grafana or generic"
    )


class IntegrationCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `kind`.
    model_config = wrapper_required("integration")

    integration: IntegrationCreateFields = Field(default_factory=dict, validate_default=True)


class IntegrationUpdate(Schema):
    integration: IntegrationFields


class IntegrationRuleOut(OutSchema):
    match: dict[str, str]
    component_id: str


class IntegrationOut(OutSchema):
    id: str
    page_id: str
    kind: str
    name: str
    url: str | None = Field(
        description="where monitoring posts; shown when the integration is made and when its "
        "token is rotated, null otherwise (only the token's hash is kept)"
    )
    rules: list[IntegrationRuleOut]
    severities: dict[str, str]
    hold_minutes: int
    min_firing_seconds: int
    expire_after_minutes: int = Field(
        description="minutes without a post after which a firing alert expires (0: never)"
    )
    rate_limit_per_minute: int
    incident_template_id: str | None
    resolve_incident: bool
    open_incident_id: str | None
    created_at: str
    updated_at: str


class AutomationEventOut(OutSchema):
    id: str
    source_kind: str = Field(description="alertmanager, grafana, generic or check")
    source_id: str = Field(description="the integration's or the check's id")
    detail: str = Field(description="the alerts' fingerprints, or the check's result")
    component_id: str | None
    old_status: ComponentStatus | None
    new_status: ComponentStatus | None
    changed: bool
    reason: str = Field(description="the change made, or why none was")
    created_at: str


class AlertReceiptComponentOut(OutSchema):
    component_id: str
    status: str
    changed: bool
    reason: str


class AlertReceiptOut(OutSchema):
    components: list[AlertReceiptComponentOut]
    unmatched: int = Field(description="alerts that named no component of the page")
