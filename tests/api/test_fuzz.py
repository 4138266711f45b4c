"""Property-based fuzzing of every operation of `/v1/openapi.json` (schemathesis).

Each case is sent through Chalice's test client, over moto, with the key of an organization
that holds one of everything (`populated.py`): path parameters are mostly its real ids so that
cases get past the 404s, and so are the ids bodies carry. The answers are held to the
document: no 5xx, documented statuses and content types, bodies matching their schemas, every
JSON 4xx the contract's `{"error": ...}`, and a request the document allows not refused.

`make test` runs a few examples per operation under a fixed seed; `make fuzz` many more
(`FUZZ_EXAMPLES`).
"""

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, seed, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

import app  # noqa: F401  (registers every route: the document lists them)
from chalicelib.schemas.openapi import document
from tests.api.fuzzing import (
    HOSTILE,
    check_error_body,
    made_hostile,
    populated_organization,
    refused_beyond_the_document,
    send,
    with_real_ids,
)
from tests.api.populated import Populated

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
    "POST /s/{page_id}/incidents/{incident_id}/subscribe": (422,),  # and one incident's
    "POST /s/{page_id}/api/v2/subscribers.json": (422,),  # the same, through the v2 API
    "POST /api/v2/subscribers.json": (422,),
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
    # A check: its URL must resolve to an address it may call (DNS, at the moment), its
    # thresholds rise with severity, a HEAD has no body to look in, a component holds ten.
    "POST /v1/pages/{page_id}/components/{component_id}/checks": (422,),
    "POST /v1/pages/{page_id}/components/{component_id}/checks.json": (422,),
    "PATCH /v1/pages/{page_id}/components/{component_id}/checks/{check_id}": (422,),
    "PATCH /v1/pages/{page_id}/components/{component_id}/checks/{check_id}.json": (422,),
    "PUT /v1/pages/{page_id}/components/{component_id}/checks/{check_id}": (422,),
    "PUT /v1/pages/{page_id}/components/{component_id}/checks/{check_id}.json": (422,),
}


@pytest.fixture(scope="module")
def fuzzed(chalice_app) -> Populated:
    with populated_organization(chalice_app, "Fuzz") as populated:
        yield populated


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
    with_real_ids(case, fuzzed.ids)
    hostile, body = made_hostile(case) or (None, None)
    case.headers = {**(case.headers or {}), "Authorization": f"OAuth {fuzzed.world.api_key}"}
    response = send(fuzzed.api.client, case, body=body)
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
    ]
    if (
        hostile is None
        and response.status_code not in STATEFUL.get(case.operation.label, ())
        and not refused_beyond_the_document(response)
    ):
        checks.append(positive_data_acceptance)
    case.validate_response(response, checks=checks)
    check_error_body(case, response)
    if hostile in HOSTILE[:1]:
        # What no store can hold is refused at decoding (a 400), unless the request was
        # refused before its body was read (its path, its key, its method, its size).
        refused_first = (401, 403, 404, 405, 413)
        assert response.status_code in (400, *refused_first), (
            case.operation.label,
            response.content[:300],
        )
