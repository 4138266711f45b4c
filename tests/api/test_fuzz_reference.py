"""Fuzzing every operation of Statuspage's own description, as its clients call them.

A client written against Statuspage's description sends what that document allows, not what
ours does: other ids, members of their own, values our document bounds tighter. Whatever it
sends, the answer is never a 5xx, and every 4xx is the contract's error body. The statuses and
bodies are held to our document by `test_fuzz.py`; this run holds the service to the rule
that no request breaks it.

The description is read from `STATUSPAGE_DESCRIPTION` (default: `../shared/reference/` beside
the checkout); without it the run is skipped.
"""

import json
import os
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, seed, settings
from schemathesis.checks import not_a_server_error

from tests.api.fuzzing import (
    check_error_body,
    made_hostile,
    populated_organization,
    send,
    with_real_ids,
)
from tests.api.populated import Populated

SEED = 20261125
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "3"))
PHASES = [Phase.explicit, Phase.generate] if os.environ.get("FUZZ_COVERAGE") else [Phase.generate]
DESCRIPTION = Path(
    os.environ.get(
        "STATUSPAGE_DESCRIPTION",
        Path(__file__).resolve().parents[3] / "shared/reference/statuspage-openapi3.json",
    )
)

if not DESCRIPTION.exists():
    pytest.skip(f"no Statuspage description at {DESCRIPTION}", allow_module_level=True)

JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def _with_known_types(node):
    """The description as published names two parameters' type `PartialEndDate` (a date
    written as text, as its prose says): read as a string."""
    if isinstance(node, dict):
        return {
            key: "string"
            if key == "type" and isinstance(value, str) and value not in JSON_TYPES
            else _with_known_types(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_with_known_types(item) for item in node]
    return node


schema = schemathesis.openapi.from_dict(_with_known_types(json.loads(DESCRIPTION.read_text())))


@pytest.fixture(scope="module")
def fuzzed(chalice_app) -> Populated:
    with populated_organization(chalice_app, "Reference") as populated:
        yield populated


@schema.parametrize()
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=PHASES,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_of_the_official_description_breaks_the_service(case, fuzzed):
    if case.method.upper() == "OPTIONS":
        return  # answered by API Gateway (and Chalice's local gateway), never by the app
    with_real_ids(case, fuzzed.ids)
    _, body = made_hostile(case) or (None, None)
    case.headers = {**(case.headers or {}), "Authorization": f"OAuth {fuzzed.world.api_key}"}
    response = send(fuzzed.api.client, case, base_url="http://testserver/v1", body=body)
    case.validate_response(response, checks=[not_a_server_error])
    check_error_body(case, response)
