"""The request layer as a client meets it: authentication, bodies, rate limits, errors."""

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import clock


def test_no_key_is_401(world):
    answer = world.api.as_key(None).get("/v1/pages")
    assert answer.status == 401
    assert answer.json == {"error": "Could not authenticate"}


def test_wrong_key_is_401(world):
    answer = world.api.as_key("not-a-key").get(f"/v1/pages/{world.page_id}")
    assert answer.status == 401
    assert answer.json == {"error": "Could not authenticate"}


def test_a_key_naming_a_user_it_does_not_belong_to_is_401(world, make_world):
    other = make_world("Other")
    _, secret = world.api_key.split(".", 1)
    forged = f"{other.user_id}.{secret}"
    for key in (forged, f"{world.user_id}.{secret}x", f"{world.user_id}.{'a' * 43}"):
        answer = world.api.as_key(key).get(f"/v1/pages/{world.page_id}")
        assert answer.status == 401, key
        assert answer.json == {"error": "Could not authenticate"}


def test_a_key_made_before_keys_named_their_user_still_works(world, monkeypatch):
    from chalicelib.domain import credentials, organizations
    from chalicelib.store.models import User

    monkeypatch.setattr(credentials, "new_api_key", lambda user_id: "k" * 43)
    legacy = organizations.create_api_key(User.get(world.user_id))
    assert credentials.user_hint(legacy) is None
    answer = world.api.as_key(legacy).get(f"/v1/pages/{world.page_id}")
    assert answer.status == 200
    assert answer.json["id"] == world.page_id


def test_key_in_query_parameter(world):
    answer = world.api.as_key(None).get(f"/v1/pages?api_key={world.api_key}")
    assert answer.status == 200


def test_malformed_json_is_400(world):
    answer = world.api.patch(f"/v1/pages/{world.page_id}", '{"page": {"name": ')
    assert answer.status == 400
    assert answer.json == {"error": "Bad request"}


def test_body_not_matching_content_type_is_400(world):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}",
        '{"page": {"name": "x"}}',
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 400


def test_unknown_content_type_is_400_not_415(world):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}", "<page/>", headers={"Content-Type": "application/xml"}
    )
    assert answer.status == 400
    assert answer.json == {"error": "Bad request"}


def test_wrong_type_for_a_field_is_422(world):
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"allow_sms_subscribers": [1]}})
    assert answer.status == 422
    assert "allow_sms_subscribers" in answer.json["errors"]


def test_wrapper_of_the_wrong_shape_is_422(world):
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": "Acme"})
    assert answer.status == 422


@pytest.mark.parametrize("path", ["/v1/pages/a.b.c", "/v1/pages/%00", "/v1/pages/" + "x" * 300])
def test_implausible_ids_are_404(world, path):
    answer = world.api.get(path)
    assert answer.status == 404


def test_bad_pagination_is_400(world):
    answer = world.api.get(f"/v1/organizations/{world.organization_id}/users?per_page=abc")
    assert answer.status == 400


def test_rate_limit_rejects_the_sixth_request_in_a_minute(world, monkeypatch):
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "5")
    codes = [world.api.get("/v1/pages").status for _ in range(6)]
    assert codes == [200] * 5 + [429]
    rejected = world.api.get("/v1/pages")
    assert rejected.status == 429
    assert rejected.json == {"error": "Rate limit exceeded"}
    assert 1 <= int(rejected.headers["Retry-After"]) <= 60


def test_rate_limit_is_per_token(make_world, monkeypatch):
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "2")
    first, second = make_world(), make_world()
    assert [first.api.get("/v1/pages").status for _ in range(3)] == [200, 200, 429]
    assert second.api.get("/v1/pages").status == 200


def test_rate_limit_window_rolls(world, monkeypatch):
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "3")
    start = datetime(2030, 1, 1, 0, 0, 50, tzinfo=UTC)
    try:
        clock.freeze(start)
        assert [world.api.get("/v1/pages").status for _ in range(4)] == [200, 200, 200, 429]
        # 30 s into the next minute the previous minute's 3 hits weigh 3 * 30/60 = 1.5.
        clock.freeze(start + timedelta(seconds=40))
        assert [world.api.get("/v1/pages").status for _ in range(2)] == [200, 429]
        # Once a whole minute has passed with no request, the window is empty again.
        clock.freeze(start + timedelta(minutes=3))
        assert [world.api.get("/v1/pages").status for _ in range(3)] == [200] * 3
    finally:
        clock.freeze(None)


def test_rate_limit_costs_one_dynamodb_call_within_a_minute(world, monkeypatch, dynamodb_calls):
    monkeypatch.setenv("RATE_LIMIT_PER_MINUTE", "100")
    world.api.get("/v1/pages")
    before = dynamodb_calls.count("UpdateItem")
    world.api.get("/v1/pages")
    assert dynamodb_calls.count("UpdateItem") - before == 1


def test_a_keys_answers_are_stored_by_no_cache_and_never_sniffed(world):
    """Subscriber lists and webhook secrets are answered to a key: no cache between the client
    and the API may keep them, and no browser may take them for another type."""
    for path in (f"/v1/pages/{world.page_id}/subscribers", f"/v1/pages/{world.page_id}"):
        answer = world.api.get(path)
        headers = {name.lower(): value for name, value in answer.headers.items()}
        assert answer.status == 200
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
    refused = world.api.get("/v1/pages/nonexistent")
    assert {name.lower(): value for name, value in refused.headers.items()}["cache-control"] == (
        "no-store"
    )
