"""API keys and passwords: made here, stored only as hashes."""

import hashlib
import hmac
import secrets

# scrypt cost: about 30 ms per password on one core, and 16 MiB of memory.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def new_api_key() -> str:
    return secrets.token_urlsafe(32)


def api_key_hash(api_key: str) -> str:
    # A key is 256 random bits, so a plain SHA-256 is as strong as a slow hash here, and
    # lets a request find its key with one GetItem.
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def password_hash(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    scheme, salt, digest = stored.split("$")
    if scheme != "scrypt":
        return False
    candidate = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), **_SCRYPT)
    return hmac.compare_digest(candidate.hex(), digest)
