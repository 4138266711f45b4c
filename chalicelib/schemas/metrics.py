"""Metrics providers, metrics and data points (SPEC 2.13-2.15, 4.11)."""

from typing import Annotated, Literal

from pydantic import Field

from chalicelib.schemas.common import (
    Name,
    NotNull,
    OutSchema,
    Schema,
    ShortText,
    Text,
    wrapper_required,
)


class AvailableProviderOut(OutSchema):
    type: str
    required_fields: list[str]


# The types chalicelib/domain/metrics_providers.py knows (and checks, with its own message).
PROVIDER_TYPES = ("Pingdom", "NewRelic", "Librato", "Datadog", "Self")


def _provider_types(schema: dict) -> None:
    options = schema.get("anyOf", [schema])  # the first is the string
    options[0]["enum"] = list(PROVIDER_TYPES)


class MetricsProviderFields(Schema):
    type: Annotated[str | None, NotNull] = Field(
        None,
        description='one of "Pingdom", "NewRelic", "Librato", "Datadog"',
        json_schema_extra=_provider_types,
    )
    email: ShortText | None = None
    password: ShortText | None = None
    api_key: ShortText | None = None
    api_token: ShortText | None = None
    application_key: ShortText | None = None
    metric_base_uri: ShortText | None = None
    disabled: Annotated[bool | None, NotNull] = None


class MetricsProviderCreateFields(MetricsProviderFields):
    type: str = Field(
        description='one of "Pingdom", "NewRelic", "Librato", "Datadog"',
        json_schema_extra=_provider_types,
    )


class MetricsProviderCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `type`.
    model_config = wrapper_required("metrics_provider")

    metrics_provider: MetricsProviderCreateFields = Field(
        default_factory=dict, validate_default=True
    )


class MetricsProviderUpdate(Schema):
    metrics_provider: MetricsProviderFields


class MetricsProviderOut(OutSchema):
    id: str
    page_id: str
    type: str
    disabled: bool
    metric_base_uri: str | None
    created_at: str
    updated_at: str
    last_revalidated_at: str | None


class MetricFields(Schema):
    name: Annotated[Name | None, NotNull] = None
    metric_identifier: ShortText | None = None
    transform: Literal["average", "count", "max", "min", "sum"] | None = None
    application_id: ShortText | None = None
    suffix: Annotated[ShortText | None, NotNull] = None
    y_axis_min: float | None = None
    y_axis_max: float | None = None
    y_axis_hidden: Annotated[bool | None, NotNull] = None
    display: Annotated[bool | None, NotNull] = None
    decimal_places: Annotated[int | None, NotNull] = Field(None, ge=0, le=4)
    tooltip_description: Text | None = None


class MetricCreateFields(MetricFields):
    name: Name


class MetricCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `name`.
    model_config = wrapper_required("metric")

    metric: MetricCreateFields = Field(default_factory=dict, validate_default=True)


class MetricUpdate(Schema):
    metric: MetricFields


class MetricOut(OutSchema):
    id: str
    metrics_provider_id: str
    metric_identifier: str | None
    name: str
    display: bool
    tooltip_description: str | None
    backfilled: bool
    backfill_percentage: float
    y_axis_min: float | None
    y_axis_max: float | None
    y_axis_hidden: bool
    suffix: str
    decimal_places: int
    most_recent_data_at: str | None
    last_fetched_at: str | None
    created_at: str
    updated_at: str
    reference_name: str


class DataPoint(Schema):
    timestamp: int = Field(description="Unix seconds")
    value: int | float


class DataPointCreate(Schema):
    model_config = wrapper_required("data")

    data: DataPoint = Field(default_factory=dict, validate_default=True)


class MetricDataBatch(Schema):
    data: dict[str, list[DataPoint]] = Field(description="metric id -> its points")


class DataPointAdded(OutSchema):
    data: DataPoint


# Points are small (28 days at 30 s are 80,640 of a metric): a page of them is 40 KB of JSON
# at most, and a reader at one request a second has a metric's whole window in 81 requests.
MAX_POINTS_PER_PAGE = 1000


class MetricDataQuery(Schema):
    after: int | None = Field(
        None, ge=0, description="Unix seconds: only points after it (the last one already read)"
    )
    limit: int | None = Field(
        None, ge=1, le=MAX_POINTS_PER_PAGE, description=f"at most {MAX_POINTS_PER_PAGE} points"
    )


class DataPointList(OutSchema):
    data: list[DataPoint] = Field(description="the points of the last 28 days, oldest first")
