"""Sends run concurrently, each in its lane, and a failed one waits for its retry off the
workers, so a slow or dead endpoint costs its own time and nobody else's.

A `Send` is one call that reaches some recipients (a webhook POST reaches one, an SES bulk
call up to 50); its `lane` names what it must not overwhelm (the webhook's host, SES, SNS).
At most `workers` sends run at once and at most `per_lane` of one lane, so one host's sends
never take every worker. A failed send is tried again after a pause, up to `ATTEMPTS` times
within `RETRY_WINDOW_SECONDS` (CONTRACT.md, Delivery); while it waits, the workers serve the
others.
"""

import contextvars
import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from chalicelib import config

logger = logging.getLogger(__name__)
ATTEMPTS = 3
RETRY_WINDOW_SECONDS = 30
BACKOFF_SECONDS = config.delivery_retry_seconds()


@dataclass
class Send:
    """`attempt(recipients)` sends to them and returns those it failed to reach; each
    recipient has a unique `key`, under which `Lanes.run` reports its outcome."""

    lane: str
    recipients: list[dict]
    attempt: Callable[[list[dict]], list[dict]]
    tries: int = 0
    started: float | None = None
    order: int = field(default_factory=itertools.count().__next__)


def _run(send: Send) -> list[dict]:
    try:
        return send.attempt(send.recipients)
    except Exception:
        logger.exception("a send in lane %s failed", send.lane)
        return send.recipients


class Lanes:
    def __init__(self, workers: int, per_lane: Callable[[str], int]):
        self.workers = workers
        self.per_lane = per_lane
        self.ready: dict[str, deque[Send]] = {}
        self.waiting: list[tuple[float, int, Send]] = []  # retries, by when they are due
        self.running: dict[Future, Send] = {}
        self.busy: dict[str, int] = {}
        self.outcomes: dict[str, bool] = {}

    def _queue(self, send: Send) -> None:
        self.ready.setdefault(send.lane, deque()).append(send)

    def _start_what_may(self, pool: ThreadPoolExecutor) -> None:
        now = time.monotonic()
        while self.waiting and self.waiting[0][0] <= now:
            self._queue(heapq.heappop(self.waiting)[2])
        for lane in list(self.ready):
            queued = self.ready[lane]
            while queued and len(self.running) < self.workers:
                if self.busy.get(lane, 0) >= self.per_lane(lane):
                    break
                send = queued.popleft()
                send.tries += 1
                if send.started is None:
                    send.started = now
                self.busy[lane] = self.busy.get(lane, 0) + 1
                # In the invocation's context: its log keys (page, request) on the send's lines.
                self.running[pool.submit(contextvars.copy_context().run, _run, send)] = send
            if not queued:
                del self.ready[lane]

    def _finished(self, future: Future) -> None:
        send = self.running.pop(future)
        self.busy[send.lane] -= 1
        failed = future.result()
        failed_keys = {recipient["key"] for recipient in failed}
        for recipient in send.recipients:
            if recipient["key"] not in failed_keys:
                self.outcomes[recipient["key"]] = True
        if not failed:
            return
        now = time.monotonic()
        pause = BACKOFF_SECONDS[min(send.tries, len(BACKOFF_SECONDS)) - 1]
        if send.tries < ATTEMPTS and now - send.started + pause <= RETRY_WINDOW_SECONDS:
            retry = Send(send.lane, failed, send.attempt, send.tries, send.started)
            heapq.heappush(self.waiting, (now + pause, retry.order, retry))
            return
        for recipient in failed:
            self.outcomes[recipient["key"]] = False

    def run(self, sends: list[Send]) -> dict[str, bool]:
        """Run every send to its end; returns recipient key -> delivered."""
        for send in sends:
            self._queue(send)
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            while self.ready or self.waiting or self.running:
                self._start_what_may(pool)
                if not self.running and self.waiting:
                    # Only retries are left, none due yet.
                    time.sleep(max(0.0, self.waiting[0][0] - time.monotonic()))
                    continue
                timeout = None
                if self.waiting:
                    timeout = max(0.0, self.waiting[0][0] - time.monotonic())
                done, _ = wait(self.running, timeout=timeout, return_when=FIRST_COMPLETED)
                for future in done:
                    self._finished(future)
        return self.outcomes
