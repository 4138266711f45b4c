"""The regional-outage drill's figures (issue 47), on `make run-regions` at its default
settings (`FAILOVER_SECONDS` 10, a tick a minute): readers' non-200s, seconds to the first
write that succeeds after region a fails, from the incident's 201 to the webhook sink, from
the restore until both regions hold every acknowledged write, and duplicate webhooks."""

import pytest

from tests.e2e import regions_drill

pytestmark = pytest.mark.bench


def test_regional_outage_drill(tmp_path):
    figures = regions_drill.figures_of(tmp_path, regions_drill.run)
    print()
    print(f"reads at PORT: {figures['reads']}, non-200: {figures['reader_non_200']}")
    print(
        f"first successful write after the failure: {figures['first_write_after_failure_seconds']:.2f} s (<= 15)"
    )
    print(f"incident's 201 to the sink: {figures['incident_to_sink_seconds']:.2f} s (<= 10)")
    print(
        f"restore until both regions hold every write: {figures['both_regions_hold_every_write_seconds']:.2f} s (<= 15)"
    )
    print(
        f"acknowledged writes: {figures['acknowledged_writes']}; webhooks: {figures['webhooks']}, duplicates: {figures['duplicate_webhooks']}"
    )
    regions_drill.check(figures)


def test_an_event_left_in_the_failed_region_is_sent_once_by_the_other(tmp_path):
    # A tick a second: b's sweep takes an event 30 s old at its next tick.
    figures = regions_drill.figures_of(
        tmp_path, regions_drill.run_left_event, SCHEDULE_TICK_SECONDS="1"
    )
    print()
    print(f"an event left unsent in a, sent by b after: {figures['sent_by_b_seconds']:.2f} s")
    print(f"webhooks after a's restore: {figures['webhooks']} (1)")
    assert figures["sent_by_b_seconds"] is not None
    assert figures["webhooks"] == 1
