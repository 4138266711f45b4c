"""Webhook POSTs: JSON, 10 s timeout, no redirects, to the address that was checked.

The host is resolved once; outside the local stage the address must be public, and the
connection goes to that same address, so a DNS answer that changes in between (rebinding)
cannot steer the request to an internal service.
"""

import http.client
import ipaddress
import socket
import ssl
from urllib.parse import urlsplit

from chalicelib import config

TIMEOUT_SECONDS = 10
_METADATA_ADDRESSES = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
}


# IPv6 prefixes whose address carries an IPv4 one in its last 32 bits (NAT64, RFC 6052/8215).
_NAT64_PREFIXES = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def is_public_address(address: str) -> bool:
    """Whether `address` is a globally routable unicast address. An IPv6 address that carries
    an IPv4 one (mapped, 6to4, Teredo, NAT64) is judged by that IPv4 address, so
    `2002:a9fe:a9fe::` is the metadata service's 169.254.169.254; shared address space
    (100.64.0.0/10, carrier-grade NAT) is not global."""
    ip = ipaddress.ip_address(address.split("%")[0])
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


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)


def post_json(url: str, body: bytes, headers: dict[str, str]) -> bool:
    """POST `body`; True on a 2xx answer. Redirects, errors and timeouts are failures."""
    target = resolve(url)
    if target is None:
        return False
    scheme, host, port, address = target
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection_class = _PinnedHTTPSConnection if scheme == "https" else _PinnedHTTPConnection
    connection = connection_class(host, port, address, TIMEOUT_SECONDS)
    try:
        connection.request(
            "POST",
            path,
            body=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": "statuspage-webhooks",
                **headers,
            },
        )
        response = connection.getresponse()
        response.read()
        return 200 <= response.status < 300
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
