"""Metrics in the console: providers linked and unlinked, metrics added, edited and deleted,
values entered one by one (in the page's time zone) or from a CSV previewed before it is
added, and the chart the public page draws; all under `page_configuration`."""

from datetime import UTC, datetime

NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)


def _api(world, path: str = "") -> str:
    return f"/v1/pages/{world.page_id}{path}"


def _custom_metric(world, name: str = "Latency", **fields) -> str:
    self_id = f"{world.page_id}self"
    created = world.api.post(
        _api(world, f"/metrics_providers/{self_id}/metrics"), {"metric": {"name": name, **fields}}
    )
    assert created.status == 201, created.text
    return created.json["id"]


def _values(world, metric_id: str) -> list[tuple[int, float]]:
    points = world.api.get(_api(world, f"/metrics/{metric_id}/data")).json["data"]
    return [(point["timestamp"], point["value"]) for point in points]


def _seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp())


def test_a_provider_is_linked_with_its_credentials_hidden_and_unlinked(console, make_user, world):
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}"
    listed = console.get(f"{base}/metrics").text
    assert "Self (values entered here" in listed and "Link a provider" in listed
    missing = console.post(
        f"{base}/metrics_providers/new",
        {"metrics_provider[type]": "Datadog", "metrics_provider[api_key]": "key-1"},
    )
    assert missing.status == 422 and "application_key" in missing.text
    console.get(f"{base}/metrics")
    answer = console.post(
        f"{base}/metrics_providers/new",
        {
            "metrics_provider[type]": "Datadog",
            "metrics_provider[email]": "",
            "metrics_provider[api_key]": "secret-api-key",
            "metrics_provider[application_key]": "secret-app-key",
            "metrics_provider[metric_base_uri]": "",
        },
    )
    assert answer.status == 303
    shown = console.get(answer.headers["location"]).text
    assert "Datadog provider linked" in shown and "secret-api-key" not in shown
    providers = world.api.get(_api(world, "/metrics_providers")).json
    datadog = next(p for p in providers if p["type"] == "Datadog")
    answer = console.post(f"{base}/metrics_providers/{datadog['id']}/delete", {})
    assert answer.status == 303
    assert [p["type"] for p in world.api.get(_api(world, "/metrics_providers")).json] == ["Self"]


def test_a_metric_is_added_edited_and_deleted_by_clicks(console, make_user, world):
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/metrics"
    console.get(base)
    answer = console.post(
        f"{base}/new",
        {
            "metrics_provider_id": f"{world.page_id}self",
            "metric[metric_identifier]": "",
            "metric[name]": "Latency",
            "metric[suffix]": "ms",
            "metric[tooltip_description]": "",
            "metric[decimal_places]": "1",
            "metric[y_axis_min]": "",
            "metric[y_axis_max]": "500",
            "metric[y_axis_hidden]": "false",
            "metric[display]": "true",
        },
    )
    assert answer.status == 303
    screen = console.get(answer.headers["location"]).text
    assert "Metric added" in screen and "Metric: Latency" in screen
    (metric,) = world.api.get(_api(world, "/metrics")).json
    assert (metric["suffix"], metric["decimal_places"], metric["display"]) == ("ms", 1, True)
    assert (metric["y_axis_min"], metric["y_axis_max"]) == (None, 500)

    answer = console.post(
        f"{base}/{metric['id']}",
        {
            "metric[name]": "API latency",
            "metric[suffix]": " s",
            "metric[tooltip_description]": "From the edge",
            "metric[decimal_places]": "2",
            "metric[y_axis_min]": "",
            "metric[y_axis_max]": "",
            "metric[y_axis_hidden]": "true",
            "metric[display]": "false",
        },
    )
    assert answer.status == 303
    edited = world.api.get(_api(world, f"/metrics/{metric['id']}")).json
    assert (edited["name"], edited["suffix"], edited["decimal_places"]) == ("API latency", " s", 2)
    assert (edited["y_axis_max"], edited["y_axis_hidden"], edited["display"]) == (None, True, False)
    bad_axis = console.post(
        f"{base}/{metric['id']}", {"metric[y_axis_min]": "10", "metric[y_axis_max]": "5"}
    )
    assert bad_axis.status == 422 and "y_axis_max" in bad_axis.text

    console.get(f"{base}/{metric['id']}")
    answer = console.post(f"{base}/{metric['id']}/delete", {})
    assert answer.status == 303
    assert "Metric API latency deleted" in console.get(answer.headers["location"]).text
    assert world.api.get(_api(world, "/metrics")).json == []


def test_a_value_is_read_in_the_pages_zone_and_charted_as_the_public_page_charts_it(
    console, make_user, world, freeze_clock
):
    freeze_clock(NOW)
    world.api.patch(_api(world), {"page": {"time_zone": "America/New_York"}})
    metric_id = _custom_metric(world, decimal_places=1, suffix="ms")
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/metrics/{metric_id}"
    form = console.get(screen).text
    assert "America/New_York, EST" in form and 'value="2026-11-24T10:00"' in form
    assert "Latency: no data over the past day" in form

    answer = console.post(
        f"{screen}/data", {"data[value]": "12.5", "data[timestamp]": "2026-11-24T09:00"}
    )
    assert answer.status == 303
    assert _values(world, metric_id) == [(_seconds("2026-11-24T14:00:00+00:00"), 12.5)]
    assert "Value added" in console.get(answer.headers["location"]).text
    charted = console.get(f"{screen}?period=week").text
    assert 'class="metric-chart"' in charted and "Average 12.5ms" in charted
    assert "Latency over the past week: 1 values" in charted

    late = console.post(
        f"{screen}/data", {"data[value]": "1", "data[timestamp]": "2026-11-25T09:00"}
    )
    assert late.status == 422 and "must not be in the future" in late.text
    not_a_number = console.post(
        f"{screen}/data", {"data[value]": "fast", "data[timestamp]": "2026-11-24T09:00"}
    )
    assert not_a_number.status == 422 and "value" in not_a_number.text
    past_the_calendar = console.post(
        f"{screen}/data", {"data[value]": "1", "data[timestamp]": "9999-12-31T23:59"}
    )
    assert past_the_calendar.status == 422 and "timestamp" in past_the_calendar.text
    assert len(_values(world, metric_id)) == 1


CSV = """timestamp,value
2026-11-24 08:00,1
2026-11-24 08:05,2.5
yesterday,3
2026-11-24 08:10,lots
2026-11-24 08:01,4
2026-11-24 08:05:10,5
2026-11-25 08:00,6
2026-10-01 08:00,7
1795531200,8
2026-11-24 08:10,9,extra
"""


def test_a_csv_is_previewed_with_each_refused_row_and_why_then_only_good_rows_are_added(
    console, make_user, world, freeze_clock
):
    freeze_clock(NOW)
    world.api.patch(_api(world), {"page": {"time_zone": "America/New_York"}})
    metric_id = _custom_metric(world)
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/metrics/{metric_id}"
    assert 'enctype="multipart/form-data"' in console.get(screen).text

    preview = console.post_files(
        f"{screen}/upload", {}, {"csv_file": ("latency.csv", CSV.encode(), "text/csv")}
    )
    assert preview.status == 200, preview.text
    text = preview.text
    assert "3 rows to add, 7 refused" in text
    for row, reason in (
        (4, "the time is neither a date and time nor Unix seconds"),
        (5, "the value is not a number"),
        (6, "the time is earlier than row 3"),
        (7, "the time is in the same 30-second interval as row 3"),
        (8, "the time is in the future"),
        (9, "the time is more than 28 days ago"),
        (11, "has 3 columns, not 2"),
    ):
        (line,) = [line for line in text.splitlines() if f"<tr><td>Row {row}</td>" in line]
        assert reason in line, (row, line)
    assert "2026-11-24 08:00 EST" in text  # shown in the page's zone
    assert _values(world, metric_id) == []  # nothing until confirmed

    carried = [value for value in _hidden_rows(text)]
    answer = console.post(f"{screen}/upload/confirm", [("rows[]", row) for row in carried])
    assert answer.status == 303
    assert "3 values added" in console.get(answer.headers["location"]).text
    assert _values(world, metric_id) == [
        (_seconds("2026-11-24T13:00:00+00:00"), 1),
        (_seconds("2026-11-24T13:05:00+00:00"), 2.5),
        (1795531200, 8),
    ]


def _hidden_rows(text: str) -> list[str]:
    import re

    return re.findall(r'name="rows\[\]" value="([^"]*)"', text)


def test_pasted_rows_are_previewed_as_a_file_is(console, make_user, world, freeze_clock):
    freeze_clock(NOW)
    metric_id = _custom_metric(world)
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/metrics/{metric_id}"
    console.get(screen)
    preview = console.post(f"{screen}/upload", {"csv": "2026-11-24T14:00Z,3\n"})
    assert preview.status == 200 and "1 row to add, 0 refused" in preview.text
    empty = console.post(f"{screen}/upload", {"csv": ""})
    assert empty.status == 422 and "choose a file or paste the values" in empty.text


def test_without_page_configuration_metrics_are_shown_but_not_changed(console, make_user, world):
    metric_id = _custom_metric(world)
    console.sign_in(make_user({"incident_manager": True}))
    base = f"/manage/pages/{world.page_id}"
    listed = console.get(f"{base}/metrics").text
    assert "Latency" in listed
    assert "Add a metric" not in listed and "Link a provider" not in listed
    shown = console.get(f"{base}/metrics/{metric_id}").text
    assert 'class="metric-chart"' in shown
    assert "Add a value" not in shown and "/upload" not in shown and "/delete" not in shown
    forged = [
        (f"{base}/metrics_providers/new", {"metrics_provider[type]": "NewRelic"}),
        (f"{base}/metrics/new", {"metrics_provider_id": f"{world.page_id}self"}),
        (f"{base}/metrics/{metric_id}", {"metric[name]": "Mine"}),
        (f"{base}/metrics/{metric_id}/data", {"data[value]": "1"}),
        (f"{base}/metrics/{metric_id}/upload", {"csv": "1795531200,1"}),
        (f"{base}/metrics/{metric_id}/upload/confirm", {"rows[]": "1795531200,1"}),
        (f"{base}/metrics/{metric_id}/delete", {}),
    ]
    for path, form in forged:
        assert console.post(path, form).status == 403, path
    assert [m["name"] for m in world.api.get(_api(world, "/metrics")).json] == ["Latency"]


def test_a_provider_metric_takes_no_values(console, make_user, world):
    provider = world.api.post(
        _api(world, "/metrics_providers"),
        {"metrics_provider": {"type": "NewRelic", "api_key": "k"}},
    ).json
    created = world.api.post(
        _api(world, f"/metrics_providers/{provider['id']}/metrics"),
        {"metric": {"name": "Apdex", "metric_identifier": "apdex"}},
    ).json
    console.sign_in(make_user())
    screen = f"/manage/pages/{world.page_id}/metrics/{created['id']}"
    shown = console.get(screen).text
    assert "come from its provider" in shown and "Add a value" not in shown
    assert console.post(f"{screen}/upload", {"csv": "1795531200,1"}).status == 405
