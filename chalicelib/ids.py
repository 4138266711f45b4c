"""Identifiers: opaque, lowercase, no dots, sorting by creation time.

A 48-bit millisecond timestamp and 30 random bits, both in Crockford's base32 (whose
alphabet is in ASCII order, so string order is time order).
"""

import secrets

from chalicelib import clock

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def _encode(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, digit = divmod(number, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def new_id() -> str:
    millis = int(clock.now().timestamp() * 1000)
    return _encode(millis, 10) + _encode(secrets.randbits(30), 6)
