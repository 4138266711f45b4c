"""Tenant isolation, walked over the route table: a route added later is walked too.

Two organizations hold the same kinds of data (`populated.py`). With A's key, every id of B
in a path (each one alone, beside A's own ids, and all of them at once) answers 404, and an id
of B inside a body is answered exactly as an id that does not exist. Then B's data, read back
through every GET route with B's key, is what it was. A route whose path parameter or body
this walk cannot fill fails the test by name: teach the walk its ids.
"""

import pytest

from chalicelib.http.routing import OPERATIONS, Operation, path_parameters, served_paths
from tests.api.populated import Populated, populate

PUBLIC = "public status page"
MISSING = "0000000000000000"  # a well-formed id that names nothing
# Where each path parameter's id comes from (`populated.py`), by route when it depends on it.
INCIDENT_SUBSCRIBER = "incident_subscriber_id"


def _id_name(operation: Operation, parameter: str) -> str:
    if parameter == "subscriber_id" and "/incidents/{incident_id}/" in operation.path:
        return INCIDENT_SUBSCRIBER
    return parameter


# Bodies that carry ids, made from one organization's ids; the others carry none.
def _component_ids(ids: dict) -> list[str]:
    return [ids["component_id"]]


def _grants(ids: dict, other: str) -> dict:
    """What a page access user or group is given: components, metrics, its groups or users."""
    return {
        f"page_access_{other}_ids": [ids[f"page_access_{other}_id"]],
        "component_ids": _component_ids(ids),
        "metric_ids": [ids["metric_id"]],
    }


BODIES_WITH_IDS = {
    "ComponentCreate": lambda ids: {"component": {"name": "X", "group_id": ids["id"]}},
    "ComponentUpdate": lambda ids: {"component": {"group_id": ids["id"]}},
    "ComponentGroupCreate": lambda ids: {
        "component_group": {"name": "G", "components": _component_ids(ids)}
    },
    "ComponentGroupUpdate": lambda ids: {"component_group": {"components": _component_ids(ids)}},
    "IncidentCreate": lambda ids: {
        "incident": {
            "name": "I",
            "component_ids": _component_ids(ids),
            "components": {ids["component_id"]: "major_outage"},
        }
    },
    "IncidentUpdate": lambda ids: {
        "incident": {
            "component_ids": _component_ids(ids),
            "components": {ids["component_id"]: "major_outage"},
        }
    },
    "IncidentTemplateCreate": lambda ids: {
        "template": {
            "name": "T",
            "title": "T",
            "group_id": ids["id"],
            "component_ids": _component_ids(ids),
        }
    },
    "SubscriberCreate": lambda ids: {
        # An address of its own each time: a second one would be refused as a duplicate.
        "subscriber": {
            "email": f"x-{ids['page_id']}@example.com",
            "component_ids": _component_ids(ids),
        }
    },
    "SubscriberUpdate": lambda ids: {"subscriber": {"component_ids": _component_ids(ids)}},
    "SubscriberBatch": lambda ids: {"subscribers": [ids["subscriber_id"]], "state": "all"},
    "ResendConfirmations": lambda ids: {"subscribers": [ids["subscriber_id"]]},
    "PermissionsUpdate": lambda ids: {"pages": {ids["page_id"]: {}}},
    "MetricDataBatch": lambda ids: {"data": {ids["metric_id"]: [{"timestamp": 1, "value": 1}]}},
    "PageAccessUserCreate": lambda ids: {
        "page_access_user": {"email": f"v-{ids['page_id']}@example.com", **_grants(ids, "group")}
    },
    "PageAccessUserUpdate": lambda ids: {"page_access_user": _grants(ids, "group")},
    "PageAccessGroupCreate": lambda ids: {
        "page_access_group": {"name": "G", **_grants(ids, "user")}
    },
    "PageAccessGroupUpdate": lambda ids: {"page_access_group": _grants(ids, "user")},
    "ComponentIdsGiven": lambda ids: {"component_ids": _component_ids(ids)},
    "ComponentIdsToRemove": lambda ids: {"component_ids": _component_ids(ids)},
    "MetricIdsGiven": lambda ids: {"metric_ids": [ids["metric_id"]]},
    "MetricIdsToRemove": lambda ids: {"metric_ids": [ids["metric_id"]]},
    "PageAccessUserIdsGiven": lambda ids: {"page_access_user_ids": [ids["page_access_user_id"]]},
    "IntegrationCreate": lambda ids: {
        "integration": {
            "kind": "generic",
            "rules": [{"match": {"service": "x"}, "component_id": ids["component_id"]}],
        }
    },
    "IntegrationUpdate": lambda ids: {
        "integration": {"rules": [{"match": {"service": "x"}, "component_id": ids["component_id"]}]}
    },
    "PageAccessGroupIdsGiven": lambda ids: {"page_access_group_ids": [ids["page_access_group_id"]]},
}
# Valid bodies, so that a route reaches its ids rather than refusing the body first.
BODIES_WITHOUT_IDS = {
    "PageCreate": {"page": {"name": "P"}},
    "PageUpdate": {"page": {"name": "P"}},
    "CheckCreate": {"check": {"url": "http://127.0.0.1:9/health"}},
    "CheckUpdate": {"check": {"timeout_seconds": 5}},
    "StatusEmbedConfigUpdate": {"status_embed_config": {"position": "top-left"}},
    "IncidentUpdateEdit": {"incident_update": {"body": "B"}},
    "PostmortemDraft": {"postmortem": {"body_draft": "D"}},
    "PostmortemPublish": {"postmortem": {}},
    "MetricsProviderCreate": {"metrics_provider": {"type": "NewRelic", "api_key": "k"}},
    "MetricsProviderUpdate": {"metrics_provider": {"disabled": True}},
    "MetricCreate": {"metric": {"name": "M"}},
    "MetricUpdate": {"metric": {"name": "M"}},
    "DataPointCreate": {"data": {"timestamp": 1, "value": 1}},
    "UserCreate": {
        "user": {
            "email": "u@example.com",
            "password": "a long enough password",
            "first_name": "F",
            "last_name": "L",
        }
    },
}


def _keyed(operation: Operation) -> bool:
    return operation.authenticated and operation.tag != PUBLIC


def _fill(operation: Operation, ids: dict, replaced: dict | None = None) -> str:
    path = operation.path
    for parameter in path_parameters(path):
        source = (replaced or {}).get(parameter, ids)
        path = path.replace("{" + parameter + "}", source[_id_name(operation, parameter)])
    return path


def _unfillable(operation: Operation, ids: dict) -> list[str]:
    problems = [
        f"{operation.method.upper()} {operation.path}: no id for `{parameter}`"
        for parameter in path_parameters(operation.path)
        if _id_name(operation, parameter) not in ids
    ]
    body = operation.body
    if body and body not in BODIES_WITH_IDS and body not in BODIES_WITHOUT_IDS:
        problems.append(
            f"{operation.method.upper()} {operation.path}: body {body} is in neither "
            "BODIES_WITH_IDS nor BODIES_WITHOUT_IDS"
        )
    return problems


def _body(operation: Operation, ids: dict):
    if operation.body in BODIES_WITH_IDS:
        return BODIES_WITH_IDS[operation.body](ids)
    return BODIES_WITHOUT_IDS.get(operation.body)


def _reads(populated: Populated) -> dict:
    """Everything every GET route shows of an organization, with its own key."""
    shown = {}
    for operation in OPERATIONS:
        if operation.method == "get" and _keyed(operation):
            path = _fill(operation, populated.ids)
            answer = populated.api.get(path)
            shown[path] = (answer.status, answer.json)
    return shown


@pytest.fixture
def tenants(make_world) -> tuple[Populated, Populated]:
    return populate(make_world("A")), populate(make_world("B"))


def test_every_route_is_walked(chalice_app, tenants):
    mine, _ = tenants
    documented = {
        path for operation in OPERATIONS for path in served_paths(operation.path, operation.style)
    }
    # The console's screens take a session, not a key: every one reaches its page through
    # `auth.page_for` as the API does, and tests/console checks another organization's page
    # is a 404 there (`test_a_user_without_the_page_sees_it_as_missing`).
    # A page's uploaded images are files named by their bytes' hash, public as the published
    # site is: no key, nothing of a tenant's beyond the bytes (tests/console/test_branding_*).
    files = {"/s/{page_id}/branding/{name}"}
    unregistered = sorted(
        route
        for route in set(chalice_app.routes) - documented - files
        if not route.startswith("/manage")
    )
    assert not unregistered, f"routes outside chalicelib.http.routing: {unregistered}"
    problems = [
        problem
        for operation in OPERATIONS
        if _keyed(operation)
        for problem in _unfillable(operation, mine.ids)
    ]
    assert not problems, "the isolation walk cannot fill:\n" + "\n".join(problems)


def test_ids_of_another_organization_answer_404_and_change_nothing(tenants):
    mine, theirs = tenants
    before = _reads(theirs)
    assert all(status == 200 for status, _ in before.values()), before
    refused = []
    for operation in OPERATIONS:
        parameters = path_parameters(operation.path)
        if not _keyed(operation) or not parameters:
            continue
        # Each id of B alone among A's, then all of B's at once.
        variants = [{parameter: theirs.ids} for parameter in parameters]
        variants.append({parameter: theirs.ids for parameter in parameters})
        for replaced in variants:
            path = _fill(operation, mine.ids, replaced)
            answer = mine.api.request(operation.method.upper(), path, _body(operation, mine.ids))
            if answer.status != 404:
                refused.append(f"{operation.method.upper()} {path}: {answer.status}")
    assert not refused, "answered other than 404:\n" + "\n".join(refused)
    assert _reads(theirs) == before


def test_ids_of_another_organization_in_bodies_are_ids_that_do_not_exist(tenants):
    mine, theirs = tenants
    before = _reads(theirs)
    missing = {name: MISSING for name in theirs.ids}
    differing = []
    for operation in OPERATIONS:
        if not _keyed(operation) or operation.body not in BODIES_WITH_IDS:
            continue
        path = _fill(operation, mine.ids)
        method = operation.method.upper()
        theirs_answer = mine.api.request(method, path, _body(operation, theirs.ids))
        missing_answer = mine.api.request(method, path, _body(operation, missing))
        shapes = [
            (answer.status, sorted((answer.json or {}).get("errors", {})))
            if answer.status >= 400
            else (answer.status, None)
            for answer in (theirs_answer, missing_answer)
        ]
        if shapes[0] != shapes[1]:
            differing.append(f"{method} {path}: B's ids {shapes[0]}, missing ids {shapes[1]}")
    assert not differing, "B's ids differ from missing ones:\n" + "\n".join(differing)
    assert _reads(theirs) == before


def test_a_keys_lists_show_none_of_another_organizations_data(tenants):
    mine, theirs = tenants
    theirs_ids = set(theirs.ids.values())
    for path, (status, shown) in _reads(mine).items():
        assert status == 200, path
        text = repr(shown)
        leaked = [value for value in theirs_ids if value in text]
        assert not leaked, f"{path} shows B's {leaked}"
