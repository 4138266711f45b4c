"""The emulator's SES and SNS at an account's limits, as AWS answers beyond them.

With `SES_MAX_SEND_RATE` (emails a second) and `SES_MAX_24_HOUR_SEND` in the environment of
`make run`, moto's SES refuses what real SES refuses: a send past the rate is `Throttling`,
"Maximum sending rate exceeded.", one past the 24-hour quota `Throttling`, "Daily message
quota exceeded." (SES's API answers both with that code; the Developer Guide, "Errors related
to the sending quotas"), and nothing of a refused send is kept. `GetSendQuota` reports the
limits and what the last 24 hours sent. `SMS_MAX_SEND_RATE` does the same for SNS `Publish` to
a phone number (`Throttling`, "Rate exceeded."). SES counts recipients, so one email to three
addresses takes three of the rate.

Unset, nothing is limited, and `GetSendQuota` says so: `Max24HourSend` -1 (SES's "unlimited")
and a `MaxSendRate` of `UNLIMITED_RATE`, where moto alone reports SES's sandbox (1 a second),
which would pace every local delivery to one email a second.

The rate is a token bucket holding one second of sends: a second's worth at once, then the
rate, as SES lets a sender catch up after a pause without ever averaging above it.
"""

import threading
import time
import warnings
from collections import deque
from email import message_from_string
from email.utils import getaddresses

from moto.core.exceptions import ServiceException

from chalicelib import config

UNLIMITED_RATE = 10_000.0
DAY_SECONDS = 24 * 3600
THROTTLING = "Throttling"
RATE_EXCEEDED = "Maximum sending rate exceeded."
DAILY_QUOTA_EXCEEDED = "Daily message quota exceeded."
SMS_RATE_EXCEEDED = "Rate exceeded."

_installed = False


class Throttling(ServiceException):
    code = THROTTLING


class Bucket:
    """`rate` sends a second, `rate` (at least one) at once after a pause."""

    def __init__(self, rate: float, clock=time.monotonic):
        self.rate = rate
        self.capacity = max(1.0, rate)
        self.clock = clock
        self.tokens = self.capacity
        self.at = clock()
        self.lock = threading.Lock()

    def take(self, count: int) -> bool:
        with self.lock:
            now = self.clock()
            self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if count > self.tokens:
                return False
            self.tokens -= count
            return True


class Day:
    """What the last 24 hours sent, and whether `count` more fit in `limit` (None: any)."""

    def __init__(self, limit: int | None, clock=time.time):
        self.limit = limit
        self.clock = clock
        self.sends: deque[tuple[float, int]] = deque()
        self.total = 0
        self.lock = threading.Lock()

    def _forget_old(self, now: float) -> None:
        while self.sends and self.sends[0][0] <= now - DAY_SECONDS:
            self.total -= self.sends.popleft()[1]

    def sent(self) -> int:
        with self.lock:
            self._forget_old(self.clock())
            return self.total

    def has_room(self, count: int) -> bool:
        return self.limit is None or self.sent() + count <= self.limit

    def take(self, count: int) -> bool:
        with self.lock:
            now = self.clock()
            self._forget_old(now)
            if self.limit is not None and self.total + count > self.limit:
                return False
            self.sends.append((now, count))
            self.total += count
            return True


class Limits:
    """The account's limits, read from the environment once."""

    def __init__(self) -> None:
        ses_rate = config.ses_max_send_rate()
        sms_rate = config.sms_max_send_rate()
        self.ses_rate = ses_rate or UNLIMITED_RATE
        self.ses_bucket = Bucket(ses_rate) if ses_rate else None
        self.day = Day(config.ses_max_24_hour_send())
        self.sms_bucket = Bucket(sms_rate) if sms_rate else None

    def email(self, recipients: int) -> None:
        """Room for an email to `recipients` addresses, or SES's refusal."""
        # The quota first: past it, SES says so whatever the rate.
        if not self.day.has_room(recipients):
            raise Throttling(DAILY_QUOTA_EXCEEDED)
        if self.ses_bucket is not None and not self.ses_bucket.take(recipients):
            raise Throttling(RATE_EXCEEDED)
        if not self.day.take(recipients):
            raise Throttling(DAILY_QUOTA_EXCEEDED)

    def sms(self) -> None:
        if self.sms_bucket is not None and not self.sms_bucket.take(1):
            raise Throttling(SMS_RATE_EXCEEDED)

    def quota(self) -> dict:
        return {
            "Max24HourSend": -1 if self.day.limit is None else self.day.limit,
            "MaxSendRate": self.ses_rate,
            "SentLast24Hours": self.day.sent(),
        }


def _recipients(destinations: list[str] | None, raw_data: str) -> int:
    """The addresses an email goes to: its Destinations, else (as SES does) the message's To,
    Cc and Bcc."""
    if destinations:
        return len(destinations)
    headers = message_from_string(raw_data)
    fields = [value for name in ("To", "Cc", "Bcc") for value in headers.get_all(name, [])]
    return max(1, len(getaddresses(fields)))


def install() -> Limits:
    """Wrap moto's SES and SNS backends to refuse what the limits refuse, from now on."""
    global _installed
    from moto.ses.models import SESBackend, SESQuota
    from moto.sns.models import SNSBackend

    limits = Limits()
    if _installed:
        SESBackend._limits = limits
        return limits
    _installed = True
    # moto warns that SES's and SNS's models name no `Throttling` shape; AWS answers it all
    # the same (a common error of the Query APIs).
    warnings.filterwarnings("ignore", message=r"Exception\(Throttling\)")
    SESBackend._limits = limits
    send_raw_email = SESBackend.send_raw_email
    send_email = SESBackend.send_email
    publish = SNSBackend.publish

    def limited_send_raw_email(self, source, destinations, raw_data, *args, **kwargs):
        SESBackend._limits.email(_recipients(destinations, raw_data))
        return send_raw_email(self, source, destinations, raw_data, *args, **kwargs)

    def limited_send_email(self, source, subject, body, destinations, *args, **kwargs):
        count = sum(len(destinations.get(field) or []) for field in destinations)
        SESBackend._limits.email(max(1, count))
        return send_email(self, source, subject, body, destinations, *args, **kwargs)

    def limited_get_send_quota(self):
        quota = SESQuota(0)
        answer = SESBackend._limits.quota()
        quota.max24_hour_send = answer["Max24HourSend"]
        quota.max_send_rate = answer["MaxSendRate"]
        quota.sent_last24_hours = answer["SentLast24Hours"]
        return quota

    def limited_publish(self, *args, **kwargs):
        if kwargs.get("phone_number"):
            SESBackend._limits.sms()
        return publish(self, *args, **kwargs)

    SESBackend.send_raw_email = limited_send_raw_email
    SESBackend.send_email = limited_send_email
    SESBackend.get_send_quota = limited_get_send_quota
    SNSBackend.publish = limited_publish
    return limits
