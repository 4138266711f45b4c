"""The public page charts each displayed metric: server-rendered SVG over a day, week or
month, a hover title per bucket, read when viewed (one Query a displayed metric)."""

import re
import time

import pytest

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
    titles = re.findall(r'<rect class="metric-column"[^>]*><title>([^<]*)</title></rect>', chart)
    assert len(titles) == 2
    assert [title.split(": ")[1] for title in titles] == ["20.0 ms", "10.0 ms"]
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
    assert "No data" in day and "metric-column" not in day
    answer = visitor.get(f"?metric_period={period}")
    assert answer.status == 200
    chart = chart_of(answer.text, metric["id"])
    assert chart.count('class="metric-column"') == 1
    assert "7.0 ms" in chart
    assert re.search(rf'aria-current="page" class="current">{period.title()}<', answer.text)
    # An unknown period shows the day.
    assert "No data" in chart_of(visitor.get("?metric_period=year").text, metric["id"])


def test_metric_names_are_escaped_and_the_page_stays_within_its_policy(world, visitor):
    metric = charted_metric(world, name="<script>alert(1)</script>", tooltip_description="<b>x</b>")
    assert add_point(world, metric["id"], int(time.time()) - 600, 3).status == 201
    publish(world)
    answer = visitor.get()
    assert "<script>" not in answer.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in chart_of(answer.text, metric["id"])
    assert "&lt;b&gt;x&lt;/b&gt;" in answer.text
    assert " style=" not in answer.text  # the policy allows no style attribute
    assert "script-src" not in answer.headers["Content-Security-Policy"]


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
    assert "metric-column" not in chart
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
