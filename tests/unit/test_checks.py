"""The rules of built-in checks, without AWS: what a result is, what consecutive failures
mean, and one request against a loopback target."""

import socket
from datetime import UTC, datetime

import pytest

from chalicelib.domain import checks, errors
from chalicelib.jobs.checks import probe, probe_all
from chalicelib.store.checks import Check
from tests.check_target import CheckTarget

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
THRESHOLDS = {"degraded_performance": 1, "partial_outage": 2, "major_outage": 4}


def check_of(url: str = "http://127.0.0.1:9/", **fields) -> Check:
    defaults = {
        "component_id": "c1",
        "url": url,
        "method": "GET",
        "expected_status_codes": [[200, 399]],
        "timeout_seconds": 2,
        "interval_seconds": 60,
        "failure_thresholds": dict(THRESHOLDS),
    }
    return Check("page", f"check{id(fields)}", **{**defaults, **fields})


@pytest.mark.parametrize(
    ("failures", "previous", "verdict"),
    [
        (0, "major_outage", "operational"),
        (1, "operational", "degraded_performance"),
        (2, "operational", "partial_outage"),
        (3, "operational", "partial_outage"),
        (4, "operational", "major_outage"),
        (40, "operational", "major_outage"),
    ],
)
def test_consecutive_failures_mean_the_worst_status_whose_threshold_they_reached(
    failures, previous, verdict
):
    assert checks.verdict_after(THRESHOLDS, failures, previous) == verdict


def test_failures_below_every_threshold_keep_the_verdict():
    assert checks.verdict_after({"major_outage": 3}, 2, "operational") == "operational"
    assert checks.verdict_after({"major_outage": 3}, 2, "major_outage") == "major_outage"


def test_status_codes_are_codes_or_ranges():
    ranges = checks.status_code_ranges([204, "301", " 200 - 299 "])
    assert ranges == [[204, 204], [301, 301], [200, 299]]
    assert checks.shown_status_codes(ranges) == ["204", "301", "200-299"]


@pytest.mark.parametrize("value", ["2xx", "99", "600", "300-200", "200-", ""])
def test_anything_else_is_refused_naming_the_field(value):
    with pytest.raises(errors.Invalid) as refused:
        checks.status_code_ranges([value])
    assert list(refused.value.problems) == ["expected_status_codes"]


def test_an_unexpected_status_or_a_missing_text_is_a_failure():
    check = check_of(expected_body="ready")
    assert checks.judged(check, MOMENT, 200, b"status: ready", 12.34).ok
    missing = checks.judged(check, MOMENT, 200, b"status: starting", 12.0)
    assert not missing.ok and missing.error == "the answer does not contain the expected text"
    wrong = checks.judged(check, MOMENT, 500, b"status: ready", 12.0)
    assert wrong.error == "answered 500, expected 200-399"
    assert wrong.response_ms == 12.0  # an answer came: its time is kept


def test_a_probe_times_its_answer_and_judges_it():
    with CheckTarget(body=b"ok: database up") as target:
        result = probe(check_of(target.url, expected_body="database up"))
        assert result.ok and result.status_code == 200
        assert 0 < result.response_ms < 2000
        target.answer(503)
        failed = probe(check_of(target.url))
        assert not failed.ok and failed.status_code == 503


@pytest.mark.parametrize("method", ["HEAD", "POST"])
def test_a_probe_uses_the_checks_method(method):
    with CheckTarget() as target:
        assert probe(check_of(target.url, method=method)).ok
        assert target.requests == [f"{method} /health"]


def test_a_refused_connection_is_a_failure_without_a_response_time():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]  # bound, never listening: connections are refused
        result = probe(check_of(f"http://127.0.0.1:{port}/"))
    assert not result.ok and result.error == "the connection failed"
    assert result.status_code is None and result.response_ms is None


def test_a_target_the_filter_refuses_is_never_called(monkeypatch):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS", raising=False)
    with CheckTarget() as target:
        result = probe(check_of(target.url))
    assert not result.ok and target.requests == []


def test_due_checks_run_concurrently():
    with CheckTarget(delay=0.5) as target:
        due = [check_of(target.url, timeout_seconds=5) for _ in range(8)]
        for number, check in enumerate(due):
            check.id = f"check{number}"
        started = datetime.now(UTC)
        results = probe_all(due)
        took = (datetime.now(UTC) - started).total_seconds()
    assert sorted(results) == [check.id for check in due]
    assert all(result.ok for result in results.values())
    assert took < 2  # eight half-second answers, side by side
