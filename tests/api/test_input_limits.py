"""Input limits through HTTP: each over-limit body is a 4xx naming its limit, refused before
anything is stored, and never a 5xx (the API client fails the test on any 5xx)."""

import json

import pytest

from chalicelib.http.decode import MAX_BODY_BYTES, MAX_NESTING


def nested(levels: int, leaf="x") -> dict:
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


def incidents(world, suffix=""):
    return f"/v1/pages/{world.page_id}/incidents{suffix}"


def incident_count(world) -> int:
    return len(world.api.get(incidents(world)).json)


def assert_refused_for_nesting(answer):
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert answer.json["errors"] == {"body": [f"nests more than {MAX_NESTING} levels"]}


@pytest.mark.parametrize("archived", [False, True])
def test_metadata_nested_within_the_limit_is_kept(world, archived):
    # The body is the outer object, `incident` and `metadata`: 30 levels are left inside.
    metadata = {"jira": nested(MAX_NESTING - 4)}
    answer = world.api.post(
        incidents(world, ".json" if archived else ""),
        {"incident": {"name": "deep", "metadata": metadata}},
    )
    assert answer.status == 201, answer.text
    assert answer.json["metadata"] == metadata


def nested_json(levels: int) -> str:
    """`nested(levels)` as JSON, written out (the encoder would run out of stack first)."""
    return '{"k": ' * levels + '"x"' + "}" * levels


@pytest.mark.parametrize("levels", [MAX_NESTING - 2, 1000])
def test_metadata_nested_beyond_the_limit_is_refused(world, levels):
    body = '{"incident": {"name": "deep", "metadata": {"jira": ' + nested_json(levels) + "}}}"
    answer = world.api.post(incidents(world), body)
    assert_refused_for_nesting(answer)
    assert incident_count(world) == 0


def test_json_nested_far_beyond_what_a_parser_follows_is_refused(world):
    body = "[" * 100_000 + "]" * 100_000
    assert_refused_for_nesting(world.api.post(incidents(world), body))
    body = '{"incident": ' + '{"k": ' * 100_000 + "1" + "}" * 100_001
    assert_refused_for_nesting(world.api.post(incidents(world), body))


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, 5000])
def test_form_keys_nested_beyond_the_limit_are_refused(world, levels):
    key = "incident[metadata]" + "[k]" * levels
    answer = world.api.post(incidents(world), [("incident[name]", "deep"), (key, "x")], form=True)
    assert_refused_for_nesting(answer)
    assert incident_count(world) == 0


@pytest.mark.parametrize("form", [False, True])
def test_a_body_over_the_size_limit_is_413_whatever_key_holds_it(world, form):
    filler = "x" * (MAX_BODY_BYTES + 1)
    if form:
        body = [("incident[name]", "big"), ("unknown", filler)]
    else:
        body = json.dumps({"incident": {"name": "big"}, "unknown": filler})
    answer = world.api.post(incidents(world), body, form=form)
    assert answer.status == 413, answer.text
    assert answer.json == {
        "error": "Request entity too large",
        "errors": {"body": [f"is larger than {MAX_BODY_BYTES} bytes"]},
    }
    assert incident_count(world) == 0


def test_a_body_just_under_the_size_limit_is_read(world):
    # A postmortem-sized text in a form: the size limit, not the parser, decides.
    text = "x" * 20_000
    filler = "y" * (MAX_BODY_BYTES - len(text) - 200)
    body = [("incident[name]", "big"), ("incident[body]", text), ("ignored", filler)]
    answer = world.api.post(incidents(world), body, form=True)
    assert answer.status == 201, answer.text
    assert answer.json["incident_updates"][0]["body"] == text


def test_metadata_over_its_size_is_422_before_anything_is_stored(world):
    from chalicelib.schemas.incidents import MAX_METADATA_BYTES

    metadata = {"notes": {"text": "x" * MAX_METADATA_BYTES}}
    answer = world.api.post(incidents(world), {"incident": {"name": "x", "metadata": metadata}})
    assert answer.status == 422, answer.text
    assert answer.json["errors"] == {
        "metadata": [f"is larger than {MAX_METADATA_BYTES} bytes as JSON"]
    }
    assert incident_count(world) == 0


def test_components_metrics_and_subscribers_per_page_are_bounded(world, monkeypatch):
    from chalicelib.domain import components, metrics, subscribers

    monkeypatch.setattr(components, "MAX_COMPONENTS_PER_PAGE", 2)
    monkeypatch.setattr(metrics, "MAX_METRICS_PER_PAGE", 1)
    monkeypatch.setattr(subscribers, "MAX_SUBSCRIBERS_PER_PAGE", 1)
    base = f"/v1/pages/{world.page_id}"
    for name in ("API", "Web"):
        assert world.api.post(f"{base}/components", {"component": {"name": name}}).status == 201
    third = world.api.post(f"{base}/components.json", {"component": {"name": "Jobs"}})
    assert third.status == 422
    assert third.json["errors"] == {"components": ["a page has at most 2 (groups included)"]}
    group = world.api.post(f"{base}/component-groups", {"component_group": {"name": "G"}})
    assert group.status == 422

    provider = world.api.get(f"{base}/metrics_providers").json[0]["id"]
    path = f"{base}/metrics_providers/{provider}/metrics"
    assert world.api.post(path, {"metric": {"name": "Latency"}}).status == 201
    over = world.api.post(path, {"metric": {"name": "Errors"}})
    assert over.status == 422
    assert over.json["errors"] == {"metric": ["a page has at most 1 metrics"]}

    body = {"subscriber": {"email": "a@example.com"}}
    assert world.api.post(f"{base}/subscribers", body).status == 201
    over = world.api.post(f"{base}/subscribers", {"subscriber": {"email": "b@example.com"}})
    assert over.status == 422
    assert over.json["errors"] == {"subscriber": ["a page has at most 1 subscribers"]}


@pytest.mark.parametrize(
    "path",
    ["subscribers?page=1088580917510890225401856", "incidents?page=99999999999999999999"],
)
def test_a_page_number_past_any_list_is_refused(world, path):
    answer = world.api.get(f"/v1/pages/{world.page_id}/{path}")
    assert (answer.status, answer.json["error"]) in (
        (400, "Bad request"),
        (422, "Unprocessable entity"),  # the query's schema names `page`
    ), answer.text


def test_a_blank_email_finds_no_page_access_user(world):
    answer = world.api.get(f"/v1/pages/{world.page_id}/page_access_users?email=%1C")
    assert answer.status == 200, answer.text
    assert answer.json == []


def test_a_followed_address_longer_than_a_key_holds_is_refused(world):
    long_url = "https://status.example.com/" + "a" * 1000 + "/api/v2/summary.json"
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components",
        {
            "component": {
                "name": "Far",
                "third_party": {"summary_url": long_url, "component_id": "x"},
            }
        },
    )
    assert answer.status == 422, answer.text
    assert "third_party.summary_url" in answer.json["errors"]


def test_a_webhook_address_longer_than_a_key_holds_is_refused(world):
    long_url = "https://hooks.example.com/" + "a" * 1000
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": "hook@example.com", "endpoint": long_url}},
    )
    assert answer.status == 422, answer.text
    assert "endpoint" in answer.json["errors"]
