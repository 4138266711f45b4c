"""API keys and passwords: made here, stored only as hashes."""

import hashlib
import hmac
import re
import secrets

# scrypt cost: about 30 ms per password on one core, and 16 MiB of memory.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


# A key starts with its user's id: a request reads the key's item and the user's in one
# round trip. The id is a hint, never trusted: the key's item (found by the whole key's hash)
# must name the same user.
_USER_HINT = re.compile(r"^([0-9a-z]{16})\.")


def new_api_key(user_id: str) -> str:
    return f"{user_id}.{secrets.token_urlsafe(32)}"


def user_hint(api_key: str) -> str | None:
    """The user id a key starts with (keys made before hints have none)."""
    match = _USER_HINT.match(api_key)
    return match.group(1) if match else None


def api_key_hash(api_key: str) -> str:
    # A key is 256 random bits, so a plain SHA-256 is as strong as a slow hash here, and
    # lets a request find its key with one GetItem.
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def new_one_time_password() -> str:
    """A random password to hand a user once (printed by the admin tool, shown by the
    console); only its hash is kept."""
    return secrets.token_urlsafe(12)


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
