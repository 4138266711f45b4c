"""A custom metric's values from a CSV (`timestamp,value`), read for a preview before any is
written: the rows that will be added, and each refused row with its number and why.

A time is Unix seconds or a date and time (`2026-11-24 09:00`), read in the page's time zone
unless it names its own offset, as the console's time fields are. Rows go oldest first, one
a 30-second interval: the API casts each point to its interval and keeps only the last one
there, so a second row in an interval would silently replace the first.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from chalicelib import clock
from chalicelib.console import times
from chalicelib.domain import metrics
from chalicelib.http import errors

# Each row is one write (the API's own for one point): a screen's worth, well within a
# request's time. A day of 5-minute values is 288 rows.
MAX_ROWS = 500
HEADER = ("timestamp", "value")
# A plain decimal number (Python's float() also takes "nan", "inf" and "1_000").
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


@dataclass(frozen=True)
class Row:
    number: int  # in the file, counting its header line
    timestamp: int  # Unix seconds
    value: int | float

    @property
    def moment(self) -> str:
        return datetime.fromtimestamp(self.timestamp, UTC).isoformat()

    @property
    def carried(self) -> str:
        """The row as the confirmation form carries it back."""
        return f"{self.timestamp},{self.value}"


@dataclass(frozen=True)
class Refused:
    number: int
    given: str  # the row as written
    reason: str


@dataclass(frozen=True)
class Preview:
    rows: list[Row]
    refused: list[Refused]


def unix_seconds(text: str, zone: str) -> int | None:
    """A time as Unix seconds: given as such, or a date and time read in `zone`."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    try:
        moment = times.from_input(text, zone) or ""
        return int(datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp())
    except (ValueError, OverflowError):  # not a time, or one past the calendar's ends
        return None


def number(text: str) -> int | float | None:
    text = text.strip()
    if not _NUMBER.match(text):
        return None
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def text_of(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise errors.invalid("csv_file", "is not a UTF-8 text file") from None


def read(text: str, zone: str) -> Preview:
    """Every row of `text` either to be added or refused with its reason."""
    lines = [(at, cells) for at, cells in _rows(text) if any(cell.strip() for cell in cells)]
    if lines and tuple(cell.strip().lower() for cell in lines[0][1]) == HEADER:
        lines = lines[1:]
    if len(lines) > MAX_ROWS:
        raise errors.invalid("csv", f"has more than {MAX_ROWS} rows: upload it in parts")
    rows: list[Row] = []
    refused: list[Refused] = []
    for line_number, cells in lines:
        reason, row = _judged(line_number, cells, zone, rows[-1] if rows else None)
        if row is not None:
            rows.append(row)
        else:
            refused.append(Refused(line_number, ",".join(cells), reason))
    return Preview(rows, refused)


def _rows(text: str):
    reader = csv.reader(io.StringIO(text))
    try:
        for cells in reader:
            yield reader.line_num, cells
    except csv.Error:
        raise errors.invalid("csv", "is not a CSV file") from None


def _judged(line_number: int, cells: list[str], zone: str, last: Row | None):
    """(why the row is refused, None) or ("", the row)."""
    if len(cells) != len(HEADER):
        return f"has {len(cells)} columns, not 2 (timestamp,value)", None
    timestamp = unix_seconds(cells[0], zone)
    if timestamp is None:
        return "the time is neither a date and time nor Unix seconds", None
    value = number(cells[1])
    if value is None:
        return "the value is not a number", None
    if timestamp > clock.now().timestamp():
        return "the time is in the future", None
    if not metrics.in_backfill(timestamp):
        return "the time is more than 28 days ago", None
    if last is not None and timestamp < last.timestamp:
        return f"the time is earlier than row {last.number}'s: rows go oldest first", None
    if last is not None and metrics.interval_of(timestamp) == metrics.interval_of(last.timestamp):
        interval = metrics.INTERVAL_SECONDS
        return f"the time is in the same {interval}-second interval as row {last.number}", None
    return "", Row(line_number, timestamp, value)
