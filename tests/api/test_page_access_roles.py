"""Every page access route, in both path styles: a key without `page_configuration` gets 403,
a key of another organization 404, a key with the role succeeds."""

import pytest

from tests.api.test_components import make_component
from tests.api.test_metrics import make_metric

BODIES = {
    None: None,
    "PageAccessUserCreate": {"page_access_user": {"email": "new@example.com"}},
    "PageAccessUserUpdate": {"page_access_user": {"external_login": "uid=1"}},
    "PageAccessGroupCreate": {"page_access_group": {"name": "New"}},
    "PageAccessGroupUpdate": {"page_access_group": {"name": "Renamed"}},
    "ComponentIdsGiven": {"component_ids": ["{component_id}"]},
    "ComponentIdsToRemove": {"component_ids": ["{component_id}"]},
    "MetricIdsGiven": {"metric_ids": ["{metric_id}"]},
    "MetricIdsToRemove": {"metric_ids": ["{metric_id}"]},
    "PageAccessUserIdsGiven": {"page_access_user_ids": ["{page_access_user_id}"]},
    "PageAccessGroupIdsGiven": {"page_access_group_ids": ["{page_access_group_id}"]},
}


def _access_operations():
    import app  # noqa: F401  (registers every route)
    from chalicelib.http.routing import OPERATIONS

    return [operation for operation in OPERATIONS if "page_access" in operation.path]


OPERATIONS = _access_operations()


def test_every_access_route_is_in_the_table():
    assert len(OPERATIONS) == 34  # Statuspage's v1 operations on page access
    assert {operation.body for operation in OPERATIONS} <= set(BODIES)


def _filled(value, ids):
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, list):
        return [_filled(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, ids) for key, item in value.items()}
    return value


@pytest.mark.parametrize("style", ["", ".json"])
@pytest.mark.parametrize(
    "operation", OPERATIONS, ids=[f"{op.method} {op.path}" for op in OPERATIONS]
)
def test_access_routes_need_page_configuration(make_world, operation, style):
    from chalicelib.domain import organizations

    world, other = make_world(), make_world("Other")
    user = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_users", {"email": "viewer@example.com"}
    ).json
    group = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_groups", {"page_access_group": {"name": "G"}}
    ).json
    ids = {
        "page_id": world.page_id,
        "page_access_user_id": user["id"],
        "page_access_group_id": group["id"],
        "component_id": make_component(world)["id"],
        "metric_id": make_metric(world).json["id"],
    }
    path = _filled(operation.path, ids) + style
    body = _filled(BODIES[operation.body], ids)
    member = organizations.create_user(world.organization_id, "incidents@example.com")
    organizations.set_page_roles(
        member, {world.page_id: {"incident_manager": True, "page_configuration": False}}
    )
    without_role = world.api.as_key(organizations.create_api_key(member))

    denied = without_role.request(operation.method.upper(), path, body)
    assert denied.status == 403, denied.text
    foreign = other.api.request(operation.method.upper(), path, body)
    assert foreign.status == 404, foreign.text
    allowed = world.api.request(operation.method.upper(), path, body)
    assert 200 <= allowed.status < 300, allowed.text
