"""What both fuzz runs share: real ids put into cases, a case sent through Chalice's test
client, and the contract's error body checked."""

import copy
import hashlib
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager

import requests
from chalice.test import Client
from schemathesis.core.transport import Response

from tests.api.conftest import Api, World
from tests.api.populated import Populated, populate

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


def often_real(generated, real: str) -> str:
    """The real id for three cases in four; the generated value (a 404) for the rest, chosen
    by the value itself so that a seed replays the same run."""
    digest = hashlib.sha256(repr(generated).encode()).digest()
    return generated if digest[0] % 4 == 0 else real


def real_body_ids(body, ids: dict[str, str]):
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
            replaced[key] = real_body_ids(value, ids)
        return replaced
    if isinstance(body, list):
        return [real_body_ids(item, ids) for item in body]
    return body


def with_real_ids(case, ids: dict[str, str]) -> None:
    for name, value in (case.path_parameters or {}).items():
        if name in ("page_id", "organization_id"):
            case.path_parameters[name] = ids[name]
        elif name == "subscriber_id" and "/incidents/" in case.operation.path:
            case.path_parameters[name] = often_real(value, ids["incident_subscriber_id"])
        elif name in ids:
            case.path_parameters[name] = often_real(value, ids[name])
    if isinstance(case.body, (dict, list)):
        case.body = real_body_ids(case.body, ids)


# What a careless or hostile client puts where a string goes: half of a surrogate pair (JSON
# may escape one alone; no store can hold it) and a URL whose port is out of range. The
# document's strings are generated valid, so neither would come up by itself.
HOSTILE = ("\ud800", "http://127.0.0.1:99999/x")


def _string_leaves(value, found: list) -> list:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                found.append((value, key))
            else:
                _string_leaves(item, found)
    elif isinstance(value, list):
        for at, item in enumerate(value):
            if isinstance(item, str):
                found.append((value, at))
            else:
                _string_leaves(item, found)
    return found


def made_hostile(case) -> tuple[str, bytes] | None:
    """For one JSON body in three, the body with one of its strings a `HOSTILE` value, as JSON
    text to send instead (the case itself is left valid: schemathesis checks it again when it
    is sent); which body, which string and which value follow from the body itself, so that a
    run is repeatable. The value put there and the text, or None."""
    if case.media_type != "application/json" or not isinstance(case.body, (dict, list)):
        return None
    chooser = random.Random(json.dumps(case.body, sort_keys=True, default=str))
    body = copy.deepcopy(case.body)
    leaves = _string_leaves(body, [])
    if not leaves or chooser.random() >= 1 / 3:
        return None
    container, key = chooser.choice(leaves)
    container[key] = chooser.choice(HOSTILE)
    return container[key], json.dumps(body).encode()  # escaped: "\\ud800" on the wire


def is_json(response: Response) -> bool:
    return response.headers.get("content-type", [""])[0] == "application/json"


# Refusals by rules no JSON schema states: an order between members or between a list's
# items, a member that needs another, what the stored data holds (a value taken already, an
# incident's kind, a count reached).
BEYOND_THE_DOCUMENT = (
    " is not a",  # names what an earlier case of the run deleted
    " is not one of this page's",  # the same, of a page's users and groups
    "a page has at most",  # a page's count of something, reached by the run's creates
    "is required for a scheduled incident",
    "must be one of investigating,",  # a realtime incident's statuses (a scheduled one's differ)
    "must be one of scheduled,",
    "has already been taken",
    "must be greater than",
    "must be after",  # one time member after another (scheduled_until, scheduled_for)
    "must name a component group of this page",  # a group an earlier case deleted
    "applies to scheduled incidents only",
    "email or external_login is required",
    "must be strictly increasing",
    "is not a template of this page",  # an id the run never made
    "must be a date: YYYY",  # a day its month lacks (2026-02-30), of the documented form
)


def refused_beyond_the_document(response: Response) -> bool:
    """A 422 only by rules the document cannot state (`BEYOND_THE_DOCUMENT`)."""
    if response.status_code != 422 or not is_json(response):
        return False
    problems = json.loads(response.content).get("errors", {}).values()
    return all(
        any(rule in problem for rule in BEYOND_THE_DOCUMENT)
        for listed in problems
        for problem in listed
    )


def send(
    client: Client, case, base_url: str = "http://testserver", body: bytes | None = None
) -> Response:
    """The case through the test client; with `body`, that body sent in place of the case's."""
    sent = case.as_transport_kwargs(base_url=base_url)
    prepared = requests.Request(
        method=sent["method"],
        url=sent["url"],
        headers=sent.get("headers"),
        params=sent.get("params"),
        json=sent.get("json"),
        data=sent.get("data"),
    ).prepare()
    if body is None:
        body = prepared.body or b""
        body = body.encode() if isinstance(body, str) else body
    headers = dict(prepared.headers)
    headers["Content-Length"] = str(len(body))
    answer = client.http.request(prepared.method, prepared.path_url, headers=headers, body=body)
    return Response(
        status_code=answer.status_code,
        headers={name.lower(): [value] for name, value in answer.headers.items()},
        content=answer.body,
        request=prepared,
        elapsed=0.0,
        verify=False,
    )


def check_error_body(case, response: Response) -> None:
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


@contextmanager
def populated_organization(chalice_app, name: str) -> Iterator[Populated]:
    """An organization of its own, owner and key, and a page holding one of everything."""
    from chalicelib.domain import organizations, pages
    from chalicelib.domain.pages import PageInput

    with Client(chalice_app) as client:
        organization = organizations.create_organization(f"{name} Inc")
        owner = organizations.create_user(organization.id, "owner@example.com", owner=True)
        api_key = organizations.create_api_key(owner)
        page = pages.create_page(organization.id, PageInput(name=name))
        world = World(organization.id, owner.id, api_key, page.id, Api(client, api_key))
        yield populate(world)
