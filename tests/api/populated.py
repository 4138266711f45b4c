"""An organization holding one of every kind of data the API serves, made through the API.

The fuzz run and the tenant isolation walk both need real ids of every path parameter (and of
the ids bodies carry); `populate` makes them and names each by the path parameter it fills.
"""

import time
from dataclasses import dataclass

from tests.api.conftest import World


@dataclass
class Populated:
    world: World
    ids: dict[str, str]  # path parameter name -> a real id of it

    @property
    def api(self):
        return self.world.api


def _created(answer) -> dict:
    assert answer.status in (200, 201), answer.text
    return answer.json


def populate(world: World) -> Populated:
    api, page = world.api, f"/v1/pages/{world.page_id}"

    def make(path: str, wrapper: str, **fields) -> dict:
        return _created(api.post(path, {wrapper: fields}))

    component = make(f"{page}/components", "component", name="API")
    member = make(f"{page}/components", "component", name="Database")
    group = make(
        f"{page}/component-groups", "component_group", name="Backend", components=[member["id"]]
    )
    incident = make(
        f"{page}/incidents",
        "incident",
        name="Slow API",
        body="Looking into it",
        components={component["id"]: "degraded_performance"},
        component_ids=[component["id"]],
    )
    incident_path = f"{page}/incidents/{incident['id']}"
    _created(api.put(f"{incident_path}/postmortem", {"postmortem": {"body_draft": "Notes"}}))
    make(
        f"{page}/incident_templates",
        "template",
        name="DB",
        title="Database",
        component_ids=[component["id"]],
    )
    subscriber = make(
        f"{page}/subscribers",
        "subscriber",
        email="reader@example.com",
        component_ids=[component["id"]],
        skip_confirmation_notification=True,
    )
    incident_subscriber = make(
        f"{incident_path}/subscribers", "subscriber", email="one@example.com"
    )
    provider = next(p for p in api.get(f"{page}/metrics_providers").json if p["type"] == "Self")
    metric = make(
        f"{page}/metrics_providers/{provider['id']}/metrics", "metric", name="Latency", suffix="ms"
    )
    make(f"{page}/metrics/{metric['id']}/data", "data", timestamp=int(time.time()), value=12)
    # Nothing listens there: ticks of other tests find it failing, and it moves nothing.
    check = make(
        f"{page}/components/{component['id']}/checks",
        "check",
        url="http://127.0.0.1:9/health",
        failure_thresholds={"major_outage": 100},
    )
    integration = make(f"{page}/integrations", "integration", kind="generic", name="Monitoring")
    colleague = make(
        f"/v1/organizations/{world.organization_id}/users",
        "user",
        email=f"colleague-{world.page_id}@example.com",
        password="a colleague passphrase",
        first_name="Col",
        last_name="League",
    )
    access_user = make(
        f"{page}/page_access_users",
        "page_access_user",
        email="viewer@example.com",
        external_login="viewer",
    )
    access_group = make(
        f"{page}/page_access_groups",
        "page_access_group",
        name="Viewers",
        page_access_user_ids=[access_user["id"]],
        component_ids=[component["id"]],
    )
    ids = {
        "organization_id": world.organization_id,
        "page_id": world.page_id,
        "component_id": component["id"],
        "id": group["id"],  # the component group routes name theirs `id`
        "incident_id": incident["id"],
        "incident_update_id": incident["incident_updates"][0]["id"],
        "subscriber_id": subscriber["id"],
        "incident_subscriber_id": incident_subscriber["id"],
        "metrics_provider_id": provider["id"],
        "metric_id": metric["id"],
        "user_id": colleague["id"],
        "member_component_id": member["id"],
        "page_access_user_id": access_user["id"],
        "page_access_group_id": access_group["id"],
        "check_id": check["id"],
        "integration_id": integration["id"],
    }
    return Populated(world, ids)
