"""Incidents placed on the days and months of the page's time zone: the past 14 days of the
status page, the month pages of the history."""

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from chalicelib.http import errors
from chalicelib.public.content import UPCOMING

PAST_DAYS = 14
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def local(text: str | None, time_zone: str) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(text).astimezone(ZoneInfo(time_zone))


def today(time_zone: str, now: datetime) -> date:
    return now.astimezone(ZoneInfo(time_zone)).date()


def label(day: date) -> str:
    """A day as every public view writes it: `Nov 3, 2026`."""
    return day.strftime("%b %d, %Y").replace(" 0", " ", 1)


def started(entry: dict) -> str:
    """When an incident began; a maintenance, when its window opens."""
    incident = entry["incident"]
    return (incident.get("scheduled_for") if entry["scheduled"] else None) or incident["created_at"]


def _day_of(entry: dict, time_zone: str) -> date:
    return local(started(entry), time_zone).date()


def past_days(entries: list[dict], time_zone: str, today: date) -> list[tuple[date, list[dict]]]:
    """Today and the 13 days before, newest first, each with the incidents that began then
    (maintenances still ahead are shown apart)."""
    shown = [entry for entry in entries if entry["state"] != UPCOMING]
    days = []
    for offset in range(PAST_DAYS):
        day = today - timedelta(days=offset)
        days.append((day, [entry for entry in shown if _day_of(entry, time_zone) == day]))
    return days


def parse_month(text: str | None, today: date) -> tuple[int, int]:
    if not text:
        return today.year, today.month
    match = _MONTH.match(text)
    if not match or not 1 <= int(match.group(2)) <= 12 or int(match.group(1)) < 1970:
        raise errors.bad_request()
    return int(match.group(1)), int(match.group(2))


def in_month(entries: list[dict], time_zone: str, year: int, month: int) -> list[dict]:
    kept = []
    for entry in entries:
        day = _day_of(entry, time_zone)
        if entry["state"] != UPCOMING and (day.year, day.month) == (year, month):
            kept.append(entry)
    return kept


def month_before(year: int, month: int) -> tuple[int, int]:
    return (year - 1, 12) if month == 1 else (year, month - 1)


def month_after(year: int, month: int) -> tuple[int, int]:
    return (year + 1, 1) if month == 12 else (year, month + 1)


def earliest_month(entries: list[dict], time_zone: str) -> tuple[int, int] | None:
    days = [_day_of(entry, time_zone) for entry in entries]
    if not days:
        return None
    first = min(days)
    return first.year, first.month
