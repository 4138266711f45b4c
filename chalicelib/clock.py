"""The one source of "now", so scheduled behaviour can be tested with a controlled clock."""

from datetime import UTC, datetime

_frozen: datetime | None = None


def now() -> datetime:
    return _frozen or datetime.now(UTC)


def freeze(moment: datetime | None) -> None:
    """Pin `now()` to `moment` (None releases it). Tests only."""
    global _frozen
    _frozen = moment


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a `Z` suffix and milliseconds, as the contract fixes."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
