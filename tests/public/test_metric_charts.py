"""The public page charts each displayed metric: server-rendered SVG over a day, week or
month (a line over an area, a time axis in the page's time zone), a table of its values (which
the page's script reads on hover and focus), read when viewed (one Query a displayed metric)."""

import re
import time
from datetime import UTC, datetime

import pytest

from chalicelib import clock
from tests.api.test_metrics import add_point, make_metric, metric_path
from tests.public.conftest import publish


def charted_metric(world, name="API latency", **fields):
    answer = make_metric(world, name=name, display=True, suffix=" ms", decimal_places=1, **fields)
    assert answer.status == 201, answer.text
    return answer.json


def chart_of(html: str, metric_id: str) -> str:
    found = re.search(
        rf'<article class="metric" data-metric-id="{metric_id}">.*?</article>', html, re.DOTALL
    )
    assert found, html
    return found.group(0)


def values_of(chart: str) -> list[tuple[str, str]]:
    """The chart's table: (time, value) of each point, oldest first."""
    return re.findall(
        r'<tr data-x="[\d.]+" data-y="[\d.]+"[^>]*><td><time datetime="[^"]+">([^<]*)</time></td>'
        r"<td>([^<]*)</td></tr>",
        chart,
    )


def ticks_of(chart: str) -> list[str]:
    return re.findall(r'<text class="metric-tick-label"[^>]*>([^<]*)</text>', chart)


def test_a_displayed_metric_is_charted_with_its_values(world, visitor):
    metric = charted_metric(world)
    hidden = make_metric(world, name="Hidden metric").json
    now = int(time.time())
    for offset, value in ((3600, 10), (7200, 20)):
        assert add_point(world, metric["id"], now - offset, value).status == 201
    add_point(world, hidden["id"], now - 3600, 5)
    publish(world)
    answer = visitor.get()
    assert answer.status == 200, answer.text
    assert 'id="metrics"' in answer.text
    assert "Hidden metric" not in answer.text
    chart = chart_of(answer.text, metric["id"])
    assert "<h3>API latency</h3>" in chart
    assert '<svg class="metric-chart"' in chart
    assert "Average 15.0 ms" in chart
    assert [value for _, value in values_of(chart)] == ["20.0 ms", "10.0 ms"]
    assert re.search(r'<path class="metric-line" d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+"', chart)
    assert chart.count('class="metric-point"') == 2
    assert "20.0 ms" in chart and "0.0 ms" in chart  # the y axis
    for period in ("day", "week", "month"):
        assert f'href="?metric_period={period}#metrics"' in answer.text


@pytest.mark.parametrize("period", ["week", "month"])
def test_a_period_link_charts_the_longer_window(world, visitor, period):
    metric = charted_metric(world)
    old = int(time.time()) - 3 * 86400  # outside the day, inside a week and a month
    assert add_point(world, metric["id"], old, 7).status == 201
    publish(world)
    day = chart_of(visitor.get().text, metric["id"])
    assert "No data" in day and values_of(day) == []
    answer = visitor.get(f"?metric_period={period}")
    assert answer.status == 200
    chart = chart_of(answer.text, metric["id"])
    assert [value for _, value in values_of(chart)] == ["7.0 ms"]
    assert chart.count('class="metric-point"') == 1
    assert re.search(rf'aria-current="page" class="current">{period.title()}<', answer.text)
    # An unknown period shows the day.
    assert "No data" in chart_of(visitor.get("?metric_period=year").text, metric["id"])


def test_metric_names_are_escaped_and_the_page_stays_within_its_policy(world, visitor):
    metric = charted_metric(world, name="<script>alert(1)</script>", tooltip_description="<b>x</b>")
    assert add_point(world, metric["id"], int(time.time()) - 600, 3).status == 201
    publish(world)
    answer = visitor.get()
    assert "<script>alert" not in answer.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in chart_of(answer.text, metric["id"])
    assert "&lt;b&gt;x&lt;/b&gt;" in answer.text
    assert " style=" not in answer.text  # the policy allows no style attribute
    # The one script the policy allows is the page's own, by its hash.
    assert answer.text.count("<script>") == 1
    assert "'unsafe-inline'" not in answer.headers["Content-Security-Policy"]


@pytest.fixture
def frozen_clock():
    def at(moment: datetime) -> datetime:
        clock.freeze(moment)
        return moment

    yield at
    clock.freeze(None)


def test_a_chart_has_a_time_axis_and_a_table_in_the_page_time_zone(world, visitor, frozen_clock):
    now = frozen_clock(datetime(2030, 6, 1, 12, 2, tzinfo=UTC))  # 21:02 in Tokyo
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"time_zone": "Asia/Tokyo"}})
    metric = charted_metric(world)
    at = int(now.timestamp())
    for offset, value in ((2 * 3600, 12.5), (3600, 30), (60, 7)):
        assert add_point(world, metric["id"], at - offset, value).status == 201
    publish(world)
    chart = chart_of(visitor.get().text, metric["id"])
    # The day's axis: every fourth hour of Tokyo's clock, yesterday 21:02 to now.
    assert ticks_of(chart) == ["00:00", "04:00", "08:00", "12:00", "16:00", "20:00"]
    assert values_of(chart) == [
        ("Jun 1, 19:00", "12.5 ms"),
        ("Jun 1, 20:00", "30.0 ms"),
        ("Jun 1, 21:00", "7.0 ms"),
    ]
    assert '<th scope="col">Time (Asia/Tokyo)</th>' in chart
    assert 'aria-label="API latency over the past day: 3 values, average 16.5 ms"' in chart
    # The week's axis: each midnight, by date.
    week = chart_of(visitor.get("?metric_period=week").text, metric["id"])
    assert ticks_of(week) == [f"May {day}" for day in range(26, 32)] + ["Jun 1"]


def test_a_chart_is_drawn_by_attributes_and_percentages_only(world, visitor):
    """No `style` attribute (the policy forbids them) and no fixed width: the SVG has no
    viewBox, its places are percentages of its width, its line a stretched inner SVG."""
    metric = charted_metric(world)
    now = int(time.time())
    for offset in range(1, 61):  # more than the dots drawn: only the line
        assert add_point(world, metric["id"], now - offset * 300, offset).status == 201
    publish(world)
    chart = chart_of(visitor.get().text, metric["id"])
    assert " style=" not in chart
    assert 'class="metric-point"' not in chart
    assert len(values_of(chart)) == 60
    assert re.search(r'<svg class="metric-chart"[^>]*width="100%"', chart)
    assert 'preserveAspectRatio="none"' in chart and 'vector-effect="non-scaling-stroke"' in chart
    assert re.search(r'<text class="metric-tick-label" x="[\d.]+%"', chart)


@pytest.mark.usefixtures("app_views")
def test_a_view_reads_one_query_per_displayed_metric(world, visitor, dynamodb_calls):
    for number in range(2):
        charted_metric(world, name=f"Metric {number}")
    make_metric(world, name="Not displayed")
    publish(world)
    before = dynamodb_calls.count()
    assert visitor.get("?metric_period=month").status == 200
    assert sorted(dynamodb_calls.operations[before:]) == ["GetItem", "Query", "Query"]


def test_hiding_a_metric_takes_it_off_the_page(world, visitor):
    metric = charted_metric(world)
    publish(world)
    assert metric["id"] in visitor.get().text
    answer = world.api.patch(metric_path(world, metric["id"]), {"metric": {"display": False}})
    assert answer.status == 200, answer.text
    publish(world)
    assert 'id="metrics"' not in visitor.get().text


def test_the_status_api_carries_nothing_of_metrics(world, visitor):
    metric = charted_metric(world, name="Charted only on the HTML page")
    assert add_point(world, metric["id"], int(time.time()) - 600, 3).status == 201
    publish(world)
    for document in ("summary", "status", "components", "incidents"):
        answer = visitor.get(f"/api/v2/{document}.json")
        assert answer.status == 200
        assert "Charted only" not in answer.text and "metric" not in answer.text


@pytest.mark.usefixtures("app_views")
def test_a_displayed_provider_metric_is_charted_without_data(world, visitor, dynamodb_calls):
    """Points of Datadog, New Relic, Pingdom and Librato metrics are not fetched here: the page
    shows the metric with no data, and reads nothing for it."""
    providers = f"/v1/pages/{world.page_id}/metrics_providers"
    linked = world.api.post(
        providers, {"metrics_provider": {"type": "NewRelic", "api_key": "new-relic-key"}}
    )
    assert linked.status == 201, linked.text
    metric = world.api.post(
        f"{providers}/{linked.json['id']}/metrics",
        {"metric": {"name": "Apdex", "display": True, "metric_identifier": "apdex"}},
    )
    assert metric.status == 201, metric.text
    publish(world)
    before = dynamodb_calls.count()
    answer = visitor.get()
    assert answer.status == 200
    chart = chart_of(answer.text, metric.json["id"])
    assert "<h3>Apdex</h3>" in chart and "No data" in chart
    assert values_of(chart) == []
    assert dynamodb_calls.operations[before:] == ["GetItem"]  # the snapshot only


def test_a_custom_and_a_provider_metric_share_one_source_interface(world):
    from chalicelib.domain import errors, metric_sources, metrics

    custom = charted_metric(world)
    now = int(time.time())
    assert add_point(world, custom["id"], now - 600, 4).status == 201
    window = metrics.WINDOWS["day"]
    source = metric_sources.source_of(world.page_id, custom["id"], custom["metrics_provider_id"])
    assert [bucket.average for bucket in source.points(window) if bucket.points] == [4.0]
    provider = metric_sources.source_of(world.page_id, "m1", "a-datadog-provider")
    with pytest.raises(errors.Unavailable, match="not fetched by this service"):
        provider.points(window)
