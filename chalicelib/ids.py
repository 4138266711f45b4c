"""Identifiers: opaque, lowercase, no dots, sorting by creation time.

A 48-bit millisecond timestamp and 30 random bits, both in Crockford's base32 (whose
alphabet is in ASCII order, so string order is time order).
"""

import hashlib
import secrets
from datetime import datetime

from chalicelib import clock

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def _encode(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, digit = divmod(number, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def new_id() -> str:
    return id_at(clock.now())


def id_at(moment: datetime, seed: str | None = None) -> str:
    """An id that sorts as if made at `moment` (imported history keeps its order); with
    `seed`, always the same one for the same seed and moment."""
    millis = int(moment.timestamp() * 1000)
    if seed is None:
        tail = secrets.randbits(30)
    else:
        tail = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:4], "big") >> 2
    return _encode(millis, 10) + _encode(tail, 6)
