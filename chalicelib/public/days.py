"""Incidents placed on the days and months of the page's time zone: the past 15 days of the
status page, the quarter (or month) pages of the history."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from chalicelib.http import errors
from chalicelib.views.content import UPCOMING
from chalicelib.views.snapshot import PER_DAY
from chalicelib.web.times import local

PAST_DAYS = 15
# The history begins in 1970: no period asks for earlier.
EARLIEST_YEAR = 1970
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_QUARTER = re.compile(r"^(\d{4})-Q(\d)$")


def today(time_zone: str, now: datetime) -> date:
    return now.astimezone(ZoneInfo(time_zone)).date()


def started(entry: dict) -> str:
    """When an incident began; a maintenance, when its window opens."""
    incident = entry["incident"]
    return (incident.get("scheduled_for") if entry["scheduled"] else None) or incident["created_at"]


def _day_of(entry: dict, time_zone: str) -> date:
    return local(started(entry), time_zone).date()


@dataclass(frozen=True)
class PastDay:
    """A day of the status page: the incidents it lists (the newest `PER_DAY`) and, when it
    had more, the history page that lists the others (`more`: its query)."""

    day: date
    entries: list[dict]
    more: str | None = None


def past_days(entries: list[dict], time_zone: str, today: date) -> list[PastDay]:
    """Today and the 14 days before, newest first, each with the incidents that began then
    (maintenances still ahead are shown apart), the newest `PER_DAY` of them: the snapshot
    holds one more of a day that had more."""
    shown = [entry for entry in entries if entry["state"] != UPCOMING]
    # As the history lists them (`incidents.started_between`): a day's link to the rest
    # starts after the last it lists.
    shown.sort(key=lambda entry: (started(entry), entry["incident"]["id"]), reverse=True)
    days = []
    for offset in range(PAST_DAYS):
        day = today - timedelta(days=offset)
        listed = [entry for entry in shown if _day_of(entry, time_zone) == day]
        more = None
        if len(listed) > PER_DAY:
            listed = listed[:PER_DAY]
            period = parse_period(None, None, day)
            more = f"{period.parameter}&before={listed[-1]['incident']['id']}"
        days.append(PastDay(day, listed, more))
    return days


@dataclass(frozen=True)
class Period:
    """A page of the history: a quarter (`months` 3) or one month, in the page's time zone."""

    year: int
    month: int  # the first month
    months: int

    @property
    def label(self) -> str:
        if self.months == 1:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-Q{(self.month - 1) // 3 + 1}"

    @property
    def parameter(self) -> str:
        return f"{'month' if self.months == 1 else 'quarter'}={self.label}"

    @property
    def title(self) -> str:
        first = date(self.year, self.month, 1)
        if self.months == 1:
            return first.strftime("%B %Y")
        last = _shifted(first, self.months - 1)
        return f"{first.strftime('%B')} - {last.strftime('%B %Y')}"

    def month_starts(self) -> list[date]:
        """The first day of each month of the period, newest first."""
        first = date(self.year, self.month, 1)
        return [_shifted(first, offset) for offset in reversed(range(self.months))]

    def bounds(self, time_zone: str) -> tuple[datetime, datetime]:
        zone = ZoneInfo(time_zone)
        first = date(self.year, self.month, 1)
        start = datetime.combine(first, time(), zone)
        end = datetime.combine(_shifted(first, self.months), time(), zone)
        return start.astimezone(UTC), end.astimezone(UTC)

    def before(self) -> "Period":
        first = _shifted(date(self.year, self.month, 1), -self.months)
        return Period(first.year, first.month, self.months)

    def after(self) -> "Period":
        first = _shifted(date(self.year, self.month, 1), self.months)
        return Period(first.year, first.month, self.months)

    def starts_after(self, today: date) -> bool:
        return date(self.year, self.month, 1) > today


def _shifted(first: date, months: int) -> date:
    index = first.year * 12 + first.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def parse_period(quarter: str | None, month: str | None, today: date) -> Period:
    """`quarter=YYYY-Qn`, or `month=YYYY-MM`; by default the quarter of `today`."""
    if month:
        match = _MONTH.match(month)
        if not match or not 1 <= int(match.group(2)) <= 12 or int(match.group(1)) < EARLIEST_YEAR:
            raise errors.bad_request()
        return Period(int(match.group(1)), int(match.group(2)), 1)
    if quarter:
        match = _QUARTER.match(quarter)
        if not match or not 1 <= int(match.group(2)) <= 4 or int(match.group(1)) < EARLIEST_YEAR:
            raise errors.bad_request()
        return Period(int(match.group(1)), 3 * int(match.group(2)) - 2, 3)
    return Period(today.year, 3 * ((today.month - 1) // 3) + 1, 3)


def in_month(entries: list[dict], time_zone: str, first: date) -> list[dict]:
    """The incidents and maintenances that began in the month of `first` (a maintenance: its
    window opens then, whether it is still ahead, in progress or completed)."""
    return [
        entry
        for entry in entries
        if (_day_of(entry, time_zone).year, _day_of(entry, time_zone).month)
        == (first.year, first.month)
    ]


@dataclass(frozen=True)
class HistoryEntries:
    """A page of a history period: the newest `HISTORY_PAGE` (routes) incidents that began in it (after
    the incident `before`, when given), in brief, and the last of them when the period has
    more."""

    entries: list[dict]
    before: str | None
    more: str | None
