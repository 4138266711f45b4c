"""Outbound HTTP: webhook POSTs, and the GETs of the status pages third-party components
follow (`fetch`), both under the same rules: 10 s timeout, no redirects, to the address that
was checked.

The host is resolved once per send; the address must be public (`chalicelib.net`), and
the connection goes to that same address, so a DNS answer that changes in between (rebinding)
cannot steer the request to an internal service. Connections are pooled per (host, address)
and kept alive between sends (urllib3, which botocore brings); a sender sends at most
`PER_HOST` at once to one host (`chalicelib.notify.lanes`), and the senders of a process
share its pools.
"""

import ssl
import threading
import time
from collections import OrderedDict

import urllib3

from chalicelib.net import is_public_address, may_call, parsed, resolve  # noqa: F401 (the send's rules)

TIMEOUT_SECONDS = 10
# Concurrent sends to one host, and how many hosts' pools (and DNS answers) are kept.
PER_HOST = 8
# Connections a pool keeps, made only as sends need them: more than one sender's, as the local
# stack runs two deliveries of a queue and the checks in one process (a full pool closes the
# connection handed back, and urllib3 logs a warning each time).
POOL_CONNECTIONS = 4 * PER_HOST
POOLS_KEPT = 256
# A checked DNS answer serves the sends of the next seconds (10,000 sends to one host are
# one lookup, not 10,000); the connection still goes to the address that was checked.
RESOLVED_FOR_SECONDS = 30
_pools: OrderedDict[tuple, urllib3.HTTPConnectionPool] = OrderedDict()
_pools_lock = threading.Lock()
_resolved: OrderedDict[str, tuple[float, tuple[str, str, int, str]]] = OrderedDict()


def _target(url: str) -> tuple[str, str, int, str] | None:
    """`resolve(url)`, remembered for `RESOLVED_FOR_SECONDS` per scheme, host and port."""
    lane = lane_of(url)
    now = time.monotonic()
    with _pools_lock:
        hit = _resolved.get(lane)
    if hit is not None and hit[0] > now:
        return hit[1]
    target = resolve(url)
    if target is not None:
        with _pools_lock:
            _resolved[lane] = (now + RESOLVED_FOR_SECONDS, target)
            if len(_resolved) > POOLS_KEPT:
                _resolved.popitem(last=False)
    return target


def _pool(scheme: str, host: str, port: int, address: str) -> urllib3.HTTPConnectionPool:
    """The pool of connections to `address` for `host`; TLS is checked against `host`."""
    key = (scheme, host, port, address)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is not None:
            _pools.move_to_end(key)
            return pool
        options = {
            "maxsize": POOL_CONNECTIONS,
            "block": False,
            "timeout": urllib3.Timeout(total=TIMEOUT_SECONDS),
            "retries": False,
        }
        if scheme == "https":
            pool = urllib3.HTTPSConnectionPool(
                address,
                port,
                server_hostname=host,
                assert_hostname=host,
                ssl_context=ssl.create_default_context(),
                **options,
            )
        else:
            pool = urllib3.HTTPConnectionPool(address, port, **options)
        _pools[key] = pool
        if len(_pools) > POOLS_KEPT:
            _pools.popitem(last=False)[1].close()
        return pool


def lane_of(url: str) -> str:
    """What limits concurrent sends to `url`: its scheme, host and port."""
    target = parsed(url)
    return f"{target.scheme}://{target.host}:{target.port}" if target else url


def _host_header(host: str, port: int, scheme: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    return shown if port == default else f"{shown}:{port}"


def request(url: str, method: str, headers: dict[str, str], **options):
    """`method` on the checked address of `url`, or None when it may not be called."""
    target = _target(url)
    if target is None:
        return None
    scheme, host, port, address = target
    parts = parsed(url).parts
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _pool(scheme, host, port, address).urlopen(
        method,
        path,
        headers={"Host": _host_header(host, port, scheme), **headers},
        redirect=False,
        assert_same_host=False,
        **options,
    )


def post_json(url: str, body: bytes, headers: dict[str, str]) -> bool:
    """POST `body`; True on a 2xx answer. Redirects, errors and timeouts are failures."""
    sent = {"Content-Type": "application/json", "User-Agent": "statuspage-webhooks", **headers}
    try:
        response = request(url, "POST", sent, body=body, preload_content=True)
    except (OSError, urllib3.exceptions.HTTPError):
        return False
    return response is not None and 200 <= response.status < 300


def fetch(url: str, limit: int) -> bytes | None:
    """GET `url`: the body of a 200 answer of at most `limit` bytes, else None (redirects,
    errors, timeouts and bigger bodies alike)."""
    sent = {"Accept": "application/json", "User-Agent": "statuspage-third-party-components"}
    try:
        response = request(url, "GET", sent, preload_content=False)
        if response is None:
            return None
        try:
            body = response.read(limit + 1)
        finally:
            response.release_conn()
    except (OSError, urllib3.exceptions.HTTPError):
        return None
    if response.status != 200 or len(body) > limit:
        return None
    return body
