"""Built-in checks and their last result as the API and the console show them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, schemas
from chalicelib.domain import checks

if TYPE_CHECKING:
    from chalicelib.store.checks import Check


def check_out(check: Check) -> schemas.CheckOut:
    last = None
    if check.last_run_at is not None:
        last = schemas.CheckResultOut(
            at=clock.iso(check.last_run_at),
            ok=bool(check.last_ok),
            status_code=None if check.last_status_code is None else int(check.last_status_code),
            response_time_ms=check.last_response_ms,
            error=check.last_error,
        )
    return schemas.CheckOut(
        id=check.id,
        page_id=check.page_id,
        component_id=check.component_id,
        url=check.url,
        method=check.method,
        expected_status_codes=checks.shown_status_codes(check.expected_status_codes),
        expected_body=check.expected_body,
        timeout_seconds=int(check.timeout_seconds),
        interval_seconds=int(check.interval_seconds),
        failure_thresholds={status: int(n) for status, n in check.failure_thresholds.items()},
        metric_id=check.metric_id,
        consecutive_failures=int(check.consecutive_failures or 0),
        verdict=check.verdict,
        last_result=last,
        next_run_at=clock.iso(check.due_at),
        created_at=clock.iso(check.created_at),
        updated_at=clock.iso(check.updated_at),
    )
