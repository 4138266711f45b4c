"""Which addresses the service may call on a client's word: webhook endpoints, chat channels,
third-party status pages, import sources, checks. Public addresses only, checked on what the
name resolves to (an IPv6 address carrying an IPv4 one is judged by that), on every stage,
`make run` included; loopback and private networks only with `ALLOW_PRIVATE_TARGETS=1`.
The rules only: the domain asks them of a URL it stores, the notifier of a URL it calls.
"""

import ipaddress
import os
import socket
from typing import NamedTuple
from urllib.parse import SplitResult, urlsplit

ALLOW_PRIVATE_TARGETS = "ALLOW_PRIVATE_TARGETS"
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


class OutboundUrl(NamedTuple):
    """A URL the service could call: http or https, a host, a port in range."""

    scheme: str
    host: str
    port: int
    parts: SplitResult


INVALID_URL = "must be an absolute http or https URL with a valid host and port (1-65535)"


def parsed(url: str) -> OutboundUrl | None:
    """Every URL taken from a client is read here, once: its scheme, host and port (the
    scheme's when none is given), or None when it is not an http or https URL, its host is
    missing or malformed, or its port is out of range (`urlsplit` leaves that to `.port`,
    which raises)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
        host = parts.hostname
    except (ValueError, AttributeError):
        return None
    if parts.scheme not in ("http", "https") or not host or port == 0:
        return None
    if any(character.isspace() or ord(character) < 32 for character in host):
        return None
    if not host.startswith("[") and ":" not in host:
        try:
            host.encode("idna")  # an empty or overlong label cannot be looked up
        except UnicodeError:
            return None
    return OutboundUrl(parts.scheme, host, port or (443 if parts.scheme == "https" else 80), parts)


def is_outbound_url(url: str) -> bool:
    return parsed(url) is not None


def private_targets_allowed() -> bool:
    """Whether loopback, private and link-local targets may be called: only where the operator
    says so (`ALLOW_PRIVATE_TARGETS=1`: the tests, whose sinks listen on loopback). `make run`
    on a host is a deployment too, and anonymous readers can create webhook subscribers."""
    return os.environ.get(ALLOW_PRIVATE_TARGETS) == "1"


def may_call(url: str) -> bool:
    """Whether a URL a client gives us (a webhook endpoint, a source page, a check) may be
    called: a well-formed http(s) URL that resolves, and only to public addresses. With
    private targets allowed (the tests, with no DNS beyond the machine), any well-formed one:
    a send checks again when it calls."""
    if parsed(url) is None:
        return False
    return private_targets_allowed() or resolve(url) is not None


def resolve(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, address) of a URL we may call, or None."""
    target = parsed(url)
    if target is None:
        return None
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    addresses = [info[4][0] for info in infos]
    if not addresses:
        return None
    if not private_targets_allowed() and not all(is_public_address(a) for a in addresses):
        return None
    return target.scheme, target.host, target.port, addresses[0]
