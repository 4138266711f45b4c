"""The regional-outage drill (issue 47) in `make test`: `make run-regions`, region a stopped
mid-use; readers, writers and a subscriber see it through `PORT` (tests/e2e/regions_drill.py)."""

import pytest

from tests.e2e import regions_drill

pytestmark = pytest.mark.e2e


def test_a_region_fails_and_comes_back_without_a_reader_error_a_lost_write_or_a_duplicate(
    tmp_path,
):
    figures = regions_drill.figures_of(tmp_path, regions_drill.run, SCHEDULE_TICK_SECONDS="1")
    print(figures)
    regions_drill.check(figures)
