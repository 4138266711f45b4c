"""Property-based fuzzing of every operation of `/v1/openapi.json` (schemathesis).

Each case is sent through Chalice's test client, over moto, with the key of an organization
that holds one of everything (`populated.py`): path parameters are mostly its real ids so that
cases get past the 404s, and so are the ids bodies carry. The answers are held to the
document: no 5xx, documented statuses and content types, bodies matching their schemas, every
JSON 4xx the contract's `{"error": ...}`, and a request the document allows not refused.

`make test` runs a few examples per operation under a fixed seed; `make fuzz` many more
(`FUZZ_EXAMPLES`).
"""

import hashlib
import json
import os

import pytest
import requests
import schemathesis
from chalice.test import Client
from hypothesis import HealthCheck, Phase, seed, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.transport import Response
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

import app  # noqa: F401  (registers every route: the document lists them)
from chalicelib.schemas.openapi import document
from tests.api.conftest import Api, World
from tests.api.populated import Populated, populate

SEED = 20261123
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "3"))
# The long run (`make fuzz`) adds schemathesis's coverage cases (boundaries, missing and
# malformed members of every parameter), which cost more to build than `make test` can spend.
PHASES = [Phase.explicit, Phase.generate] if os.environ.get("FUZZ_COVERAGE") else [Phase.generate]
schema = schemathesis.openapi.from_dict(document())

# Refusals the document cannot foresee, as they hang on the data rather than the request:
# the page's settings (a kind of subscriber turned off, no social account to post to), a
# phone number's digits for its country, an address subscribed already, a user deleting
# themself. Each names the statuses it may answer to a request the document allows.
STATEFUL = {
    "POST /v1/pages/{page_id}/subscribers": (422,),
    "POST /v1/pages/{page_id}/subscribers.json": (422,),
    "POST /v1/pages/{page_id}/incidents/{incident_id}/subscribers": (422,),
    "POST /v1/pages/{page_id}/incidents/{incident_id}/subscribers.json": (422,),
    "POST /v0/organizations/{organization_id}/subscribers.json": (422,),
    "POST /v0/organizations/{organization_id}/incidents/{incident_id}/subscribers.json": (422,),
    "POST /v1/organizations/{organization_id}/subscribers.json": (422,),
    "POST /v1/organizations/{organization_id}/incidents/{incident_id}/subscribers.json": (422,),
    "POST /s/{page_id}/subscribe": (422,),  # a reader's subscription: the same rules
    "PUT /v1/pages/{page_id}/incidents/{incident_id}/postmortem/publish": (400,),
    "POST /v1/organizations/{organization_id}/users": (422,),  # an address taken already
    "POST /v1/organizations/{organization_id}/users.json": (422,),
    "POST /v1/pages/{page_id}/metrics_providers": (422,),  # one Self provider, made with it
    "POST /v1/pages/{page_id}/metrics_providers.json": (422,),
    "PATCH /v1/pages/{page_id}/metrics_providers/{metrics_provider_id}": (422,),
    "PUT /v1/pages/{page_id}/metrics_providers/{metrics_provider_id}": (422,),
    "PATCH /v1/pages/{page_id}/metrics_providers/{metrics_provider_id}.json": (422,),
    "PUT /v1/pages/{page_id}/metrics_providers/{metrics_provider_id}.json": (422,),
    "PUT /v1/pages/{page_id}/incidents/{incident_id}/postmortem/publish.json": (400,),
}
# Body members that hold ids, and the path parameter whose real id they take.
BODY_IDS = {
    "components": "member_component_id",
    "component_ids": "component_id",
    "group_id": "id",
    "subscribers": "subscriber_id",
    "metric_ids": "metric_id",
    "page_access_user_ids": "page_access_user_id",
    "page_access_group_ids": "page_access_group_id",
}


@pytest.fixture(scope="module")
def fuzzed(chalice_app) -> Populated:
    from chalicelib.domain import organizations, pages
    from chalicelib.schemas.pages import PageFields

    with Client(chalice_app) as client:
        organization = organizations.create_organization("Fuzz Inc")
        owner = organizations.create_user(organization.id, "owner@example.com", owner=True)
        api_key = organizations.create_api_key(owner)
        page = pages.create_page(organization.id, PageFields(name="Fuzz"))
        world = World(organization.id, owner.id, api_key, page.id, Api(client, api_key))
        yield populate(world)


def _often_real(generated, real: str) -> str:
    """The real id for three cases in four; the generated value (a 404) for the rest, chosen
    by the value itself so that a seed replays the same run."""
    digest = hashlib.sha256(repr(generated).encode()).digest()
    return generated if digest[0] % 4 == 0 else real


def _real_body_ids(body, ids: dict[str, str]):
    if isinstance(body, dict):
        replaced = {}
        for key, value in body.items():
            if key in BODY_IDS and BODY_IDS[key] in ids:
                real = ids[BODY_IDS[key]]
                # Always real: an id naming nothing inside a body is a 422, not a 404.
                if isinstance(value, list):
                    value = [real for _ in value]
                elif isinstance(value, str):
                    value = real
            elif key == "pages" and isinstance(value, dict):  # permissions: page id -> roles
                value = (
                    dict.fromkeys([ids["page_id"]], next(iter(value.values()), {}))
                    if value
                    else value
                )
            elif key == "data" and isinstance(value, dict) and "timestamp" not in value:
                value = (
                    dict.fromkeys([ids["metric_id"]], next(iter(value.values())))
                    if value
                    else value
                )
            replaced[key] = _real_body_ids(value, ids)
        return replaced
    if isinstance(body, list):
        return [_real_body_ids(item, ids) for item in body]
    return body


def _with_real_ids(case, ids: dict[str, str]) -> None:
    for name, value in (case.path_parameters or {}).items():
        if name in ("page_id", "organization_id"):
            case.path_parameters[name] = ids[name]
        elif name == "subscriber_id" and "/incidents/" in case.operation.path:
            case.path_parameters[name] = _often_real(value, ids["incident_subscriber_id"])
        elif name in ids:
            case.path_parameters[name] = _often_real(value, ids[name])
    if isinstance(case.body, (dict, list)):
        case.body = _real_body_ids(case.body, ids)


def _is_json(response: Response) -> bool:
    return response.headers.get("content-type", [""])[0] == "application/json"


def _names_gone(response: Response) -> bool:
    """A 422 only because a body names what an earlier case of the run deleted."""
    if response.status_code != 422 or not _is_json(response):
        return False
    problems = json.loads(response.content).get("errors", {}).values()
    return all(" is not a" in problem for listed in problems for problem in listed)


def _send(client: Client, case) -> Response:
    sent = case.as_transport_kwargs(base_url="http://testserver")
    prepared = requests.Request(
        method=sent["method"],
        url=sent["url"],
        headers=sent.get("headers"),
        params=sent.get("params"),
        json=sent.get("json"),
        data=sent.get("data"),
    ).prepare()
    body = prepared.body or b""
    answer = client.http.request(
        prepared.method,
        prepared.path_url,
        headers=dict(prepared.headers),
        body=body.encode() if isinstance(body, str) else body,
    )
    return Response(
        status_code=answer.status_code,
        headers={name.lower(): [value] for name, value in answer.headers.items()},
        content=answer.body,
        request=prepared,
        elapsed=0.0,
        verify=False,
    )


def _check_error_body(case, response: Response) -> None:
    """Every 4xx of the API is the contract's JSON body; a public HTML view's is a page."""
    if not 400 <= response.status_code < 500:
        return
    content_type = response.headers.get("content-type", [""])[0]
    if content_type.startswith("text/html"):
        assert case.operation.tags == ["public status page"], f"{case.operation.label}: HTML"
        return
    assert content_type == "application/json", f"{case.operation.label}: {content_type}"
    body = json.loads(response.content)
    assert isinstance(body, dict) and isinstance(body.get("error"), str), body
    assert set(body) <= {"error", "errors"}, body


@schema.parametrize()
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=PHASES,  # no shrinking: a failure is reported as it was sent
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_every_operation_answers_as_documented(case, fuzzed):
    if case.method.upper() == "OPTIONS":
        return  # answered by API Gateway (and Chalice's local gateway), never by the app
    _with_real_ids(case, fuzzed.ids)
    case.headers = {**(case.headers or {}), "Authorization": f"OAuth {fuzzed.world.api_key}"}
    response = _send(fuzzed.api.client, case)
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
    ]
    if response.status_code not in STATEFUL.get(case.operation.label, ()) and not _names_gone(
        response
    ):
        checks.append(positive_data_acceptance)
    case.validate_response(response, checks=checks)
    _check_error_body(case, response)
