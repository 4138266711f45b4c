"""Per-token rate limit on a rolling 60-second window, counted in DynamoDB.

The window is estimated the usual sliding-window way: this minute's hits plus the previous
minute's, weighted by how much of it still lies within the last 60 seconds. One conditional
UpdateItem per request, two more at a minute boundary; the counters expire by TTL. Being in
DynamoDB, the count holds across Lambda instances.
"""

import hashlib
import math
from datetime import timedelta

from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock, config
from chalicelib.http.errors import RATE_LIMITED, ApiError
from chalicelib.store.models import RateWindow

WINDOW_SECONDS = 60


def token_for(purpose: str, address: str) -> str:
    """The counter of `purpose` for one email address (any case), which the store keeps only
    as a hash."""
    return f"{purpose}#" + hashlib.sha256(address.strip().lower().encode()).hexdigest()


def check(token: str, limit: int | None = None) -> None:
    """Count one request for `token`; raise 429 with `Retry-After` when over `limit` (by
    default the API's per-key limit)."""
    limit = config.rate_limit_per_minute() if limit is None else limit
    if limit <= 0:
        return
    moment = clock.now().timestamp()
    window, elapsed = divmod(moment, WINDOW_SECONDS)
    counter = _count_hit(token, int(window), clock.now() + timedelta(minutes=3))
    weight = 1 - elapsed / WINDOW_SECONDS
    estimate = counter.hits + counter.previous_hits * weight
    if estimate <= limit:
        return
    retry_after = _retry_after(counter.hits - 1, counter.previous_hits, elapsed, limit)
    _uncount_hit(counter)
    raise ApiError(429, RATE_LIMITED, headers={"Retry-After": str(retry_after)})


def _count_hit(token: str, window: int, expires_at) -> RateWindow:
    counter = RateWindow(token)
    for _ in range(3):
        try:
            counter.update(
                actions=[RateWindow.hits.add(1), RateWindow.expires_at.set(expires_at)],
                condition=RateWindow.window == window,
            )
            return counter
        except UpdateError:
            pass
        _start_window(token, window, expires_at)
    # Lost three races in a row to other instances: count this request as the window's first.
    counter.hits, counter.previous_hits, counter.window = 1, 0, window
    return counter


def _start_window(token: str, window: int, expires_at) -> None:
    """Roll the counter into `window`, carrying the last minute's hits; losing a race is fine."""
    try:
        current = RateWindow.get(token, consistent_read=True)
    except RateWindow.DoesNotExist:
        current = None
    if current is not None and current.window >= window:
        return
    carried = current.hits if current is not None and current.window == window - 1 else 0
    fresh = RateWindow(token, window=window, hits=0, previous_hits=carried, expires_at=expires_at)
    try:
        if current is None:
            fresh.save(condition=RateWindow.token.does_not_exist())
        else:
            fresh.save(condition=RateWindow.window == current.window)
    except PutError:  # another instance rolled it first
        pass


def _uncount_hit(counter: RateWindow) -> None:
    """A rejected request does not count against the client's next attempts."""
    try:
        counter.update(
            actions=[RateWindow.hits.add(-1)], condition=RateWindow.window == counter.window
        )
    except UpdateError:
        pass


def _retry_after(current: int, previous: int, elapsed: float, limit: int) -> int:
    """Seconds until one more request fits, if the client sends nothing meanwhile."""
    if current + 1 > limit or not previous:
        wait = WINDOW_SECONDS - elapsed
    else:
        # Wait for enough of the previous minute's hits to slide out of the window.
        needed_weight = (limit - current - 1) / previous
        wait = (1 - needed_weight) * WINDOW_SECONDS - elapsed
    return max(1, min(WINDOW_SECONDS, math.ceil(wait)))
