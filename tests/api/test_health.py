"""`GET /v1/health`: what Route 53's failover records ask of each region."""

import json

from pynamodb.exceptions import GetError

from chalicelib.store.subscribers import Setting


def test_health_answers_ok_and_its_region_without_a_key(world, dynamodb_calls):
    answer = world.api.as_key(None).get("/v1/health")
    assert answer.status == 200
    assert answer.json == {"status": "ok", "region": "us-east-1"}
    assert dynamodb_calls.count("GetItem") >= 1


def test_health_is_503_in_the_contracts_body_when_the_table_does_not_answer(http, monkeypatch):
    def unreachable(*args, **kwargs):
        raise GetError("the region's table does not answer")

    monkeypatch.setattr(Setting, "get", unreachable)
    response = http.http.request("GET", "/v1/health")
    assert response.status_code == 503
    assert json.loads(response.body) == {"error": "Service unavailable"}


def test_health_is_listed_in_the_openapi_document(world):
    document = world.api.as_key(None).get("/v1/openapi.json").json
    operation = document["paths"]["/v1/health"]["get"]
    assert {"200", "503"} <= set(operation["responses"])
