"""Built-in checks of a component (issue 34, item 7)."""

from typing import Annotated, Literal

from pydantic import Field

from chalicelib.domain import checks
from chalicelib.schemas.common import NotNull, OutSchema, Schema, WebUrl, wrapper_required

FailureStatus = Literal["degraded_performance", "partial_outage", "major_outage"]
Threshold = Annotated[int, Field(ge=1, le=checks.MAX_THRESHOLD)]
StatusCode = Annotated[int, Field(ge=checks.LOWEST_STATUS_CODE, le=checks.HIGHEST_STATUS_CODE)]
StatusCodeRange = Annotated[
    str, Field(pattern=checks.STATUS_CODES_PATTERN, description='a code, or a range: "200-399"')
]
StatusCodes = Annotated[
    list[StatusCode | StatusCodeRange],
    Field(min_length=1, max_length=checks.MAX_STATUS_CODE_RANGES),
]


class CheckFields(Schema):
    url: Annotated[WebUrl | None, NotNull] = Field(
        None, max_length=checks.MAX_URL_LENGTH, description="the address requested"
    )
    method: Annotated[Literal["GET", "HEAD", "POST"] | None, NotNull] = None
    expected_status_codes: Annotated[StatusCodes | None, NotNull] = Field(
        None, description='answers that count as a success; by default ["200-399"]'
    )
    expected_body: str | None = Field(
        None,
        max_length=checks.MAX_EXPECTED_BODY_LENGTH,
        description="text the answer's body must contain (null or empty: any body)",
    )
    timeout_seconds: Annotated[int | None, NotNull] = Field(
        None, ge=1, le=checks.MAX_TIMEOUT_SECONDS, description="by default 10"
    )
    interval_seconds: Annotated[int | None, NotNull] = Field(
        None,
        ge=checks.MIN_INTERVAL_SECONDS,
        le=checks.MAX_INTERVAL_SECONDS,
        description="between runs; by default 60",
    )
    failure_thresholds: Annotated[dict[FailureStatus, Threshold] | None, NotNull] = Field(
        None,
        description="how many consecutive failures mean which status; by default "
        '{"degraded_performance": 1, "major_outage": 3}; a worse status needs more',
    )


class CheckCreateFields(CheckFields):
    url: WebUrl = Field(max_length=checks.MAX_URL_LENGTH, description="the address requested")


class CheckCreate(Schema):
    # Validated even when absent, so an empty body is a 422 naming `url`.
    model_config = wrapper_required("check", "url")

    check: CheckCreateFields = Field(default_factory=dict, validate_default=True)


class CheckUpdate(Schema):
    check: CheckFields


class CheckResultOut(OutSchema):
    at: str
    ok: bool
    status_code: int | None
    response_time_ms: float | None
    error: str | None


class CheckOut(OutSchema):
    id: str
    page_id: str
    component_id: str
    url: str
    method: str
    expected_status_codes: list[str]
    expected_body: str | None
    timeout_seconds: int
    interval_seconds: int
    failure_thresholds: dict[str, int]
    metric_id: str | None = Field(description="the custom metric of its response times (ms)")
    consecutive_failures: int
    verdict: str = Field(description="the status the check last asked automation for")
    last_result: CheckResultOut | None
    next_run_at: str
    created_at: str
    updated_at: str
