"""Email at SES's sending rate on the local stack (issue 45): 1,000 email subscribers made
through the API, the emulator's SES at `SES_MAX_SEND_RATE=50`, an incident that tells them
all. Every one gets exactly one email, none is quarantined, and the last is sent within 1.5x
the 20 s the rate allows (and not faster than the rate: 18 s at least).
`EMAIL_BENCH_SUBSCRIBERS=10000 make bench` prints the same at another size."""

import os

import pytest

from tests.bench.email_rate_end_to_end import run

pytestmark = pytest.mark.bench
RATE = 50
SUBSCRIBERS = int(os.environ.get("EMAIL_BENCH_SUBSCRIBERS", "1000"))


def test_email_at_the_accounts_sending_rate_on_the_local_stack():
    figures = run(SUBSCRIBERS, RATE)
    print()
    print("\n".join(figures.lines()))
    assert figures.quota["MaxSendRate"] == RATE
    assert figures.reached == SUBSCRIBERS
    assert figures.duplicates == 0
    assert figures.quarantined == 0
    assert 0.9 * figures.allowed <= figures.last <= 1.5 * figures.allowed
