import re
from datetime import UTC, datetime, timedelta

from chalicelib import clock, ids
from chalicelib.domain import credentials


def test_ids_are_lowercase_without_dots_and_sort_by_time():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    made = []
    try:
        for step in range(50):
            clock.freeze(start + timedelta(milliseconds=step))
            made.append(ids.new_id())
    finally:
        clock.freeze(None)
    assert all(re.fullmatch(r"[0-9a-z]+", made_id) for made_id in made)
    assert made == sorted(made)


def test_timestamps_are_utc_with_z():
    assert clock.iso(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000Z"


def test_passwords_cost_scrypts_interactive_login_parameters():
    # The in-process tests hash at a lower cost (tests/conftest.py); the service at this one.
    assert credentials.PASSWORD_COST == {"n": 2**14, "r": 8, "p": 1}
    assert credentials.password_hash("x").startswith("scrypt$")


def test_keys_and_passwords_are_stored_as_hashes():
    key = credentials.new_api_key("0123456789abcdef")
    assert key not in credentials.api_key_hash(key)
    stored = credentials.password_hash("hunter22")
    assert "hunter22" not in stored
    assert credentials.password_matches("hunter22", stored)
    assert not credentials.password_matches("hunter23", stored)
