"""Built-in checks in the console (issue 34, item 7): the page's components with their checks,
a check added, edited and deleted (after a confirmation) with every field the API takes, its
last result and its response-time metric shown after a run; all under `page_configuration`."""

from tests.api import test_checks
from tests.api.test_integrations import make_component as _component
from tests.console.test_integration_screens import _api

# The app's every-minute function, a loopback target, and no check left for a later tick.
tick = test_checks.tick
target = test_checks.target
no_checks_left = test_checks.no_checks_left


def _checks(world, component_id: str) -> list[dict]:
    return world.api.get(_api(world, f"/components/{component_id}/checks")).json


def _form(url: str, **fields: str) -> dict:
    """A check form as the screen posts it."""
    return {
        "check[url]": url,
        "check[method]": fields.get("method", "GET"),
        "check[expected_status_codes]": fields.get("codes", "200-399"),
        "check[expected_body]": fields.get("body", ""),
        "check[timeout_seconds]": fields.get("timeout", "10"),
        "check[interval_seconds]": fields.get("interval", "60"),
        "check[failure_thresholds][degraded_performance]": fields.get("degraded", "1"),
        "check[failure_thresholds][partial_outage]": fields.get("partial", ""),
        "check[failure_thresholds][major_outage]": fields.get("major", "3"),
    }


def test_a_check_is_added_edited_and_deleted_by_clicks(console, make_user, world, target):
    shop = _component(world, "Shop")
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    listed = console.get(f"{screens}/integrations")
    assert f'href="/manage/pages/{world.page_id}/checks">Checks</a>' in listed.text
    listed = console.get(f"{screens}/checks").text
    assert "Shop" in listed and "No checks." in listed and "Add a check" in listed
    new = console.get(f"{screens}/components/{shop}/checks/new")
    assert new.status == 200 and 'value="200-399"' in new.text
    added = console.post(
        f"{screens}/components/{shop}/checks/new",
        _form(
            target.url,
            method="POST",
            codes="200-299, 301",
            body="all good",
            timeout="5",
            interval="120",
            degraded="2",
            partial="",
            major="4",
        ),
    )
    assert added.status == 303, added.text
    shown = console.get(added.headers["location"]).text
    assert "Check of Shop added" in shown and "Not run yet" in shown
    (check,) = _checks(world, shop)
    assert (check["url"], check["method"]) == (target.url, "POST")
    assert check["expected_status_codes"] == ["200-299", "301"]
    assert check["expected_body"] == "all good"
    assert (check["timeout_seconds"], check["interval_seconds"]) == (5, 120)
    assert check["failure_thresholds"] == {"degraded_performance": 2, "major_outage": 4}
    assert f"/metrics/{check['metric_id']}" in shown and "not on the public page" in shown

    one = f"{screens}/components/{shop}/checks/{check['id']}"
    form = console.get(one).text
    assert 'value="200-299, 301"' in form and 'value="all good"' in form
    saved = console.post(one, _form(target.url, codes="204", body="", partial="3", major="5"))
    assert saved.status == 303, saved.text
    (check,) = _checks(world, shop)
    assert check["expected_status_codes"] == ["204"] and check["expected_body"] is None
    assert check["failure_thresholds"] == {
        "degraded_performance": 1,
        "partial_outage": 3,
        "major_outage": 5,
    }

    confirm = console.get(f"{one}/delete")
    assert confirm.status == 200 and "its response-time metric is deleted" in confirm.text
    assert _checks(world, shop)  # nothing deleted before the confirmation
    deleted = console.post(f"{one}/delete", {})
    assert deleted.status == 303
    assert "Check of Shop deleted" in console.get(deleted.headers["location"]).text
    assert _checks(world, shop) == []
    assert world.api.get(_api(world, f"/metrics/{check['metric_id']}")).status == 404


def test_the_last_result_shows_after_a_run_in_the_page_zone(
    console, make_user, world, target, tick
):
    zone = {"page": {"time_zone": "Asia/Tokyo"}}
    assert world.api.patch(_api(world), zone).status == 200
    shop = _component(world, "Shop")
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    console.get(f"{screens}/checks")
    target.answer(503)
    added = console.post(f"{screens}/components/{shop}/checks/new", _form(target.url))
    assert added.status == 303, added.text
    tick()
    (check,) = _checks(world, shop)
    assert check["last_result"] is not None, check
    listed = console.get(f"{screens}/checks").text
    assert "Failure at" in listed and " JST: 503" in listed
    assert "answered 503, expected 200-399" in listed
    assert "1 failure in a row" in listed and "Degraded Performance" in listed
    one = console.get(f"{screens}/components/{shop}/checks/{check['id']}").text
    assert "Failure at" in one and "Its response times (a metric)" in one


def test_bad_check_input_is_a_form_problem_and_changes_nothing(console, make_user, world, target):
    shop = _component(world, "Shop")
    member = _component(world, "Member")
    group = world.api.post(
        _api(world, "/component-groups"),
        {"component_group": {"name": "Group", "components": [member]}},
    ).json
    console.sign_in(make_user())
    screens = f"/manage/pages/{world.page_id}"
    console.get(f"{screens}/checks")
    new = f"{screens}/components/{shop}/checks/new"
    codes = console.post(new, _form(target.url, codes="2xx"))
    assert codes.status == 422 and "expected_status_codes" in codes.text
    order = console.post(new, _form(target.url, degraded="3", major="2"))
    assert order.status == 422 and "a worse status needs more" in order.text
    interval = console.post(new, _form(target.url, interval="30"))
    assert interval.status == 422 and "interval_seconds" in interval.text
    of_group = console.post(f"{screens}/components/{group['id']}/checks/new", _form(target.url))
    assert of_group.status == 422 and "a group" in of_group.text
    assert _checks(world, shop) == []
    assert console.get(f"{screens}/components/nosuchcomponent/checks/new").status == 404


def test_checks_need_page_configuration_and_a_csrf_token(console, make_user, world, target):
    shop = _component(world, "Shop")
    made = world.api.post(
        _api(world, f"/components/{shop}/checks"), {"check": {"url": target.url + "?key=s3cret"}}
    ).json
    screens = f"/manage/pages/{world.page_id}"
    console.sign_in(make_user())
    console.get(f"{screens}/checks")
    forged = console.post(f"{screens}/components/{shop}/checks/new", _form(target.url), csrf=False)
    assert forged.status == 403

    other = type(console)(console.client)
    other.sign_in(make_user({"incident_manager": True, "page_configuration": False}))
    shown = other.get(f"{screens}/checks")
    assert shown.status == 200 and "page configuration role" in shown.text
    assert "s3cret" not in shown.text and "Add a check" not in shown.text
    one = f"{screens}/components/{shop}/checks/{made['id']}"
    assert other.get(f"{screens}/components/{shop}/checks/new").status == 403
    assert other.get(one).status == 403
    assert other.post(f"{screens}/components/{shop}/checks/new", _form(target.url)).status == 403
    assert other.post(one, _form(target.url, timeout="3")).status == 403
    assert other.post(f"{one}/delete", {}).status == 403
    assert [check["timeout_seconds"] for check in _checks(world, shop)] == [10]
