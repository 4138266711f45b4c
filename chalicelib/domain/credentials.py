"""API keys and passwords: made here, stored only as hashes, and a key's holder found by its
hash."""

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from chalicelib.store.base import read_together
from chalicelib.store.models import ApiKey, Page, User

# scrypt cost: about 30 ms per password on one core, and 16 MiB of memory (scrypt's
# interactive-login parameters).
PASSWORD_COST = {"n": 2**14, "r": 8, "p": 1}
# What hashes and checks use: the in-process tests lower it (tests/conftest.py).
_scrypt = dict(PASSWORD_COST)


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


@dataclass(frozen=True)
class KeyHolder:
    """Whom an API key belongs to, and the page a request names (None: no such page)."""

    key_hash: str
    user: User
    page: Page | None = None


def key_holder(api_key: str, page_id: str | None = None) -> KeyHolder | None:
    """The key's user, with the page `page_id` read in the same round trip (and the key's own
    item too, when the key starts with its user's id); None when no user holds the key."""
    key_hash = api_key_hash(api_key)
    user_id = user_hint(api_key)
    key_checked = user_id is None
    if key_checked:
        try:
            user_id = ApiKey.get(key_hash).user_id
        except ApiKey.DoesNotExist:
            return None
    wanted_page = [(Page, page_id)] if page_id else []
    wanted_key = [] if key_checked else [(ApiKey, key_hash)]
    user, *others = read_together((User, user_id), *wanted_page, *wanted_key)
    if not key_checked:
        key = others.pop()
        if key is None or key.user_id != user_id:
            return None
    if user is None:
        return None
    return KeyHolder(key_hash, user, others[0] if page_id else None)


# The one rule for a password, the API's and the console's: long enough, and not one a
# guesser tries early. zxcvbn ships the lists (common passwords, words, names) and scores a
# password by the guesses it would take; a score under 2 falls within a million guesses.
MINIMUM_PASSWORD_LENGTH = 12
MAXIMUM_PASSWORD_LENGTH = 1024
_LEAST_SCORE = 2
# zxcvbn's cost grows fast with length; what follows the first characters only adds guesses.
_SCORED_CHARACTERS = 64
# A password handed out once signs in once, within this long.
ONE_TIME_PASSWORD_HOURS = 24


def password_problem(password: str) -> str | None:
    """What is wrong with `password` as a user's own, or None."""
    if len(password) < MINIMUM_PASSWORD_LENGTH:
        return f"is too short (at least {MINIMUM_PASSWORD_LENGTH} characters)"
    if len(password) > MAXIMUM_PASSWORD_LENGTH:
        return f"is too long (at most {MAXIMUM_PASSWORD_LENGTH} characters)"
    from zxcvbn import zxcvbn  # its lists load in ~0.1 s: only where a password is chosen

    if zxcvbn(password[:_SCORED_CHARACTERS])["score"] < _LEAST_SCORE:
        return "is too common or too easy to guess: choose a longer, less common one"
    return None


def new_one_time_password() -> str:
    """A random password to hand a user once (printed by the admin tool, shown by the
    console); only its hash is kept."""
    return secrets.token_urlsafe(12)


def password_hash(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, **_scrypt)
    return f"scrypt${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    scheme, salt, digest = stored.split("$")
    if scheme != "scrypt":
        return False
    candidate = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), **_scrypt)
    return hmac.compare_digest(candidate.hex(), digest)
