"""Outbound HTTP: webhook POSTs, and the GETs of the status pages third-party components
follow (`fetch`), both under the same rules: 10 s timeout, no redirects, to the address that
was checked.

The host is resolved once per send; outside the local stage the address must be public, and
the connection goes to that same address, so a DNS answer that changes in between (rebinding)
cannot steer the request to an internal service. Connections are pooled per (host, address)
and kept alive between sends (urllib3, which botocore brings); a pool holds at most
`PER_HOST` connections, the most sends one host gets at once (`chalicelib.notify.lanes`).
"""

import ipaddress
import socket
import ssl
import threading
import time
from collections import OrderedDict
from urllib.parse import urlsplit

import urllib3

from chalicelib import config

TIMEOUT_SECONDS = 10
# Concurrent sends to one host, and how many hosts' pools (and DNS answers) are kept.
PER_HOST = 8
POOLS_KEPT = 256
# A checked DNS answer serves the sends of the next seconds (10,000 sends to one host are
# one lookup, not 10,000); the connection still goes to the address that was checked.
RESOLVED_FOR_SECONDS = 30
_METADATA_ADDRESSES = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
}


# IPv6 prefixes whose address carries an IPv4 one in its last 32 bits (NAT64, RFC 6052/8215).
_NAT64_PREFIXES = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
# Never called, whatever the Python version's view of them: IPv4-compatible IPv6 (::/96,
# deprecated; `::127.0.0.1` is loopback to some stacks) and the IETF protocol assignments
# (192.0.0.0/24, global on Python 3.11).
_NEVER_PUBLIC = (ipaddress.ip_network("::/96"), ipaddress.ip_network("192.0.0.0/24"))


def is_public_address(address: str) -> bool:
    """Whether `address` is a globally routable unicast address. An IPv6 address that carries
    an IPv4 one (mapped, 6to4, Teredo, NAT64) is judged by that IPv4 address, so
    `2002:a9fe:a9fe::` is the metadata service's 169.254.169.254; shared address space
    (100.64.0.0/10, carrier-grade NAT) is not global."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if any(ip.version == network.version and ip in network for network in _NEVER_PUBLIC):
        return False
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        return is_public_address(str(embedded))
    if ip in _METADATA_ADDRESSES:
        return False
    return ip.is_global and not ip.is_multicast


def _embedded_ipv4(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | None:
    if ip.version == 4:
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]  # (server, client): the client is where the packets end up
    if any(ip in prefix for prefix in _NAT64_PREFIXES):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def internal_addresses_allowed() -> bool:
    return config.stage() in ("local", "test")


def may_call(url: str) -> bool:
    """Whether a URL a client gives us (a webhook endpoint, a source page) may be called: on
    the local stage anything (tests run their servers on loopback); elsewhere it must resolve,
    and only to public addresses."""
    return internal_addresses_allowed() or resolve(url) is not None


def resolve(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, address) of a URL we may call, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    addresses = [info[4][0] for info in infos]
    if not addresses:
        return None
    if not internal_addresses_allowed() and not all(is_public_address(a) for a in addresses):
        return None
    return parts.scheme, parts.hostname, port, addresses[0]


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
            "maxsize": PER_HOST,
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
    parts = urlsplit(url)
    try:
        return f"{parts.scheme}://{parts.hostname}:{parts.port}"
    except ValueError:
        return url


def _host_header(host: str, port: int, scheme: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    return shown if port == default else f"{shown}:{port}"


def _request(url: str, method: str, headers: dict[str, str], **options):
    """`method` on the checked address of `url`, or None when it may not be called."""
    target = _target(url)
    if target is None:
        return None
    scheme, host, port, address = target
    parts = urlsplit(url)
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
        response = _request(url, "POST", sent, body=body, preload_content=True)
    except (OSError, urllib3.exceptions.HTTPError):
        return False
    return response is not None and 200 <= response.status < 300


def fetch(url: str, limit: int) -> bytes | None:
    """GET `url`: the body of a 200 answer of at most `limit` bytes, else None (redirects,
    errors, timeouts and bigger bodies alike)."""
    sent = {"Accept": "application/json", "User-Agent": "statuspage-third-party-components"}
    try:
        response = _request(url, "GET", sent, preload_content=False)
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
