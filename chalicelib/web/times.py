"""Times as the public pages and the emails write them, in the page's time zone: a day as
`Nov 3, 2026`, a moment as `Apr 2, 2030 - 06:00 EDT`. (The console writes its own way:
`chalicelib.console.times`.)"""

from collections.abc import Callable
from datetime import date, datetime
from zoneinfo import ZoneInfo


def local(text: str | None, time_zone: str) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(text).astimezone(ZoneInfo(time_zone))


def label(day: date) -> str:
    """A day as every public view writes it: `Nov 3, 2026`."""
    return day.strftime("%b %d, %Y").replace(" 0", " ", 1)


def time_formatter(time_zone: str) -> Callable[[str | None], str]:
    def local_time(text: str | None) -> str:
        moment = local(text, time_zone)
        if moment is None:
            return ""
        # The day without its leading zero, the hour with it: `Apr 2, 2030 - 06:00 EDT`.
        return f"{label(moment.date())} - {moment:%H:%M %Z}"

    return local_time
