"""Built-in checks (issue 34, item 7): managed through the API by `page_configuration`, run by
the every-minute function against a loopback target, moving their component through
automation's rules, their response times kept as a custom metric."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.api import test_metrics, test_third_party_components
from tests.check_target import CheckTarget
from tests.summary_source import SummarySource

# Fixtures of those modules: the app's scheduled function as EventBridge invokes it, and the
# metric-data queue's function run on what the queue holds.
tick = test_third_party_components.tick
drain_metric_data = test_metrics.drain_metric_data


def checks_path(world, component_id, suffix=""):
    return f"/v1/pages/{world.page_id}/components/{component_id}/checks{suffix}"


def make_component(world, name="API"):
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    assert answer.status == 201, answer.text
    return answer.json


def make_check(world, component_id, **fields):
    answer = world.api.post(checks_path(world, component_id), {"check": fields})
    assert answer.status == 201, answer.text
    return answer.json


def failing_check(world, target, major_outage_after: int) -> tuple[dict, dict]:
    """A component and its check of a target that answers 503: degraded at the first failure,
    a major outage at `major_outage_after`."""
    component = make_component(world)
    thresholds = {"degraded_performance": 1, "major_outage": major_outage_after}
    check = make_check(world, component["id"], url=target.url, failure_thresholds=thresholds)
    target.answer(503)
    return component, check


def status_of(world, component_id):
    return world.api.get(f"/v1/pages/{world.page_id}/components/{component_id}").json["status"]


@pytest.fixture(autouse=True)
def no_checks_left(world):
    """A test's checks go with it: a later test's tick in this process would run them
    against a target that is gone, and move their components."""
    yield
    from chalicelib.store.checks import Check

    for check in Check.query(world.page_id):
        check.delete()


@pytest.fixture
def target():
    with CheckTarget() as running:
        yield running


@pytest.fixture
def minutes(freeze_clock):
    """`minutes(n)`: the service's clock n minutes after the test began."""
    start = datetime.now(UTC).replace(microsecond=0)
    freeze_clock(start)
    return lambda n: freeze_clock(start + timedelta(minutes=n))


def test_a_new_check_has_the_documented_defaults_and_a_hidden_response_time_metric(world, target):
    component = make_component(world, "Checkout")
    check = make_check(world, component["id"], url=target.url)
    assert check["method"] == "GET"
    assert check["expected_status_codes"] == ["200-399"]
    assert check["expected_body"] is None
    assert check["timeout_seconds"] == 10
    assert check["interval_seconds"] == 60
    assert check["failure_thresholds"] == {"degraded_performance": 1, "major_outage": 3}
    assert check["verdict"] == "operational" and check["last_result"] is None
    metric = world.api.get(f"/v1/pages/{world.page_id}/metrics/{check['metric_id']}").json
    assert metric["name"] == "Checkout response time"
    assert metric["suffix"] == "ms" and metric["display"] is False
    assert metric["metrics_provider_id"] == f"{world.page_id}self"  # custom: charted as any


def test_checks_are_listed_read_changed_and_deleted_with_their_metric(world, target):
    component = make_component(world)
    check = make_check(
        world,
        component["id"],
        url=target.url,
        method="POST",
        expected_status_codes=[204, "200-299"],
        expected_body="ok",
        timeout_seconds=5,
        interval_seconds=300,
        failure_thresholds={"partial_outage": 2},
    )
    listed = world.api.get(checks_path(world, component["id"])).json
    assert [item["id"] for item in listed] == [check["id"]]
    one = world.api.get(checks_path(world, component["id"], f"/{check['id']}")).json
    assert one["expected_status_codes"] == ["204", "200-299"]
    assert one["failure_thresholds"] == {"partial_outage": 2}

    changed = world.api.patch(
        checks_path(world, component["id"], f"/{check['id']}"),
        {"check": {"method": "HEAD", "expected_body": None, "interval_seconds": 120}},
    )
    assert changed.status == 200, changed.text
    assert changed.json["method"] == "HEAD" and changed.json["expected_body"] is None
    assert changed.json["interval_seconds"] == 120 and changed.json["timeout_seconds"] == 5

    deleted = world.api.delete(checks_path(world, component["id"], f"/{check['id']}"))
    assert deleted.status == 200, deleted.text
    assert world.api.get(checks_path(world, component["id"], f"/{check['id']}")).status == 404
    assert world.api.get(checks_path(world, component["id"])).json == []
    metric = world.api.get(f"/v1/pages/{world.page_id}/metrics/{check['metric_id']}")
    assert metric.status == 404


def test_a_form_encoded_check_is_read_as_json_is(world, target):
    component = make_component(world)
    body = {
        "check": {
            "url": target.url,
            "expected_status_codes": ["200", "300-304"],
            "failure_thresholds": {"degraded_performance": "2", "major_outage": "4"},
        }
    }
    answer = world.api.post(checks_path(world, component["id"]), body, form=True)
    assert answer.status == 201, answer.text
    assert answer.json["failure_thresholds"] == {"degraded_performance": 2, "major_outage": 4}
    assert answer.json["expected_status_codes"] == ["200", "300-304"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://example.com/"}, "url"),
        ({"method": "DELETE"}, "method"),
        ({"method": "HEAD", "expected_body": "ok"}, "expected_body"),
        ({"interval_seconds": 30}, "interval_seconds"),
        ({"timeout_seconds": 31}, "timeout_seconds"),
        ({"timeout_seconds": 0}, "timeout_seconds"),
        ({"expected_status_codes": ["2xx"]}, "expected_status_codes"),
        ({"expected_status_codes": ["399-200"]}, "expected_status_codes"),
        ({"expected_status_codes": []}, "expected_status_codes"),
        ({"failure_thresholds": {}}, "failure_thresholds"),
        ({"failure_thresholds": {"operational": 1}}, "failure_thresholds"),
        ({"failure_thresholds": {"major_outage": 0}}, "failure_thresholds"),
        (
            {"failure_thresholds": {"degraded_performance": 3, "major_outage": 2}},
            "failure_thresholds",
        ),
    ],
)
def test_a_check_that_breaks_a_rule_is_a_422_naming_the_field(world, target, fields, field):
    component = make_component(world)
    body = {"url": target.url, **fields} if fields and "url" not in fields else fields
    answer = world.api.post(checks_path(world, component["id"]), {"check": body})
    assert answer.status == 422, answer.text
    assert any(name.startswith(field) for name in answer.json["errors"]), answer.json


def test_an_update_that_breaks_a_rule_changes_nothing(world, target):
    component = make_component(world)
    check = make_check(world, component["id"], url=target.url, expected_body="ok")
    path = checks_path(world, component["id"], f"/{check['id']}")
    refused = world.api.patch(path, {"check": {"method": "HEAD"}})
    assert refused.status == 422, refused.text
    assert list(refused.json["errors"]) == ["expected_body"]
    assert world.api.get(path).json["method"] == "GET"


def test_a_group_and_a_third_party_component_take_no_check(world, target):
    member = make_component(world, "Member")
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "Group", "components": [member["id"]]}},
    ).json
    refused = world.api.post(checks_path(world, group["id"]), {"check": {"url": target.url}})
    assert refused.status == 422, refused.text
    assert list(refused.json["errors"]) == ["component_id"]
    with SummarySource({"vendor-api": "operational"}) as source:
        link = {"summary_url": source.url, "component_id": "vendor-api"}
        follower = world.api.post(
            f"/v1/pages/{world.page_id}/components",
            {"component": {"name": "Vendor", "third_party": link}},
        ).json
        refused = world.api.post(checks_path(world, follower["id"]), {"check": {"url": target.url}})
    assert refused.status == 422, refused.text
    assert list(refused.json["errors"]) == ["component_id"]


def test_unknown_components_and_checks_of_other_pages_are_404(world, make_world, target):
    other = make_world("Other")
    component = make_component(world)
    check = make_check(world, component["id"], url=target.url)
    assert world.api.get(checks_path(world, "nosuchcomponent")).status == 404
    assert (
        world.api.post(checks_path(world, "nosuchcomponent"), {"check": {"url": target.url}}).status
        == 404
    )
    theirs = f"/v1/pages/{world.page_id}/components/{component['id']}/checks/{check['id']}"
    assert other.api.get(theirs).status == 404
    elsewhere = make_component(world, "Elsewhere")
    assert world.api.get(checks_path(world, elsewhere["id"], f"/{check['id']}")).status == 404


def test_checks_need_page_configuration(world, target):
    from chalicelib.domain import organizations

    component = make_component(world)
    check = make_check(world, component["id"], url=target.url)
    member = organizations.create_user(world.organization_id, "incidents@example.com")
    organizations.set_page_roles(
        member, {world.page_id: {"incident_manager": True, "page_configuration": False}}
    )
    without_role = world.api.as_key(organizations.create_api_key(member))
    one = checks_path(world, component["id"], f"/{check['id']}")
    assert without_role.get(checks_path(world, component["id"])).status == 403
    assert without_role.get(one).status == 403
    assert (
        without_role.post(
            checks_path(world, component["id"]), {"check": {"url": target.url}}
        ).status
        == 403
    )
    assert without_role.patch(one, {"check": {"timeout_seconds": 3}}).status == 403
    assert without_role.delete(one).status == 403


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/health",
        "http://10.1.2.3/health",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:192.168.0.1]/",
    ],
)
def test_private_targets_are_refused_without_the_setting(world, monkeypatch, url):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS", raising=False)
    component = make_component(world)
    answer = world.api.post(checks_path(world, component["id"]), {"check": {"url": url}})
    assert answer.status == 422, answer.text
    assert list(answer.json["errors"]) == ["url"]


def test_a_check_refused_its_address_at_run_time_fails(world, target, tick, minutes, monkeypatch):
    component = make_component(world)
    check = make_check(world, component["id"], url=target.url)
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS", raising=False)
    minutes(0)
    tick()
    assert target.requests == []  # never called
    result = world.api.get(checks_path(world, component["id"], f"/{check['id']}")).json
    assert result["last_result"]["ok"] is False
    assert "may not be called" in result["last_result"]["error"]


def test_failures_move_the_component_by_the_thresholds_and_a_success_restores_it(
    world, target, tick, minutes
):
    component, check = failing_check(world, target, major_outage_after=3)
    seen = []
    for minute in range(3):
        minutes(minute)
        tick()
        seen.append(status_of(world, component["id"]))
    assert seen == ["degraded_performance", "degraded_performance", "major_outage"]
    shown = world.api.get(checks_path(world, component["id"], f"/{check['id']}")).json
    assert shown["consecutive_failures"] == 3 and shown["verdict"] == "major_outage"
    assert shown["last_result"]["status_code"] == 503
    assert shown["last_result"]["error"] == "answered 503, expected 200-399"

    target.answer(200)
    minutes(3)
    tick()
    assert status_of(world, component["id"]) == "operational"
    shown = world.api.get(checks_path(world, component["id"], f"/{check['id']}")).json
    assert shown["consecutive_failures"] == 0 and shown["last_result"]["ok"] is True
    assert len(target.requests) == 4


def test_a_check_runs_once_per_interval(world, target, tick, minutes):
    component = make_component(world)
    make_check(world, component["id"], url=target.url, interval_seconds=120)
    minutes(0)
    tick()
    tick()
    minutes(1)
    tick()
    assert len(target.requests) == 1
    minutes(2)
    tick()
    assert len(target.requests) == 2


def test_an_answer_without_the_expected_text_is_a_failure(world, target, tick, minutes):
    component = make_component(world)
    make_check(
        world,
        component["id"],
        url=target.url,
        expected_body="all good",
        failure_thresholds={"major_outage": 1},
    )
    target.answer(200, b"database unreachable")
    minutes(0)
    tick()
    assert status_of(world, component["id"]) == "major_outage"


def test_a_slow_target_fails_at_the_check_timeout(world, tick, minutes):
    component = make_component(world)
    with CheckTarget(delay=2.5) as slow:
        make_check(
            world,
            component["id"],
            url=slow.url,
            timeout_seconds=1,
            failure_thresholds={"partial_outage": 1},
        )
        minutes(0)
        tick()
    assert status_of(world, component["id"]) == "partial_outage"
    listed = world.api.get(checks_path(world, component["id"])).json
    assert listed[0]["last_result"]["error"] == "no answer within 1 s"
    assert listed[0]["last_result"]["response_time_ms"] is None


def test_a_failing_check_leaves_a_component_held_by_an_open_incident(world, target, tick, minutes):
    component = make_component(world)
    make_check(world, component["id"], url=target.url, failure_thresholds={"major_outage": 1})
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Investigating", "components": {component["id"]: "partial_outage"}}},
    )
    assert incident.status == 201, incident.text
    target.answer(500)
    minutes(0)
    tick()
    assert status_of(world, component["id"]) == "partial_outage"


def test_response_times_are_points_of_the_checks_metric(
    world, target, tick, minutes, drain_metric_data
):
    component = make_component(world)
    check = make_check(world, component["id"], url=target.url)
    for minute in range(2):
        minutes(minute)
        tick()
    drain_metric_data()
    data = world.api.get(f"/v1/pages/{world.page_id}/metrics/{check['metric_id']}/data").json
    values = [point["value"] for point in data["data"]]
    assert len(values) == 2 and all(0 < value < 5000 for value in values)
    metric = world.api.get(f"/v1/pages/{world.page_id}/metrics/{check['metric_id']}").json
    assert metric["most_recent_data_at"] is not None


def test_the_checks_of_a_deleted_component_go_at_the_next_tick(world, target, tick, minutes):
    component = make_component(world)
    check = make_check(world, component["id"], url=target.url)
    world.api.delete(f"/v1/pages/{world.page_id}/components/{component['id']}")
    minutes(0)
    tick()
    from chalicelib.store.checks import Check

    with pytest.raises(Check.DoesNotExist):
        Check.get(world.page_id, check["id"], consistent_read=True)
    assert world.api.get(f"/v1/pages/{world.page_id}/metrics/{check['metric_id']}").status == 404


def test_the_openapi_document_describes_checks(world):
    document = world.api.get("/v1/openapi.json").json
    path = "/v1/pages/{page_id}/components/{component_id}/checks"
    assert set(document["paths"][path]) == {"get", "post"}
    assert set(document["paths"][path + "/{check_id}"]) == {"get", "patch", "put", "delete"}
    assert "CheckOut" in document["components"]["schemas"]


def test_an_edit_while_a_run_applies_its_verdict_keeps_the_run_counted(
    world, target, tick, minutes, monkeypatch
):
    """The check's timeout is changed while a run is asking automation for its verdict: the
    edit stands (and brings the next run), and so does the run, whose verdict the component
    already shows; the next failure is the second, not the first again."""
    from chalicelib.domain import checks

    component = make_component(world)
    check = make_check(
        world,
        component["id"],
        url=target.url,
        failure_thresholds={"degraded_performance": 1, "major_outage": 2},
    )
    path = checks_path(world, component["id"], f"/{check['id']}")
    target.answer(503)
    asked = checks._asked

    def asked_then_edited(*arguments):
        answered = asked(*arguments)
        minutes(0.5)  # the edit comes after the tick began
        assert world.api.patch(path, {"check": {"timeout_seconds": 9}}).status == 200
        return answered

    minutes(0)
    with monkeypatch.context() as during:
        during.setattr(checks, "_asked", asked_then_edited)
        tick()
    shown = world.api.get(path).json
    assert (shown["timeout_seconds"], shown["consecutive_failures"]) == (9, 1)
    assert shown["verdict"] == status_of(world, component["id"]) == "degraded_performance"

    minutes(1)  # the edit brought the next run to this tick
    tick()
    assert status_of(world, component["id"]) == "major_outage"
    assert world.api.get(path).json["consecutive_failures"] == 2


def test_a_tick_invoked_twice_counts_a_failure_once(world, target, tick, minutes, monkeypatch):
    """EventBridge may invoke the every-minute function twice for one minute: the second
    invocation begins while the first is still probing. Both probe; one run is counted, so
    a first failure does not reach a threshold of two."""
    from chalicelib.jobs import checks as check_runs

    component, check = failing_check(world, target, major_outage_after=2)
    probe_all = check_runs.probe_all
    again: list[bool] = []

    def probed_while_invoked_again(due):
        found = probe_all(due)
        if not again:
            again.append(True)
            minutes(0.1)  # the second invocation, seconds later
            tick()
        return found

    minutes(0)
    monkeypatch.setattr(check_runs, "probe_all", probed_while_invoked_again)
    tick()
    assert len(target.requests) == 2
    shown = world.api.get(checks_path(world, component["id"], f"/{check['id']}")).json
    assert shown["consecutive_failures"] == 1
    assert status_of(world, component["id"]) == "degraded_performance"

    minutes(1.1)  # a minute after the run counted, the next is the second failure
    monkeypatch.setattr(check_runs, "probe_all", probe_all)
    tick()
    assert status_of(world, component["id"]) == "major_outage"
