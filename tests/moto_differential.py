"""What the differential tests of the emulator's patches share: the same sequence run on
unpatched moto, then on patched moto, must answer and leave the same."""

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

from chalicelib.local import moto_costs

# Each test sets its own number of examples on top (`@settings(DIFFERENTIAL, max_examples=N)`).
DIFFERENTIAL = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def both_mottos():
    """Leaves the patches as the suite had them."""
    was_installed = moto_costs._installed
    yield
    moto_costs.uninstall()
    if was_installed:
        moto_costs.install()


def same_on_both(run: Callable[[list], object], sequence: list) -> None:
    moto_costs.uninstall()
    expected = run(sequence)
    assert moto_costs.install()
    assert run(sequence) == expected
