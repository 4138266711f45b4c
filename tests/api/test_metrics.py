"""Metrics providers, metrics and data points (SPEC 2.13-2.15, 4.11, 8), in both path styles."""

import time

import pytest

from tests.api.conftest import _queue_url, _sqs

STYLES = ["", ".json"]


def providers_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/metrics_providers{suffix}"


def self_provider(world):
    listed = world.api.get(providers_path(world)).json
    return next(provider for provider in listed if provider["type"] == "Self")


def make_metric(world, style="", **fields):
    provider = self_provider(world)
    path = f"{providers_path(world)}/{provider['id']}/metrics{style}"
    return world.api.post(path, {"metric": {"name": "Latency", **fields}})


def metric_path(world, metric_id, suffix=""):
    return f"/v1/pages/{world.page_id}/metrics/{metric_id}{suffix}"


def test_available_providers_answer_without_authentication(http, world):
    for suffix in STYLES:
        answer = world.api.as_key(None).get(f"/v1/metrics_providers{suffix}")
        assert answer.status == 200, answer.text
        assert answer.json == [
            {"type": "Pingdom", "required_fields": ["email", "password", "application_key"]},
            {"type": "NewRelic", "required_fields": ["api_key"]},
            {"type": "Librato", "required_fields": ["email", "api_token"]},
            {"type": "Datadog", "required_fields": ["api_key", "application_key"]},
            {"type": "Self", "required_fields": []},
        ]


@pytest.mark.parametrize("suffix", STYLES)
def test_every_page_has_its_self_provider(world, suffix):
    answer = world.api.get(providers_path(world, suffix))
    assert answer.status == 200
    (provider,) = answer.json
    assert provider["type"] == "Self"
    assert provider["page_id"] == world.page_id
    assert provider["disabled"] is False
    got = world.api.get(f"{providers_path(world)}/{provider['id']}{suffix}")
    assert got.json == provider


def test_the_self_provider_cannot_be_linked_again_nor_deleted(world):
    answer = world.api.post(providers_path(world), {"metrics_provider": {"type": "Self"}})
    assert answer.status == 422
    provider = self_provider(world)
    assert world.api.delete(f"{providers_path(world)}/{provider['id']}").status == 409
    assert [p["type"] for p in world.api.get(providers_path(world)).json] == ["Self"]


@pytest.mark.parametrize("suffix", STYLES)
def test_linking_a_provider_needs_its_fields_and_never_shows_them(world, suffix):
    path = providers_path(world, suffix)
    missing = world.api.post(path, {"metrics_provider": {"type": "Pingdom", "email": "a@b.co"}})
    assert missing.status == 422
    assert missing.json["error"] == "Unprocessable entity"
    assert set(missing.json["errors"]) == {"password", "application_key"}
    assert world.api.post(path, {"metrics_provider": {"type": "Nagios"}}).status == 422
    assert world.api.post(path, {}).status == 422

    secret = "s3cret-datadog-key"
    body = {"type": "Datadog", "api_key": secret, "application_key": "app-key-1"}
    created = world.api.post(path, {"metrics_provider": body})
    assert created.status == 201, created.text
    assert created.json["type"] == "Datadog"
    assert secret not in created.text
    listed = world.api.get(path)
    assert [p["type"] for p in listed.json] == ["Self", "Datadog"]
    assert secret not in listed.text


@pytest.mark.parametrize("suffix", STYLES)
def test_a_linked_provider_is_updated_and_deleted_with_its_metrics(world, suffix):
    body = {"metrics_provider": {"type": "NewRelic", "api_key": "k"}}
    provider = world.api.post(providers_path(world), body).json
    path = f"{providers_path(world)}/{provider['id']}{suffix}"
    updated = world.api.patch(path, {"metrics_provider": {"metric_base_uri": "https://x.io"}})
    assert updated.status == 200, updated.text
    assert updated.json["metric_base_uri"] == "https://x.io"
    changed = world.api.put(path, {"metrics_provider": {"type": "Librato"}})
    assert changed.status == 422
    metrics_path = f"{providers_path(world)}/{provider['id']}/metrics{suffix}"
    linked = world.api.post(metrics_path, {"metric": {"name": "Apdex", "metric_identifier": "a"}})
    assert linked.status == 201, linked.text

    deleted = world.api.delete(path)
    assert deleted.status == 200
    assert deleted.json["id"] == provider["id"]
    assert world.api.get(path).status == 404
    assert world.api.get(metric_path(world, linked.json["id"])).status == 404


def test_another_organizations_provider_is_not_found(make_world):
    mine, theirs = make_world(), make_world()
    their_provider = self_provider(theirs)
    assert mine.api.get(f"{providers_path(theirs)}/{their_provider['id']}").status == 404
    assert mine.api.get(f"{providers_path(mine)}/{their_provider['id']}").status == 404


@pytest.mark.parametrize("suffix", STYLES)
def test_a_custom_metric_is_created_with_every_attribute(world, suffix):
    fields = {
        "suffix": "ms",
        "display": "t",
        "tooltip_description": "p95",
        "y_axis_min": 0,
        "y_axis_max": 500,
        "y_axis_hidden": True,
        "decimal_places": 2,
    }
    answer = make_metric(world, suffix, **fields)
    assert answer.status == 201, answer.text
    metric = answer.json
    assert metric["metrics_provider_id"] == self_provider(world)["id"]
    assert metric["name"] == "Latency"
    assert metric["display"] is True
    assert (metric["y_axis_min"], metric["y_axis_max"]) == (0, 500)
    assert metric["decimal_places"] == 2
    assert metric["most_recent_data_at"] is None
    assert set(metric) == {
        "id", "metrics_provider_id", "metric_identifier", "name", "display",
        "tooltip_description", "backfilled", "backfill_percentage", "y_axis_min", "y_axis_max",
        "y_axis_hidden", "suffix", "decimal_places", "most_recent_data_at", "last_fetched_at",
        "created_at", "updated_at", "reference_name",
    }  # fmt: skip
    assert world.api.get(metric_path(world, metric["id"], suffix)).json == metric
    assert world.api.get(f"/v1/pages/{world.page_id}/metrics{suffix}").json == [metric]


def test_a_custom_metric_is_created_from_a_form(world):
    provider = self_provider(world)
    path = f"{providers_path(world)}/{provider['id']}/metrics.json"
    body = {"metric": {"name": "Queue", "display": "f", "decimal_places": "1"}}
    answer = world.api.post(path, body, form=True)
    assert answer.status == 201, answer.text
    assert (answer.json["display"], answer.json["decimal_places"]) == (False, 1)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": None}, "name"),
        ({"y_axis_min": 10, "y_axis_max": 10}, "y_axis_max"),
        ({"y_axis_min": 10, "y_axis_max": 1}, "y_axis_max"),
        ({"decimal_places": 5}, "decimal_places"),
        ({"decimal_places": -1}, "decimal_places"),
    ],
)
def test_metric_validation_names_the_field(world, fields, field):
    answer = make_metric(world, **fields)
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert field in answer.json["errors"]


@pytest.mark.parametrize("suffix", STYLES)
def test_a_metric_is_updated_and_deleted(world, suffix):
    metric = make_metric(world, y_axis_min=0, y_axis_max=10).json
    path = metric_path(world, metric["id"], suffix)
    updated = world.api.patch(path, {"metric": {"name": "p99", "decimal_places": 3}})
    assert updated.status == 200, updated.text
    assert (updated.json["name"], updated.json["decimal_places"]) == ("p99", 3)
    assert world.api.put(path, {"metric": {"y_axis_min": 20}}).status == 422
    assert world.api.put(path, {"metric": {"decimal_places": 9}}).status == 422
    deleted = world.api.delete(path)
    assert (deleted.status, deleted.json["id"]) == (200, metric["id"])
    assert world.api.get(path).status == 404
    assert world.api.get(f"/v1/pages/{world.page_id}/metrics{suffix}").json == []


def test_metrics_are_listed_per_provider(world):
    custom = make_metric(world).json
    body = {"metrics_provider": {"type": "NewRelic", "api_key": "k"}}
    linked = world.api.post(providers_path(world), body).json
    path = f"{providers_path(world)}/{linked['id']}/metrics"
    other = world.api.post(path, {"metric": {"name": "Apdex"}}).json
    self_path = f"{providers_path(world)}/{self_provider(world)['id']}/metrics"
    assert [m["id"] for m in world.api.get(self_path).json] == [custom["id"]]
    assert [m["id"] for m in world.api.get(path + ".json").json] == [other["id"]]


def add_point(world, metric_id, timestamp, value, suffix=""):
    path = metric_path(world, metric_id, "/data" + suffix)
    return world.api.post(path, {"data": {"timestamp": timestamp, "value": value}})


@pytest.mark.parametrize("suffix", STYLES)
def test_a_point_is_cast_to_the_nearest_30_second_interval(world, suffix):
    metric = make_metric(world).json
    base = (int(time.time()) - 3600) // 30 * 30
    answer = add_point(world, metric["id"], base + 14, 5, suffix)
    assert answer.status == 201, answer.text
    assert answer.json == {"data": {"timestamp": base, "value": 5}}
    answer = add_point(world, metric["id"], base + 16, 7.5, suffix)
    assert answer.json == {"data": {"timestamp": base + 30, "value": 7.5}}
    shown = world.api.get(metric_path(world, metric["id"])).json
    assert shown["most_recent_data_at"] is not None


def test_the_last_point_of_an_interval_is_kept(world):
    from chalicelib.store.metrics import MetricPoint

    metric = make_metric(world).json
    base = (int(time.time()) - 3600) // 30 * 30
    for value in (1, 2, 3):
        assert add_point(world, metric["id"], base + value, value).status == 201
    add_point(world, metric["id"], base - 600, 9)  # older: most_recent_data_at stays
    assert [(p.at, p.value) for p in MetricPoint.query(metric["id"])] == [
        (base - 600, 9),
        (base, 3),
    ]
    shown = world.api.get(metric_path(world, metric["id"])).json
    assert shown["most_recent_data_at"].startswith(
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(base))
    )


@pytest.mark.parametrize("suffix", STYLES)
def test_points_too_old_or_in_the_future_are_refused(world, suffix):
    metric = make_metric(world).json
    now = int(time.time())
    for timestamp in (now - 29 * 86400, now + 3600):
        answer = add_point(world, metric["id"], timestamp, 1, suffix)
        assert answer.status == 422, answer.text
        assert "timestamp" in answer.json["errors"]
    assert add_point(world, metric["id"], now - 27 * 86400, 1, suffix).status == 201
    path = metric_path(world, metric["id"], "/data" + suffix)
    assert world.api.post(path, {"data": {"timestamp": now}}).status == 422
    assert world.api.post(path, {"data": {"timestamp": now, "value": "x"}}).status == 422


def test_data_for_a_provider_fed_metric_is_not_allowed(world):
    body = {"metrics_provider": {"type": "NewRelic", "api_key": "k"}}
    linked = world.api.post(providers_path(world), body).json
    path = f"{providers_path(world)}/{linked['id']}/metrics"
    metric = world.api.post(path, {"metric": {"name": "Apdex"}}).json
    answer = add_point(world, metric["id"], int(time.time()) - 60, 1)
    assert answer.status == 405
    assert answer.json["error"]
    assert add_point(world, "nosuchmetric", int(time.time()) - 60, 1).status == 404


@pytest.mark.parametrize("suffix", STYLES)
def test_deleting_data_deletes_every_point_and_returns_the_metric(world, suffix):
    from chalicelib.store.metrics import MetricPoint

    metric = make_metric(world).json
    base = (int(time.time()) - 3600) // 30 * 30
    for step in range(3):
        add_point(world, metric["id"], base + 30 * step, step)
    answer = world.api.delete(metric_path(world, metric["id"], "/data" + suffix))
    assert answer.status == 200, answer.text
    assert answer.json["id"] == metric["id"]
    assert answer.json["most_recent_data_at"] is None
    assert list(MetricPoint.query(metric["id"])) == []


def test_new_credentials_replace_the_stored_hashes_only(world):
    from chalicelib.store.base import plain_dict
    from chalicelib.store.metrics import MetricsProvider

    body = {"metrics_provider": {"type": "Librato", "email": "a@b.co", "api_token": "t1"}}
    provider = world.api.post(providers_path(world), body).json
    path = f"{providers_path(world)}/{provider['id']}"
    answer = world.api.patch(path, {"metrics_provider": {"api_token": "t2"}})
    assert answer.status == 200, answer.text
    stored = plain_dict(MetricsProvider.get(world.page_id, provider["id"]).credentials)
    assert set(stored) == {"email", "api_token"}
    assert "t2" not in stored.values() and "a@b.co" not in stored.values()


@pytest.fixture
def drain_metric_data(http):
    """Runs the app's metric-data queue function on whatever the queue holds."""
    from chalicelib import config
    from chalicelib.notify import queues

    sqs = _sqs()
    name = config.queue_name(queues.METRIC_DATA)
    url = _queue_url(queues.METRIC_DATA)

    def receive():
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        return [message["Body"] for message in messages]

    def run():
        while bodies := receive():
            event = http.events.generate_sqs_event(queue_name=name, message_bodies=bodies)
            http.lambda_.invoke("write_metric_data", event)

    while receive():  # what earlier tests left
        pass
    return run


@pytest.mark.parametrize("suffix", STYLES)
def test_a_batch_is_queued_and_written_with_batch_writes(world, suffix, drain_metric_data):
    from chalicelib.store.metrics import MetricPoint
    from tests.dynamodb_calls import recording

    metric = make_metric(world).json
    start = (int(time.time()) - 2 * 86400) // 30 * 30
    points = [{"timestamp": start + 30 * step, "value": step} for step in range(3000)]
    body = {"data": {metric["id"]: points}}
    answer = world.api.post(f"/v1/pages/{world.page_id}/metrics/data{suffix}", body)
    assert answer.status == 202, answer.text
    assert answer.json == body
    with recording() as calls:
        drain_metric_data()
    assert calls.count("BatchWriteItem") == 120  # 25 items per call
    assert calls.count("PutItem") == 0
    assert len(list(MetricPoint.query(metric["id"]))) == 3000
    shown = world.api.get(metric_path(world, metric["id"])).json
    assert shown["most_recent_data_at"] is not None


@pytest.mark.parametrize("suffix", STYLES)
def test_a_batch_is_refused_whole(world, suffix):
    path = f"/v1/pages/{world.page_id}/metrics/data{suffix}"
    metric = make_metric(world).json
    now = int(time.time()) - 60
    unknown = world.api.post(path, {"data": {"nosuchmetric": [{"timestamp": now, "value": 1}]}})
    assert unknown.status == 403
    too_many = [{"timestamp": now, "value": 1}] * 3001
    assert world.api.post(path, {"data": {metric["id"]: too_many}}).status == 403
    body = {"metrics_provider": {"type": "NewRelic", "api_key": "k"}}
    linked = world.api.post(providers_path(world), body).json
    metrics_path = f"{providers_path(world)}/{linked['id']}/metrics"
    fed = world.api.post(metrics_path, {"metric": {"name": "Apdex"}}).json
    answer = world.api.post(path, {"data": {fed["id"]: [{"timestamp": now, "value": 1}]}})
    assert answer.status == 405


def test_the_openapi_document_lists_every_metrics_operation(world):
    paths = world.api.as_key(None).get("/v1/openapi.json").json["paths"]
    expected = {
        "/v1/metrics_providers": {"get"},
        "/v1/pages/{page_id}/metrics_providers": {"get", "post"},
        "/v1/pages/{page_id}/metrics_providers/{metrics_provider_id}": {
            "get",
            "patch",
            "put",
            "delete",
        },
        "/v1/pages/{page_id}/metrics": {"get"},
        "/v1/pages/{page_id}/metrics/{metric_id}": {"get", "patch", "put", "delete"},
        "/v1/pages/{page_id}/metrics/{metric_id}/data": {"get", "post", "delete"},
        "/v1/pages/{page_id}/metrics/data": {"post"},
    }
    for path, methods in expected.items():
        assert path in paths, path
        assert methods <= set(paths[path]), path


def test_the_document_lists_the_provider_types_the_rules_know():
    from chalicelib.domain.metrics_providers import REQUIRED_FIELDS
    from chalicelib.schemas.metrics import PROVIDER_TYPES

    assert list(PROVIDER_TYPES) == list(REQUIRED_FIELDS)


@pytest.mark.parametrize("field", ["name", "decimal_places", "display", "y_axis_hidden", "suffix"])
def test_a_null_for_a_field_that_cannot_be_empty_is_a_422_naming_it(world, field):
    created = make_metric(world, **({} if field == "name" else {field: None}))
    if field != "name":
        assert created.status == 422, created.text
        assert field in created.json["errors"]
        created = make_metric(world)
    metric_id = created.json["id"]
    answer = world.api.put(metric_path(world, metric_id), {"metric": {field: None}})
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"]
    assert world.api.get(metric_path(world, metric_id)).status == 200


def test_a_null_provider_field_that_cannot_be_empty_is_a_422_naming_it(world):
    linked = world.api.post(
        providers_path(world), {"metrics_provider": {"type": "NewRelic", "api_key": "k"}}
    )
    assert linked.status == 201, linked.text
    path = f"{providers_path(world)}/{linked.json['id']}"
    for field in ("disabled", "type"):
        answer = world.api.patch(path, {"metrics_provider": {field: None}})
        assert answer.status == 422, answer.text
        assert field in answer.json["errors"]
