"""`page` (1-based) and `per_page` (default and maximum 100) over a list; `limit` and a
0-based `page` over subscribers; `limit` and an `after` cursor over long time series."""

from collections.abc import Sequence
from math import inf
from typing import TypeVar

from chalicelib.http import errors

MAX_PER_PAGE = 100
# The deepest page a list answers: a page number past it is refused, not read up to.
MAX_PAGE_NUMBER = 1_000_000
T = TypeVar("T")


def _whole_number(value: str | None, default: int, minimum: int, maximum: float = inf) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise errors.bad_request() from None
    if not minimum <= number <= maximum:
        raise errors.bad_request()
    return number


def page_and_size(query: dict, size_name: str = "per_page") -> tuple[int, int]:
    """The 1-based `page` and the page size asked for (`size_name`, default and max 100)."""
    page = _whole_number(query.get("page"), 1, 1, MAX_PAGE_NUMBER)
    size = min(_whole_number(query.get(size_name), MAX_PER_PAGE, 1), MAX_PER_PAGE)
    return page, size


def reach(query: dict) -> int:
    """How many items of a list a page asked for needs read from its start: a store reads
    no further, and `paginate` cuts the page out of them."""
    page, per_page = page_and_size(query)
    return page * per_page


def paginate(items: Sequence[T], query: dict) -> list[T]:
    start, per_page = start_and_size(query)
    return list(items[start : start + per_page])


def limit_and_offset(query: dict) -> tuple[int, int]:
    """Subscriber lists: `limit` (default and max 100, as Statuspage's v1 since February 2023)
    and a 0-based `page`; the start of that page and its size."""
    limit = min(_whole_number(query.get("limit"), MAX_PER_PAGE, 1), MAX_PER_PAGE)
    page = _whole_number(query.get("page"), 0, 0, MAX_PAGE_NUMBER)
    return page * limit, limit


def start_and_size(query: dict) -> tuple[int, int]:
    """`page` (1-based) and `per_page` as the start of that page and its size."""
    page, per_page = page_and_size(query)
    return (page - 1) * per_page, per_page


def limit_and_after(query: dict, maximum: int) -> tuple[int, int | None]:
    """Time series read by a cursor: `limit` (default and max `maximum`) and `after`, the key
    (Unix seconds) of the last item of the page before. A cursor, not a page number: a deep
    page costs no more to read than the first."""
    limit = min(_whole_number(query.get("limit"), maximum, 1), maximum)
    after = query.get("after")
    return limit, None if after in (None, "") else _whole_number(after, 0, 0)
