"""The fan-out end to end on the local stack, with no stand-ins (issue 37): 10,000 webhook
subscribers made through the API, the real recipients table, real claims, real SQS, a loopback
sink; the first and the last delivery after the create's answer, the rate, duplicates, next to
a bare concurrent POST loop with the delivery lanes' concurrency, measured in the same run.
Targets: all delivered, none twice, the first within 1 s, the last within 30 s."""

import pytest

from tests.bench.fanout_end_to_end import run

pytestmark = pytest.mark.bench
SUBSCRIBERS = 10_000


def test_webhook_fan_out_end_to_end_on_the_local_stack():
    figures = run(SUBSCRIBERS)
    print()
    print("\n".join(figures.lines()))
    assert figures.delivered == SUBSCRIBERS
    assert figures.duplicates == 0
