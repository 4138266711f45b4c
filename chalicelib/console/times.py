"""Times as the console shows and takes them: in the page's time zone, named
("2026-11-24 09:00 EST"). A form's `datetime-local` field carries no zone; it is read in the
page's zone, so "09:00" on a New York page is 14:00 UTC in winter."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_ZONE = "Etc/UTC"
_INPUT_FORMAT = "%Y-%m-%dT%H:%M"


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or DEFAULT_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_ZONE)


def _moment(value) -> datetime | None:
    if not value:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def shown(value, zone_name: str | None) -> str:
    """A stored time to the minute, in the page's zone, with the zone's abbreviation."""
    moment = _moment(value)
    if moment is None:
        return value if isinstance(value, str) else ""
    try:
        return moment.astimezone(zone(zone_name)).strftime("%Y-%m-%d %H:%M %Z")
    except OverflowError:
        return moment.strftime("%Y-%m-%d %H:%M UTC")


def input_value(value, zone_name: str | None) -> str:
    """A stored time as a `datetime-local` field's value, in the page's zone."""
    moment = _moment(value)
    if moment is None:
        return ""
    try:
        return moment.astimezone(zone(zone_name)).strftime(_INPUT_FORMAT)
    except OverflowError:
        return moment.strftime(_INPUT_FORMAT)


def from_input(text: str | None, zone_name: str | None) -> str | None:
    """A `datetime-local` field's value, read in the page's zone, as the API's UTC time.
    A value that carries its own offset keeps it; an unreadable one is returned as it is,
    for the schema to refuse with its message."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(zone_name))
    try:
        return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    except OverflowError:
        return text  # past the calendar's end once moved to UTC: the schema refuses it


def zone_label(zone_name: str | None, at: datetime | None = None) -> str:
    """The zone as a form names it next to a time field: "America/New_York, EST"."""
    name = zone_name or DEFAULT_ZONE
    abbreviation = (at or datetime.now(UTC)).astimezone(zone(name)).strftime("%Z")
    return name if abbreviation == name else f"{name}, {abbreviation}"
