"""What of a page's public files changes with time alone, and when it next does.

Everything relative to the reader's moment ("12 minutes ago", a maintenance's countdown, the
metric charts' window) is worked out in the reader's browser from the absolute times the
files hold (`static/widgets.js`), so the files stay as published while time passes. Two things
are left to the clock:
- the page's day, in its own time zone: at midnight a new day's uptime bar and its own list
  of past incidents begin, and the oldest day leaves the bars;
- while a showcased component is in an outage, its minutes of outage (today's bar's card, the
  uptime percentage) grow: every `OUTAGE_EVERY` then.
An idle page (no write, every component operational, no data arriving) therefore changes
once a day.
"""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from chalicelib.domain import uptime

# How often the growing minutes of an outage are shown anew.
OUTAGE_EVERY = timedelta(minutes=10)


def outage_grows(data: dict, now: datetime) -> bool:
    """Whether a showcased component is in an outage now, as its uptime bars count one (the
    snapshot's statuses are the current ones: a change of status is a write)."""
    for entry in (data.get("uptime") or {}).values():
        segments = entry.get("segments") or []
        if not segments:
            continue
        at, status = segments[-1]
        latest = [(datetime.fromisoformat(at), status)]
        if uptime.outage(latest, now, now + timedelta(minutes=1)).weighted_seconds > 0:
            return True
    return False


def next_change(data: dict, now: datetime) -> datetime:
    """When the page's files next change with time alone: its next midnight, and the next
    `OUTAGE_EVERY` while an outage grows."""
    zone = ZoneInfo(data["page"]["time_zone"])
    tomorrow = now.astimezone(zone).date() + timedelta(days=1)
    due = datetime.combine(tomorrow, datetime.min.time(), zone).astimezone(UTC)
    if outage_grows(data, now):
        every = int(OUTAGE_EVERY.total_seconds())
        due = min(due, datetime.fromtimestamp((int(now.timestamp()) // every + 1) * every, UTC))
    return due


def period_of(data: dict, now: datetime) -> str:
    """The part of the clock the page's views show, for their ETags: the page's day, and
    the `OUTAGE_EVERY` while an outage grows (an answer of the app revalidates when it
    changes, as a published file is published again)."""
    day = now.astimezone(ZoneInfo(data["page"]["time_zone"])).date().isoformat()
    if not outage_grows(data, now):
        return day
    return f"{day}/{int(now.timestamp()) // int(OUTAGE_EVERY.total_seconds())}"
