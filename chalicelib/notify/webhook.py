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


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip in _METADATA_ADDRESSES:
        return False
    return not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


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
