"""Times in the console: shown and read in the page's zone, named."""

from chalicelib.console import times


def test_a_time_is_shown_in_the_pages_zone_with_its_name():
    assert times.shown("2026-11-24T14:00:00Z", "America/New_York") == "2026-11-24 09:00 EST"
    assert times.shown("2026-07-01T14:00:00Z", "America/New_York") == "2026-07-01 10:00 EDT"


def test_a_form_time_is_read_in_the_pages_zone():
    assert times.from_input("2026-11-24T09:00", "America/New_York") == "2026-11-24T14:00:00Z"
    assert times.input_value("2026-11-24T14:00:00Z", "America/New_York") == "2026-11-24T09:00"


def test_an_unknown_zone_reads_as_utc():
    assert times.from_input("2026-11-24T09:00", "Mars/Olympus") == "2026-11-24T09:00:00Z"


def test_times_at_the_calendars_ends_are_left_for_the_schema_to_refuse():
    assert times.from_input("0001-01-01T00:00", "Asia/Tokyo") == "0001-01-01T00:00"
    assert times.from_input("9999-12-31T23:59", "America/New_York") == "9999-12-31T23:59"
    assert times.from_input("not a time", "America/New_York") == "not a time"
    assert times.shown("0001-01-01T00:00:00Z", "America/New_York").endswith("00:00 UTC")
