"""A null sent for any member of any body of `/v1/openapi.json` is never a 5xx.

Where the document says a member cannot be null, the answer is a 4xx naming it (the contract's
error body); where it may be null, whatever the operation answers, as long as it is not a 5xx.
Fuzzing found three null members that reached the table as 500s: this walks every member of
every JSON body, one request each, rather than hoping a random run sends the null.
"""

import re

import pytest

import app  # noqa: F401  (registers every route: the document lists them)
from chalicelib.schemas.openapi import document
from tests.api.fuzzing import populated_organization
from tests.api.populated import Populated

DOCUMENT = document()
SCHEMAS = DOCUMENT["components"]["schemas"]


def _resolved(schema: dict) -> dict:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _may_be_null(schema: dict) -> bool:
    schema = _resolved(schema)
    if schema.get("type") == "null" or schema.get("nullable"):
        return True
    return any(_may_be_null(choice) for choice in schema.get("anyOf", schema.get("oneOf", [])))


def _object_members(schema: dict) -> dict[str, dict]:
    schema = _resolved(schema)
    for choice in schema.get("anyOf", []):
        if _resolved(choice).get("properties"):
            return _resolved(choice)["properties"]
    return schema.get("properties", {})


def _null_bodies():
    """(label, path, method, body, member, may be null) for each member of each JSON body:
    the wrapper itself, and each member of the object it wraps."""
    for path, operations in DOCUMENT["paths"].items():
        for method, operation in operations.items():
            content = (
                operation.get("requestBody", {}).get("content", {})
                if isinstance(operation, dict)
                else {}
            )
            if "application/json" not in content:
                continue
            members = _object_members(content["application/json"]["schema"])
            for wrapper, wrapped in members.items():
                label = f"{method.upper()} {path}"
                yield label, path, method, {wrapper: None}, wrapper, _may_be_null(wrapped)
                for member, schema in _object_members(wrapped).items():
                    body = {wrapper: {member: None}}
                    yield label, path, method, body, member, _may_be_null(schema)


CASES = list(_null_bodies())


@pytest.fixture(scope="module")
def populated(chalice_app) -> Populated:
    with populated_organization(chalice_app, "Nulls") as populated:
        yield populated


def _filled(path: str, ids: dict[str, str]) -> str:
    def real(match: re.Match) -> str:
        name = match.group(1)
        if name == "subscriber_id" and "/incidents/" in path:
            return ids["incident_subscriber_id"]
        return ids[name]

    return re.sub(r"\{(\w+)\}", real, path)


def test_the_walk_covers_every_body():
    operations = {label for label, *_ in CASES}
    assert len(operations) >= 100, len(operations)
    assert len(CASES) >= 500, len(CASES)


@pytest.mark.parametrize(
    "label, path, method, body, member, may_be_null",
    CASES,
    ids=[f"{case[0]} {case[4]}" for case in CASES],
)
def test_a_null_member_is_never_a_server_error(
    populated, label, path, method, body, member, may_be_null
):
    headers = {}
    if not path.startswith(("/v1/", "/s/")):  # a page's own host: its subdomain's
        page = populated.api.get(f"/v1/pages/{populated.world.page_id}").json
        headers["Host"] = f"{page['subdomain']}.localhost"
    answer = populated.api.request(
        method.upper(), _filled(path, populated.ids), body, headers=headers
    )
    assert answer.status < 500, (label, body, answer.status, answer.text)
    if answer.status >= 400 and answer.headers.get("content-type") == "application/json":
        error = answer.json
        assert isinstance(error.get("error"), str), error
    if not may_be_null:
        assert 400 <= answer.status < 500, (label, body, answer.status, answer.text)
        if answer.status == 400:
            return  # a body of the wrong shape, where SPEC says so (permissions): no fields

        # The contract's `errors` (JSON), or the form's message beside the field (HTML).
        assert member in answer.text, (label, body, answer.text)
