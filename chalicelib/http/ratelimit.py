"""Per-token rate limit on a rolling 60-second window, counted in DynamoDB.

The window is estimated the usual sliding-window way: this minute's hits plus the previous
minute's, weighted by how much of it still lies within the last 60 seconds (or of the longer
window a counter is kept over). One conditional UpdateItem per request, two more at a window
boundary; the counters expire by TTL. Being in DynamoDB, the count holds across Lambda
instances.
"""

import hashlib
import hmac
import ipaddress
import logging
import math
from collections.abc import Mapping
from datetime import timedelta

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock, config
from chalicelib.http.errors import RATE_LIMITED, ApiError
from chalicelib.store.models import RateWindow
from chalicelib.store.secrets import secret_value

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60
# What CloudFront's origin `app` sends the app (infra/cdn.py): the origin's secret, and the
# reader's own address and port, which CloudFront writes itself on every behaviour that can
# reach that origin (their origin request policies name the header).
ORIGIN_VERIFY_HEADER = "x-origin-verify"
VIEWER_ADDRESS_HEADER = "cloudfront-viewer-address"

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def token_for(purpose: str, address: str, client: str | None = None) -> str:
    """The counter of `purpose` for one email address (any case), or for one address and one
    client together, which the store keeps only as a hash."""
    key = address.strip().lower() + ("" if client is None else f"\n{client}")
    return f"{purpose}#" + hashlib.sha256(key.encode()).hexdigest()


def client_of(context: Mapping, headers: Mapping[str, str]) -> str:
    """Who sent a request, as limits per client count them. Through our CloudFront
    distribution (the request carries the origin's secret), the reader's address CloudFront
    saw; otherwise API Gateway's `sourceIp`, or, from a loopback source (the local stack's
    front, which drops the client's own header), the last address of `X-Forwarded-For`. An
    IPv6 client counts as its /64, which one host is given whole."""
    named = _viewer_address(headers) if _through_our_distribution(headers) else None
    if named is None:
        named = _source_address(context, headers)
    if named is None:
        return "unknown"
    if isinstance(named, ipaddress.IPv6Address):
        if named.ipv4_mapped:
            return str(named.ipv4_mapped)
        return str(ipaddress.IPv6Network((named, 64), strict=False))
    return str(named)


def _through_our_distribution(headers: Mapping[str, str]) -> bool:
    """Whether the request carries the origin's secret. Behind CloudFront `sourceIp` is an
    edge's address, shared by all its readers, and the API Gateway stage is reachable without
    CloudFront too: the viewer's address is believed only from a request that proves it came
    through the distribution. The secret is read (once per process) only for a request that
    presents one."""
    presented = headers.get(ORIGIN_VERIFY_HEADER) or ""
    secret_id = config.origin_verify_secret_id()
    if not presented or not secret_id or not presented.isascii():
        return False
    try:
        expected = secret_value(secret_id)
    except (BotoCoreError, ClientError):
        # Counted by `sourceIp` then, as without CloudFront: never by a header unproven.
        logger.exception("the origin's secret could not be read")
        return False
    return hmac.compare_digest(presented.encode(), expected.encode())


def _viewer_address(headers: Mapping[str, str]) -> _Address | None:
    """`CloudFront-Viewer-Address`: `198.51.100.10:46532`, `2001:db8::1:46532` (the port
    after the last colon)."""
    address, colon, port = (headers.get(VIEWER_ADDRESS_HEADER) or "").strip().rpartition(":")
    if not colon or not port.isdigit():
        return None
    return _address(address.removeprefix("[").removesuffix("]"))


def _source_address(context: Mapping, headers: Mapping[str, str]) -> _Address | None:
    """API Gateway's `sourceIp`; from loopback, the last hop the local front names."""
    named = _address(str((context.get("identity") or {}).get("sourceIp") or ""))
    if named is None or named.is_loopback:
        forwarded = _address((headers.get("x-forwarded-for") or "").split(",")[-1].strip())
        named = forwarded or named
    return named


def _address(text: str) -> _Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def check(token: str, limit: int | None = None, window_seconds: int = WINDOW_SECONDS) -> float:
    """Count one request for `token`; raise 429 with `Retry-After` when over `limit` (by
    default the API's per-key limit). Returns how many the window holds with this one."""
    limit = config.rate_limit_per_minute() if limit is None else limit
    if limit <= 0:
        return 0.0
    moment = clock.now().timestamp()
    window, elapsed = divmod(moment, window_seconds)
    counter = _count_hit(token, int(window), _expiry(window_seconds))
    weight = 1 - elapsed / window_seconds
    estimate = counter.hits + counter.previous_hits * weight
    if estimate <= limit:
        return estimate
    retry_after = _retry_after(
        counter.hits - 1, counter.previous_hits, elapsed, limit, window_seconds
    )
    _uncount_hit(counter)
    raise ApiError(429, RATE_LIMITED, headers={"Retry-After": str(retry_after)})


def count(token: str, window_seconds: int = WINDOW_SECONDS) -> None:
    """Count one event for `token` (a failure, say) without checking any limit."""
    window = int(clock.now().timestamp() // window_seconds)
    _count_hit(token, window, _expiry(window_seconds))


def uncount(token: str, window_seconds: int = WINDOW_SECONDS) -> None:
    """Take back one counted for `token` in the current window (a request that turned out
    not to be what the counter counts)."""
    window = int(clock.now().timestamp() // window_seconds)
    _uncount_hit(RateWindow(token, window=window))


def counted(token: str, window_seconds: int = WINDOW_SECONDS) -> float:
    """How many the rolling window of `token` holds now (one GetItem, nothing counted)."""
    window, elapsed = divmod(clock.now().timestamp(), window_seconds)
    try:
        counter = RateWindow.get(token)
    except RateWindow.DoesNotExist:
        return 0.0
    weight = 1 - elapsed / window_seconds
    if counter.window == int(window):
        return counter.hits + counter.previous_hits * weight
    if counter.window == int(window) - 1:
        return counter.hits * weight
    return 0.0


def forgotten_after(window_seconds: int = WINDOW_SECONDS) -> int:
    """Seconds until what is counted now has left the rolling window."""
    elapsed = clock.now().timestamp() % window_seconds
    return math.ceil(2 * window_seconds - elapsed)


def _expiry(window_seconds: int):
    return clock.now() + timedelta(seconds=3 * window_seconds)


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


def _retry_after(
    current: int, previous: int, elapsed: float, limit: int, window_seconds: int
) -> int:
    """Seconds until one more request fits, if the client sends nothing meanwhile."""
    if current + 1 > limit or not previous:
        wait = window_seconds - elapsed
    else:
        # Wait for enough of the previous window's hits to slide out of it.
        needed_weight = (limit - current - 1) / previous
        wait = (1 - needed_weight) * window_seconds - elapsed
    return max(1, min(window_seconds, math.ceil(wait)))
