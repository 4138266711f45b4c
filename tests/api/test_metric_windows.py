"""A metric's points over a day, week or month: one Query, averaged into buckets on read."""

from datetime import UTC, datetime

import pytest

from tests.api.test_metrics import add_point, make_metric

WIDTHS = {"day": (300, 288), "week": (3600, 168), "month": (21600, 120)}


def store_points(metric_id, points):
    from chalicelib.store.metrics import MetricPoint

    with MetricPoint.batch_write() as writes:
        for at, value in points:
            writes.save(MetricPoint(metric_id, at, value=value))


@pytest.mark.parametrize("name", WIDTHS)
def test_a_window_has_its_buckets_aligned_and_ending_now(world, name):
    from chalicelib.domain import metrics

    now = datetime(2030, 1, 15, 12, 7, 40, tzinfo=UTC)
    window = metrics.WINDOWS[name]
    width, count = WIDTHS[name]
    buckets = metrics.buckets_of("no-points-here", window, now)
    assert len(buckets) == count
    assert all(bucket.start % width == 0 for bucket in buckets)
    assert buckets[-1].start <= now.timestamp() < buckets[-1].start + width
    assert [b.start for b in buckets] == [buckets[0].start + i * width for i in range(count)]
    assert all(bucket.average is None and bucket.points == 0 for bucket in buckets)


def test_a_day_averages_points_into_five_minute_buckets_with_one_query(world, dynamodb_calls):
    from chalicelib.domain import metrics

    metric = make_metric(world).json
    now = datetime(2030, 1, 15, 12, 7, 40, tzinfo=UTC)
    current = int(now.timestamp()) // 300 * 300
    store_points(
        metric["id"],
        [
            (current, 2),
            (current + 30, 4),  # same bucket as the one before: averaged to 3
            (current - 300, 10),  # the bucket before
            (current - 86400, 99),  # before the window
            (current + 600, 77),  # after now
        ],
    )
    before = dynamodb_calls.count()
    buckets = metrics.buckets_of(metric["id"], metrics.WINDOWS["day"], now)
    assert dynamodb_calls.operations[before:] == ["Query"]
    assert (buckets[-1].average, buckets[-1].points) == (3, 2)
    assert (buckets[-2].average, buckets[-2].points) == (10, 1)
    assert sum(bucket.points for bucket in buckets) == 3


@pytest.mark.parametrize("name", ["week", "month"])
def test_longer_windows_average_wider_buckets_with_one_query(world, dynamodb_calls, name):
    from chalicelib.domain import metrics

    metric = make_metric(world).json
    width, count = WIDTHS[name]
    now = datetime(2030, 1, 15, 12, 7, 40, tzinfo=UTC)
    current = int(now.timestamp()) // width * width
    first = current - (count - 1) * width
    store_points(metric["id"], [(first, 1), (first + 30, 2), (first + 60, 6), (current, 5)])
    before = dynamodb_calls.count()
    buckets = metrics.buckets_of(metric["id"], metrics.WINDOWS[name], now)
    assert dynamodb_calls.operations[before:] == ["Query"]
    assert (buckets[0].average, buckets[0].points) == (3, 3)
    assert buckets[-1].average == 5
    assert all(bucket.average is None for bucket in buckets[1:-1])


def test_points_sent_through_the_api_are_read_back_in_their_bucket(world):
    import time

    from chalicelib.domain import metrics

    metric = make_metric(world).json
    at = int(time.time()) - 600
    assert add_point(world, metric["id"], at, 42).status == 201
    buckets = metrics.buckets_of(metric["id"], metrics.WINDOWS["day"])
    assert [bucket.average for bucket in buckets if bucket.points] == [42]
