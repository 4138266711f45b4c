"""A string no store can hold is a 400 at decoding, on every operation that takes a body:
JSON may escape half of a surrogate pair alone (`"\\ud800"`), which Python decodes into a
string UTF-8 cannot encode. An alert's fingerprint of one was a 409 after the unit of work
had retried a write that could never succeed."""

import json
import re

import pytest

import app  # noqa: F401  (registers every route: the document lists them)
from chalicelib.schemas.openapi import document
from tests.api.fuzzing import populated_organization

LONE_SURROGATE = '"\\ud800"'  # as a client writes it: the escape, in JSON text


def _operations_with_a_body() -> list[tuple[str, str]]:
    found = []
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                found.append((method.upper(), path))
    return found


@pytest.fixture(scope="module")
def populated(chalice_app):
    with populated_organization(chalice_app, "Surrogates") as populated:
        yield populated


def _path(template: str, ids: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda name: ids.get(name.group(1), "unknown"), template)


@pytest.mark.parametrize("method, path", _operations_with_a_body())
def test_a_lone_surrogate_anywhere_in_a_body_is_a_400(populated, method, path):
    # In a wrapper's member, as a key, and deep in a list: each an unstorable string.
    body = (
        '{"a": {"name": '
        + LONE_SURROGATE
        + ", "
        + LONE_SURROGATE
        + ': 1, "b": [{"c": '
        + LONE_SURROGATE
        + "}]}}"
    )
    answer = populated.api.client.http.request(
        method,
        _path(path, populated.ids),
        headers={
            "Authorization": f"OAuth {populated.world.api_key}",
            "Content-Type": "application/json",
        },
        body=body.encode(),
    )
    assert answer.status_code == 400, (method, path, answer.body[:300])
    assert json.loads(answer.body) == {"error": "Bad request"}
