"""Built-in checks: each tick runs the due checks at once and records what they found.

The due checks are one Query of their due index. Their requests go out concurrently, at most
`WORKERS` at once and at most `webhook.PER_HOST` to one host (`chalicelib.notify.lanes`), under
the outbound rules of webhooks: the address filter of `chalicelib.net` (public addresses only,
unless `ALLOW_PRIVATE_TARGETS=1`), the connection made to the address that was checked, no
redirects; each with its check's own timeout. The results are recorded page by page; the
response times go to the metric-data queue as the API's batches of points do, so the same
function writes them and republishes the page's charts.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import TYPE_CHECKING

import urllib3

from chalicelib import clock
from chalicelib.domain import checks, metrics
from chalicelib.domain.checks import Result
from chalicelib.notify import queues, webhook
from chalicelib.notify.lanes import Lanes, Send

if TYPE_CHECKING:
    from chalicelib.store.checks import Check

logger = logging.getLogger(__name__)
# Requests in flight at once: each mostly waits on the network, and a tick must finish within
# its minute even when many targets are slow.
WORKERS = 64
HEADERS = {"User-Agent": "statuspage-checks", "Accept": "*/*"}


def probe(check: Check) -> Result:
    """One request of `check`, judged by its rules; never raises."""
    at = clock.now()
    started = time.monotonic()
    timeout = int(check.timeout_seconds)
    try:
        response = webhook.request(
            check.url,
            check.method,
            HEADERS,
            preload_content=False,
            timeout=urllib3.Timeout(total=timeout),
        )
        if response is None:
            return Result(at, False, error="the address may not be called (public addresses only)")
        try:
            body = b"" if check.method == "HEAD" else response.read(checks.MAX_BODY_BYTES)
        finally:
            response.release_conn()
    except urllib3.exceptions.NewConnectionError:  # a subclass of the timeout, for urllib3 1
        return Result(at, False, error="the connection failed")
    except urllib3.exceptions.TimeoutError:
        return Result(at, False, error=f"no answer within {timeout} s")
    except (OSError, urllib3.exceptions.HTTPError):
        return Result(at, False, error="the connection failed")
    elapsed_ms = (time.monotonic() - started) * 1000
    return checks.judged(check, at, response.status, body, elapsed_ms)


def probe_all(due: list[Check]) -> dict[str, Result]:
    """Every check's result, by check id: requests concurrently, each host's a few at once."""
    results: dict[str, Result] = {}

    def attempt_of(check: Check):
        def attempt(recipients: list[dict]) -> list[dict]:
            results[check.id] = probe(check)
            return []  # a failed check is a result, not a send to try again

        return attempt

    sends = [
        Send(webhook.lane_of(check.url), [{"key": check.id}], attempt_of(check)) for check in due
    ]
    Lanes(WORKERS, lambda lane: webhook.PER_HOST).run(sends)
    return results


def _send_points(page_id: str, points: list[list]) -> None:
    batch = metrics.MAX_BATCH_POINTS
    messages = [
        {"page_id": page_id, "points": points[start : start + batch]}
        for start in range(0, len(points), batch)
    ]
    if messages:
        queues.send_batch(queues.METRIC_DATA, messages)


def run() -> int:
    """One tick: how many checks ran."""
    moment = clock.now()
    due = checks.due_checks(moment)
    if not due:
        return 0
    results = probe_all(due)
    by_page: dict[str, dict[str, Result]] = defaultdict(dict)
    for check in due:
        if check.id in results:
            by_page[check.page_id][check.id] = results[check.id]
    for page_id, page_results in by_page.items():
        try:
            recorded = checks.record_results(page_id, moment, page_results)
            _send_points(page_id, recorded.points)
        except Exception:
            # This page's checks stay due: the next tick runs them again.
            logger.exception("recording the checks of page %s failed", page_id)
    return len(due)
