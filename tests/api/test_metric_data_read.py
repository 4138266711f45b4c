"""Reading a custom metric's stored points back (an extension: Statuspage's v1 API has no
read of metric data; the importer reads a source of ours through it), in both path styles."""

import time

import pytest

from tests.api.test_metric_windows import store_points
from tests.api.test_metrics import STYLES, add_point, make_metric, metric_path

DAY = 86400


def data_path(world, metric_id, suffix=""):
    return metric_path(world, metric_id, "/data" + suffix)


@pytest.mark.parametrize("suffix", STYLES)
def test_points_of_the_last_28_days_are_read_oldest_first(world, suffix):
    metric = make_metric(world).json
    now = (int(time.time()) - 60) // 30 * 30
    store_points(metric["id"], [(now - 29 * DAY, 99)])  # before the window
    for timestamp, value in ((now, 3), (now - 3 * DAY, 1.5), (now - DAY, 2)):
        assert add_point(world, metric["id"], timestamp, value).status == 201
    answer = world.api.get(data_path(world, metric["id"], suffix))
    assert answer.status == 200, answer.text
    assert answer.json == {
        "data": [
            {"timestamp": now - 3 * DAY, "value": 1.5},
            {"timestamp": now - DAY, "value": 2},
            {"timestamp": now, "value": 3},
        ]
    }


@pytest.mark.parametrize("suffix", STYLES)
def test_points_are_paged_by_the_last_timestamp_read(world, suffix, dynamodb_calls):
    metric = make_metric(world).json
    start = (int(time.time()) - DAY) // 30 * 30
    store_points(metric["id"], [(start + 30 * step, step) for step in range(5)])
    path = data_path(world, metric["id"], suffix)
    before = dynamodb_calls.count()
    first = world.api.get(f"{path}?limit=2").json["data"]
    assert "Scan" not in dynamodb_calls.operations[before:]
    assert [point["value"] for point in first] == [0, 1]
    second = world.api.get(f"{path}?limit=2&after={first[-1]['timestamp']}").json["data"]
    assert [point["value"] for point in second] == [2, 3]
    last = world.api.get(f"{path}?limit=2&after={second[-1]['timestamp']}").json["data"]
    assert [point["value"] for point in last] == [4]
    assert world.api.get(f"{path}?after={10**12}").json == {"data": []}


@pytest.mark.parametrize("suffix", STYLES)
def test_a_bad_cursor_or_limit_is_refused(world, suffix):
    path = data_path(world, make_metric(world).json["id"], suffix)
    for query in ("limit=0", "limit=1001", "after=-1", "after=soon"):
        answer = world.api.get(f"{path}?{query}")
        assert answer.status in (400, 422), (query, answer.text)
        assert answer.json["error"]


@pytest.mark.parametrize("suffix", STYLES)
def test_reading_an_unknown_metric_or_one_of_another_page_is_not_found(world, make_world, suffix):
    assert world.api.get(data_path(world, "nosuchmetric", suffix)).status == 404
    other = make_world("Other")
    theirs = make_metric(other).json
    assert world.api.get(data_path(world, theirs["id"], suffix)).status == 404
    # Their page, through our key: another organization's metric does not exist for us.
    path = f"/v1/pages/{other.page_id}/metrics/{theirs['id']}/data{suffix}"
    assert world.api.get(path).status == 404


@pytest.mark.parametrize("suffix", STYLES)
def test_reading_points_needs_a_key(world, suffix):
    metric = make_metric(world).json
    answer = world.api.as_key(None).get(data_path(world, metric["id"], suffix))
    assert answer.status == 401
    assert answer.json == {"error": "Could not authenticate"}
