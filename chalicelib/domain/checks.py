"""Built-in checks (issue 34, item 7): an HTTP request made for a component every interval,
whose consecutive failures move the component, and whose response times are a metric.

A check is due when its `due_at` has passed; the every-minute function (`chalicelib.jobs.checks`)
runs the due ones and hands their results here. A result is a success when the answer's status
is one of the expected codes and its body holds the expected text. `failure_thresholds` say how
many consecutive failures mean which status (`{"degraded_performance": 1, "major_outage": 3}`:
degraded from the first failure, a major outage from the third); one success means operational.
The check asks automation for a status only when its verdict changes, so the rules that people
come first (an open incident, a recent change by hand, a maintenance) decide, and are asked
once per change rather than every minute.

Each check owns a custom metric of the page (under its `Self` provider, suffix `ms`), made with
it and hidden until the owner shows it: its points are the response times, written through the
queue the API's metric data takes.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from chalicelib import clock, ids, net
from chalicelib.domain import automation, components, errors, metrics, unit_of_work
from chalicelib.domain import metrics_providers as providers
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.checks import DUE, Check
from chalicelib.store.components import Component
from chalicelib.store.metrics import Metric

logger = logging.getLogger(__name__)

METHODS = ("GET", "HEAD", "POST")
# Worst last: a verdict is the worst status whose threshold the failures reached.
FAILURE_STATUSES = ("degraded_performance", "partial_outage", "major_outage")
DEFAULT_THRESHOLDS = {"degraded_performance": 1, "major_outage": 3}
MAX_THRESHOLD = 100
DEFAULT_STATUS_CODES = ((200, 399),)
LOWEST_STATUS_CODE, HIGHEST_STATUS_CODE = 100, 599
MAX_STATUS_CODE_RANGES = 20
DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS = 10, 30
# The tick runs every minute: a shorter interval could not be kept.
MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS = 60, 24 * 3600
MAX_URL_LENGTH = 2048
MAX_EXPECTED_BODY_LENGTH = 255
MAX_CHECKS_PER_COMPONENT = 10
# The expected text is looked for in this much of the body.
MAX_BODY_BYTES = 64 * 1024
# A check runs on the first tick at or after its interval; ticks come a little early or late,
# so the next run is due this much before a whole interval has passed.
TICK_SLACK = timedelta(seconds=5)
METRIC_SUFFIX = "ms"
SOURCE_KIND = "check"
STATUS_CODES_PATTERN = r"^\s*(\d{3})\s*(?:-\s*(\d{3})\s*)?$"
_STATUS_CODES = re.compile(STATUS_CODES_PATTERN)


@dataclass
class CheckFields:
    """What a client sets on a check; None leaves a field as it is (on create: its default).
    `expected_body` "" clears the expected text."""

    url: str | None = None
    method: str | None = None
    expected_status_codes: list[str | int] | None = None
    expected_body: str | None = None
    timeout_seconds: int | None = None
    interval_seconds: int | None = None
    failure_thresholds: dict[str, int] | None = None


def fields_of(given: dict) -> CheckFields:
    """A client's fields as the rules take them: a field left out stays as it is; an
    `expected_body` given as null clears it."""
    if "expected_body" in given and given["expected_body"] is None:
        given = {**given, "expected_body": ""}
    return CheckFields(**given)


@dataclass(frozen=True)
class Result:
    """One run of a check: when it started, the answer's status and how long the answer took
    (both None when none came), what was wrong (None: nothing), and whether it succeeded."""

    at: datetime
    ok: bool
    status_code: int | None = None
    response_ms: float | None = None
    error: str | None = None


@dataclass
class Run:
    """What recording a tick's results did: the statuses asked of automation, and the
    response-time points to write (`[metric id, Unix seconds, milliseconds]`)."""

    asked: list[tuple[str, str]] = field(default_factory=list)  # (component id, status)
    points: list[list] = field(default_factory=list)


def status_code_ranges(values: list[str | int]) -> list[list[int]]:
    """`[200, "301", "200-299"]` as `[[200, 200], [301, 301], [200, 299]]`."""
    if not values:
        raise errors.invalid("expected_status_codes", "must name at least one status code")
    if len(values) > MAX_STATUS_CODE_RANGES:
        raise errors.invalid(
            "expected_status_codes", f"may name at most {MAX_STATUS_CODE_RANGES} codes or ranges"
        )
    ranges = []
    for value in values:
        found = _STATUS_CODES.match(str(value))
        low = int(found.group(1)) if found else 0
        high = int(found.group(2) or low) if found else 0
        if not (LOWEST_STATUS_CODE <= low <= high <= HIGHEST_STATUS_CODE):
            raise errors.invalid(
                "expected_status_codes",
                f"{value!s:.20} is not a status code or a range such as 200-399 "
                f"({LOWEST_STATUS_CODE} to {HIGHEST_STATUS_CODE})",
            )
        ranges.append([low, high])
    return ranges


def shown_status_codes(ranges: list[list[int]]) -> list[str]:
    return [str(low) if low == high else f"{low}-{high}" for low, high in ranges]


def _check_thresholds(thresholds: dict[str, int]) -> dict[str, int]:
    if not thresholds:
        raise errors.invalid("failure_thresholds", "must map at least one status to a count")
    for status, count in thresholds.items():
        if status not in FAILURE_STATUSES:
            raise errors.invalid(
                "failure_thresholds", f"statuses are {', '.join(FAILURE_STATUSES)}"
            )
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_THRESHOLD:
            raise errors.invalid(
                "failure_thresholds", f"counts are whole numbers from 1 to {MAX_THRESHOLD}"
            )
    counts = [thresholds[status] for status in FAILURE_STATUSES if status in thresholds]
    if counts != sorted(set(counts)):
        raise errors.invalid(
            "failure_thresholds", "a worse status needs more consecutive failures than a milder one"
        )
    return {status: thresholds[status] for status in FAILURE_STATUSES if status in thresholds}


def _check_url(url: str) -> str:
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise errors.invalid("url", f"is longer than {MAX_URL_LENGTH} characters")
    if not net.may_call(url):
        raise errors.invalid("url", "must be an http(s) URL that resolves to a public address")
    return url


def _apply(check: Check, fields: CheckFields) -> None:
    """Set the fields given on `check`, each checked, then the rules between them."""
    if fields.url is not None:
        check.url = _check_url(fields.url)
    if fields.method is not None:
        if fields.method.upper() not in METHODS:
            raise errors.invalid("method", f"must be one of {', '.join(METHODS)}")
        check.method = fields.method.upper()
    if fields.expected_status_codes is not None:
        check.expected_status_codes = status_code_ranges(fields.expected_status_codes)
    if fields.expected_body is not None:
        if len(fields.expected_body) > MAX_EXPECTED_BODY_LENGTH:
            raise errors.invalid(
                "expected_body", f"is longer than {MAX_EXPECTED_BODY_LENGTH} characters"
            )
        check.expected_body = fields.expected_body or None
    if fields.timeout_seconds is not None:
        if not 1 <= fields.timeout_seconds <= MAX_TIMEOUT_SECONDS:
            raise errors.invalid("timeout_seconds", f"must be from 1 to {MAX_TIMEOUT_SECONDS}")
        check.timeout_seconds = fields.timeout_seconds
    if fields.interval_seconds is not None:
        if not MIN_INTERVAL_SECONDS <= fields.interval_seconds <= MAX_INTERVAL_SECONDS:
            raise errors.invalid(
                "interval_seconds",
                f"must be from {MIN_INTERVAL_SECONDS} to {MAX_INTERVAL_SECONDS}",
            )
        check.interval_seconds = fields.interval_seconds
    if fields.failure_thresholds is not None:
        check.failure_thresholds = _check_thresholds(fields.failure_thresholds)
    if check.method == "HEAD" and check.expected_body:
        raise errors.invalid("expected_body", "a HEAD answer has no body to look in")


def _checked_component(page_id: str, component_id: str) -> Component:
    """The component a check may move: one of the page's, not a group (its status follows
    its members) nor a third-party component (its status follows its source)."""
    component = components.find(components.components_of(page_id, consistent=True), component_id)
    if component.group:
        raise errors.invalid("component_id", "a group's status follows its components")
    if component.third_party_url:
        raise errors.invalid("component_id", "a third-party component follows its source")
    return component


def checks_of(page_id: str, component_id: str | None = None, *, consistent=False) -> list[Check]:
    """The page's checks (one Query), only the component's with `component_id`, oldest first."""
    found = list(Check.query(page_id, consistent_read=consistent))
    if component_id is not None:
        found = [check for check in found if check.component_id == component_id]
    return found


def component_checks(page_id: str, component_id: str) -> list[Check]:
    """The component's checks; a 404 when the page has no such component."""
    components.find(components.components_of(page_id), component_id)
    return checks_of(page_id, component_id)


def get_check(page_id: str, component_id: str, check_id: str) -> Check:
    try:
        check = Check.get(page_id, check_id, consistent_read=True)
    except Check.DoesNotExist:
        raise errors.NotFound() from None
    if check.component_id != component_id:
        raise errors.NotFound()
    return check


def _response_time_metric(page_id: str, component: Component, moment: datetime) -> Metric:
    """The check's metric, new: custom (the page's `Self` provider, made if the page predates
    providers), hidden until the owner shows it."""
    provider = providers.get_provider(page_id, providers.self_provider_id(page_id))
    if len(metrics.metrics_of(page_id)) >= metrics.MAX_METRICS_PER_PAGE:
        raise errors.invalid(
            "check",
            f"a page has at most {metrics.MAX_METRICS_PER_PAGE} metrics and each check keeps one",
        )
    return Metric(
        page_id,
        ids.new_id(),
        metrics_provider_id=provider.id,
        name=f"{component.name} response time"[:255],
        suffix=METRIC_SUFFIX,
        display=False,
        created_at=moment,
        updated_at=moment,
    )


def create_check(page_id: str, component_id: str, fields: CheckFields) -> Check:
    """A new check of the component and its response-time metric, together; it runs at the
    next tick."""
    if fields.url is None:
        raise errors.invalid("url", "can't be blank")
    component = _checked_component(page_id, component_id)
    if len(checks_of(page_id, component_id, consistent=True)) >= MAX_CHECKS_PER_COMPONENT:
        raise errors.invalid("check", f"a component has at most {MAX_CHECKS_PER_COMPONENT} checks")
    moment = clock.now()
    check = Check(
        page_id,
        ids.new_id(),
        component_id=component.id,
        method="GET",
        expected_status_codes=[list(codes) for codes in DEFAULT_STATUS_CODES],
        timeout_seconds=DEFAULT_TIMEOUT_SECONDS,
        interval_seconds=MIN_INTERVAL_SECONDS,
        failure_thresholds=dict(DEFAULT_THRESHOLDS),
        due=DUE,
        due_at=moment,
        created_at=moment,
        updated_at=moment,
    )
    _apply(check, fields)
    metric = _response_time_metric(page_id, component, moment)
    check.metric_id = metric.id

    def change(work: Work) -> Check:
        work.quiet()  # a hidden metric and a check: nothing the public page shows
        with work.together():
            work.save(metric)
            work.save(check)
        return check

    return unit_of_work.run(page_id, change)


# Changing any of these makes it another check: its count of failures starts again.
_REQUEST_FIELDS = ("url", "method", "expected_status_codes", "expected_body")


def update_check(page_id: str, component_id: str, check_id: str, fields: CheckFields) -> Check:
    """Changes the check; it runs at the next tick."""

    def change(work: Work) -> Check:
        work.quiet()
        check = get_check(page_id, component_id, check_id)
        before = [getattr(check, name) for name in _REQUEST_FIELDS]
        _apply(check, fields)
        if [getattr(check, name) for name in _REQUEST_FIELDS] != before:
            check.consecutive_failures = 0
        check.due_at = work.moment
        check.updated_at = work.moment
        work.save(check)
        return check

    return unit_of_work.run(page_id, change)


def delete_check(page_id: str, component_id: str, check_id: str) -> Check:
    """Deletes the check and its waits, then its metric and the metric's points (the metric
    was the check's own)."""

    def change(work: Work) -> Check:
        work.quiet()
        check = get_check(page_id, component_id, check_id)
        _stage_removal(work, check)
        return check

    deleted = unit_of_work.run(page_id, change)
    _delete_metric(page_id, deleted.metric_id)
    return deleted


def _delete_metric(page_id: str, metric_id: str | None) -> None:
    if metric_id is None:
        return
    try:
        metrics.delete_metric(page_id, metric_id)
    except errors.NotFound:
        pass  # the owner deleted it already


def due_checks(moment: datetime) -> list[Check]:
    """Every check whose next run is at `moment` or before (one Query of the due index)."""
    return list(Check.due_index.query(DUE, Check.due_at <= moment))


def judged(check: Check, at: datetime, status_code: int, body: bytes, response_ms: float) -> Result:
    """An answer as the check's result: a success if its status is expected and its body
    (the first `MAX_BODY_BYTES`) holds the expected text."""
    if not any(low <= status_code <= high for low, high in check.expected_status_codes):
        expected = ", ".join(shown_status_codes(check.expected_status_codes))
        error = f"answered {status_code}, expected {expected}"
    elif check.expected_body and check.expected_body.encode() not in body[:MAX_BODY_BYTES]:
        error = "the answer does not contain the expected text"
    else:
        error = None
    return Result(at, error is None, status_code, round(response_ms, 1), error)


def verdict_after(thresholds: dict[str, int], failures: int, previous: str) -> str:
    """The status `failures` consecutive failures mean (none yet: operational); below every
    threshold, the verdict stays what it was."""
    if failures == 0:
        return components.OPERATIONAL
    reached = [
        status
        for status in FAILURE_STATUSES
        if thresholds.get(status, 0) and failures >= thresholds[status]
    ]
    return reached[-1] if reached else previous


def _detail(check: Check, result: Result) -> str:
    """The result as the audit shows it (the target's host only: a URL may carry a token)."""
    host = f"{check.method} {_host_of(check.url)}"
    if result.ok:
        return f"{host}: answered {result.status_code} in {result.response_ms:g} ms"
    return f"{host}: {result.error} ({int(check.consecutive_failures)} in a row)"


def _host_of(url: str) -> str:
    try:
        return urlsplit(url).netloc.rpartition("@")[2]
    except ValueError:
        return ""


def record_results(page_id: str, moment: datetime, results: dict[str, Result]) -> Run:
    """Applies a tick's results (check id -> result) to the page's checks: counts, verdicts,
    last results, next runs. A changed verdict is asked of automation first; a check whose
    ask failed keeps its old verdict, so the next run asks again. A check changed since the
    tick began is left to its next run, and one another tick ran meanwhile (`_ran_since`)
    keeps that run's; one whose component is gone goes."""
    run = Run()
    page_checks = {check.id: check for check in checks_of(page_id, consistent=True)}
    known = {component.id for component in components.components_of(page_id)}
    orphans: list[Check] = []
    updated: dict[str, Check] = {}
    for check_id, result in results.items():
        check = page_checks.get(check_id)
        if check is None or check.updated_at > moment or _ran_since(check, moment):
            continue
        if check.component_id not in known:
            orphans.append(check)
            continue
        failures = 0 if result.ok else int(check.consecutive_failures or 0) + 1
        check.consecutive_failures = failures
        verdict = verdict_after(check.failure_thresholds, failures, check.verdict)
        if verdict != check.verdict and _asked(check, verdict, result):
            check.verdict = verdict
            run.asked.append((check.component_id, verdict))
        _note(check, result, moment)
        updated[check.id] = check
        if result.response_ms is not None and check.metric_id:
            run.points.append([check.metric_id, int(result.at.timestamp()), result.response_ms])
    _store(page_id, moment, updated)
    for orphan in orphans:
        _forget(page_id, orphan)
    return run


def _ran_since(check: Check, moment: datetime) -> bool:
    """Whether another tick recorded a run of the check after this one, begun at `moment`,
    found it due: its next run is no longer due at `moment`. EventBridge may invoke the
    every-minute function twice for one minute, and both run the due checks: counted twice,
    one failure would reach a threshold of two."""
    return check.updated_at <= moment < check.due_at


def _asked(check: Check, verdict: str, result: Result) -> bool:
    """Whether automation heard the check's new verdict (it decides whether to apply it)."""
    try:
        automation.apply_status(
            check.page_id,
            check.component_id,
            verdict,
            source_kind=SOURCE_KIND,
            source_id=check.id,
            detail=_detail(check, result),
        )
    except Exception:
        logger.exception(
            "check %s: asking for %s failed; the next run asks again", check.id, verdict
        )
        return False
    return True


def _note(check: Check, result: Result, moment: datetime) -> None:
    check.last_run_at = result.at
    check.last_ok = result.ok
    check.last_status_code = result.status_code
    check.last_response_ms = result.response_ms
    check.last_error = result.error
    check.due_at = moment + timedelta(seconds=int(check.interval_seconds)) - TICK_SLACK


# What a run found, and when the check runs next.
_RUN_FIELDS = (
    "consecutive_failures",
    "verdict",
    "last_run_at",
    "last_ok",
    "last_status_code",
    "last_response_ms",
    "last_error",
)
_RESULT_FIELDS = (*_RUN_FIELDS, "due_at")


def _store(page_id: str, moment: datetime, updated: dict[str, Check]) -> None:
    """The new states of the page's checks, in as few transactions as they fit (a lost race
    reads them again). A check edited while it ran keeps the edit's next run, and an edit of
    what it asks starts its count anew; either way the verdict the run asked of automation is
    recorded, as the component shows it (left out, the check counted that run again)."""
    if not updated:
        return

    def change(work: Work) -> None:
        work.quiet()
        for current in checks_of(page_id, consistent=True):
            new = updated.get(current.id)
            if new is None or _ran_since(current, moment):
                continue
            recorded = _RESULT_FIELDS
            if current.updated_at > moment:
                asks_the_same = all(
                    getattr(current, name) == getattr(new, name) for name in _REQUEST_FIELDS
                )
                recorded = _RUN_FIELDS if asks_the_same else ("verdict",)
            for name in recorded:
                setattr(current, name, getattr(new, name))
            work.save(current)

    unit_of_work.run(page_id, change)


def _forget(page_id: str, check: Check) -> None:
    """A check of a deleted component, with its metric."""

    def change(work: Work) -> None:
        work.quiet()
        _stage_removal(work, check)

    unit_of_work.run(page_id, change)
    _delete_metric(page_id, check.metric_id)


def _stage_removal(work: Work, check: Check) -> None:
    """The check, and any status it still waits to apply: a deleted check wants nothing."""
    work.delete(check)
    for pending in automation.waits_of(check.page_id, SOURCE_KIND, check.id):
        work.delete(pending)
