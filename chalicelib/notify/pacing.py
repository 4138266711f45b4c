"""Email sent at the account's rate, and SES's and SNS's limits told apart from a subscriber's
failure.

The rate is SES's `MaxSendRate` (`GetSendQuota`), read when a delivery function starts and at
most every `QUOTA_READ_SECONDS` after. Every concurrent delivery takes its sends' moments from
one shared pace (`chalicelib.store.send_paces`: an item in DynamoDB), a few at a time, and
sends each at its moment: together they never go faster than the rate, however many
deliveries run. A moment further away than the delivery may wait is not taken: the send goes
back to the queue (`lanes.Held`) for a later delivery.

An answer that a limit was reached (`Throttling`: the rate or SES's 24-hour quota; SNS's
throttling or its SMS spend limit) is never the subscriber's failure: the send is held and
sent later. A quota or spend limit reached holds the whole channel for `send_hold_seconds`
(shared in DynamoDB too), logged and counted (`delivery_metrics.limit_reached`), and the
channel resumes by itself when a send after the hold goes through.
"""

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import boto3
from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.notify import delivery_metrics, lanes
from chalicelib.store import send_paces

logger = logging.getLogger(__name__)
QUOTA_READ_SECONDS = 300
# Moments a delivery reserves at once: a quarter second of the rate (one UpdateItem buys
# them), so deliveries running together interleave finely and one ending wastes little.
RESERVE_SECONDS = 0.25
MOST_AT_ONCE = 25
# How long a delivery waits for its sends' moments, at most: well within the function's
# timeout (120 s) and the local stack's visibility timeout (30 s: a message received longer
# ago is handed to another poller); what would wait longer goes back to the queue, delayed
# until about its moment.
LONGEST_WAIT_SECONDS = 25
# A send throttled for the rate is sent again this much later (SQS delays by whole seconds).
THROTTLED_DELAY_SECONDS = 1
RATE, QUOTA, SPEND, PAUSED = "rate", "quota", "spend limit", "sending paused"
_THROTTLING_CODES = frozenset(
    {"Throttling", "ThrottlingException", "Throttled", "ThrottledException", "TooManyRequests"}
)
# SES's and SNS's answers about the address itself (SES: rejected, or not an address; SNS:
# not a phone number): the only refusals a subscriber is quarantined for.
_ADDRESS_CODES = frozenset({"MessageRejected", "InvalidParameterValue", "InvalidParameter"})


@dataclass(frozen=True)
class Limit:
    """What a refused send ran into: `kind` RATE, QUOTA, SPEND or PAUSED."""

    kind: str
    message: str


def limit_of(error: Exception) -> Limit | None:
    """The limit an AWS answer says was reached, or None (an answer about the send itself,
    such as a rejected address).

    SES answers both its rate and its 24-hour quota with `Throttling` ("Maximum sending rate
    exceeded.", "Daily message quota exceeded."); SNS throttles with `Throttling` or
    `Throttled`, and names its SMS spend limit in the message (mostly it drops a message past
    the limit after accepting it, "No quota left for account", which no send can see)."""
    if not isinstance(error, ClientError):
        return None
    answer = error.response.get("Error") or {}
    code, message = str(answer.get("Code") or ""), str(answer.get("Message") or "")
    said = message.lower()
    if "spend" in said or "no quota left" in said:
        return Limit(SPEND, message)
    if code in _THROTTLING_CODES:
        return Limit(QUOTA if "quota" in said else RATE, message)
    if code == "AccountSendingPausedException":  # SES paused the account's sending
        return Limit(PAUSED, message)
    return None


def about_the_address(error: Exception) -> bool:
    """Whether a refused send was refused for its address (or number), which quarantines its
    subscriber once its tries are spent; a fault of ours, SES's or SNS's (a server error, a
    connection, a permission) fails the send, never the subscriber."""
    if not isinstance(error, ClientError):
        return False
    return str((error.response.get("Error") or {}).get("Code") or "") in _ADDRESS_CODES


@lru_cache(maxsize=1)
def _ses():
    return boto3.client("ses", region_name=config.region())


class _Quota:
    """SES's `MaxSendRate`, read at most every QUOTA_READ_SECONDS (per process: a Lambda
    instance reads it once when it starts)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rate = 0.0
        self.read_at = -math.inf

    def max_send_rate(self) -> float:
        with self.lock:
            if time.monotonic() - self.read_at >= QUOTA_READ_SECONDS:
                self.rate = float(_ses().get_send_quota()["MaxSendRate"])
                self.read_at = time.monotonic()
            return self.rate


_quota = _Quota()


def max_send_rate() -> float:
    return _quota.max_send_rate()


def forget_quota() -> None:
    """Read SES's quota again at the next send (tests)."""
    _quota.read_at = -math.inf


def _now_ms() -> int:
    # Wall-clock time: the pace is shared by processes and machines, which share no other.
    return int(time.time() * 1000)


class Pace:
    """The moments one delivery sends a channel's messages at: reserved from the shared pace a
    few at a time, each send waiting for its own. `turn()` waits for the next, or raises
    `lanes.Held` when it is further than the delivery may wait."""

    def __init__(
        self,
        channel: str,
        rate: float,
        sends: int,
        now_ms: Callable[[], int] = _now_ms,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.channel = channel
        self.interval_ms = 1000.0 / rate
        self.unreserved = sends
        self.now_ms, self.sleep = now_ms, sleep
        self.latest_ms = now_ms() + LONGEST_WAIT_SECONDS * 1000
        self.moments: deque[int] = deque()
        self.lock = threading.Lock()
        self.at_once = max(1, min(MOST_AT_ONCE, math.floor(rate * RESERVE_SECONDS)))

    def _reserve(self) -> None:
        count = max(1, min(self.at_once, self.unreserved))
        span = max(1, round(count * self.interval_ms))
        reservation = send_paces.reserve(self.channel, span, self.now_ms(), self.latest_ms)
        if reservation.first is None:
            delay = (reservation.next_free - self.now_ms()) / 1000
            raise lanes.Held(f"{self.channel} sending rate", delay)
        self.unreserved -= count
        self.moments.extend(
            reservation.first + round(number * self.interval_ms) for number in range(count)
        )

    def turn(self) -> int:
        """Wait for the next send's moment; returns it (Unix ms)."""
        with self.lock:
            if not self.moments:
                self._reserve()
            moment = self.moments.popleft()
        wait = (moment - self.now_ms()) / 1000
        if wait > 0:
            self.sleep(wait)
        return moment


class Holds:
    """Which channels are held (SES's quota or SNS's spend limit reached), read once per
    delivery; a hold set, or a hold ended by a send that went through."""

    def __init__(self, channels: set[str], now_ms: Callable[[], int] = _now_ms):
        self.now_ms = now_ms
        self.found = {channel: send_paces.held_until(channel) for channel in sorted(channels)}
        self.released: set[str] = set()
        self.lock = threading.Lock()

    def held(self, channel: str) -> float:
        """Seconds the channel is still held for (0: not held)."""
        until, _ = self.found.get(channel, (0, None))
        return max(0.0, (until - self.now_ms()) / 1000)

    def sent(self, channel: str) -> None:
        """A send on the channel went through: a hold that had ended is over."""
        until, reason = self.found.get(channel, (0, None))
        if not until or channel in self.released:
            return
        self.released.add(channel)
        if send_paces.release(channel, until):
            logger.warning("the %s channel sends again (it was held: %s)", channel, reason)

    def reached(self, channel: str, limit: Limit) -> float:
        """A quota or a spend limit refused a send: the channel held, for every delivery, for
        `send_hold_seconds`; returns how long it is held. The sends in flight beside the
        refused one are refused too: the first holds the channel, they find it held."""
        with self.lock:
            if self.held(channel):
                return self.held(channel)
            seconds = config.send_hold_seconds()
            until = self.now_ms() + seconds * 1000
            send_paces.hold(channel, until, f"{limit.kind}: {limit.message}")
            self.found[channel] = (until, limit.message)
        logger.warning(
            "the %s channel reached its %s (%s): held for %s s, its messages kept to send then",
            channel,
            limit.kind,
            limit.message,
            seconds,
        )
        delivery_metrics.limit_reached(channel, limit.kind)
        return float(seconds)


def held_by(limit: Limit, channel: str, holds: Holds) -> lanes.Held:
    """What a send refused for `limit` becomes: held, for a moment (the rate) or for the
    channel's hold (a quota, a spend limit)."""
    if limit.kind == RATE:
        return lanes.Held(f"{channel} {limit.kind}", THROTTLED_DELAY_SECONDS)
    return lanes.Held(f"{channel} {limit.kind}", holds.reached(channel, limit))
