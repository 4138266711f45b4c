"""Incidents and incident updates (SPEC 4.8), in both path styles."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.domain import incidents, organizations
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import page_and_size
from chalicelib.http.routing import ApiRequest, Router
from chalicelib.views.incidents import incident_out, update_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "incidents")
INCIDENTS = "/v1/pages/{page_id}/incidents"
INCIDENT = INCIDENTS + "/{incident_id}"
INCIDENT_MANAGER = organizations.INCIDENT_MANAGER


def _listed(request: ApiRequest, keep) -> list[schemas.IncidentOut]:
    """A page of a list, as Statuspage's v1 pages them: `limit` (or `per_page`, default and
    max 100) and a 1-based `page`. The whole list reads only the incidents of the page asked
    for; the others read the open incidents (a sparse index) and the updates of the page's."""
    request.page()
    page_id = request.params["page_id"]
    query = dict(request.query)
    if "limit" in query:
        query["per_page"] = query["limit"]
    number, size = page_and_size(query)
    text = request.query.get("q")
    if keep is None:
        found = incidents.list_page(page_id, size, number, text)
    else:
        records = [record for record in incidents.open_records(page_id) if keep(record)]
        if text:
            found = incidents.search(incidents.with_updates(records), text)
            found = found[(number - 1) * size : number * size]
        else:
            found = incidents.with_updates(records[(number - 1) * size : number * size])
    return [incident_out(incident) for incident in found]


LISTS = {
    INCIDENTS: ("List incidents", None),
    INCIDENTS + "/unresolved": ("List unresolved incidents", incidents.is_unresolved),
    INCIDENTS + "/scheduled": (
        "List scheduled maintenances not completed",
        incidents.is_maintenance,
    ),
    INCIDENTS + "/upcoming": ("List upcoming maintenances", incidents.is_upcoming),
    INCIDENTS + "/active_maintenance": (
        "List active maintenances",
        incidents.is_active_maintenance,
    ),
}


def _register_list(path: str, summary: str, keep) -> None:
    def list_incidents(request: ApiRequest):
        return _listed(request, keep)

    list_incidents.__name__ = "list_" + path.rsplit("/", 1)[-1]
    router.route(
        path, ["GET"], summary=summary, response="IncidentOut", many=True, query="IncidentListQuery"
    )(list_incidents)


for _path, (_summary, _keep) in LISTS.items():
    _register_list(_path, _summary, _keep)


@router.route(
    INCIDENTS,
    ["POST"],
    summary="Create an incident",
    body="IncidentCreate",
    response="IncidentOut",
    status=201,
)
def create_incident(request: ApiRequest):
    fields = plain(request.parse().incident, incidents.IncidentInput)
    request.page(organizations.incident_role(incidents.is_scheduled(fields)))
    return incident_out(incidents.create_incident(request.params["page_id"], fields))


@router.route(INCIDENT, ["GET"], summary="Get an incident", response="IncidentOut")
def get_incident(request: ApiRequest):
    request.page()
    return incident_out(
        incidents.get_incident(request.params["page_id"], request.params["incident_id"])
    )


@router.route(
    INCIDENT,
    ["PATCH", "PUT"],
    summary="Update an incident",
    body="IncidentUpdate",
    response="IncidentOut",
)
def update_incident(request: ApiRequest):
    page_id, incident_id = request.params["page_id"], request.params["incident_id"]
    fields = plain(request.parse().incident, incidents.IncidentInput)
    request.page()
    existing = incidents.get_incident(page_id, incident_id)
    request.page(organizations.incident_role(existing.record.scheduled))
    return incident_out(incidents.update_incident(page_id, incident_id, fields))


@router.route(INCIDENT, ["DELETE"], summary="Delete an incident", response="IncidentOut")
def delete_incident(request: ApiRequest):
    page_id, incident_id = request.params["page_id"], request.params["incident_id"]
    request.page()
    existing = incidents.get_incident(page_id, incident_id)
    request.page(organizations.incident_role(existing.record.scheduled))
    return incident_out(incidents.delete_incident(page_id, incident_id))


@router.route(
    INCIDENT + "/incident_updates",
    ["GET"],
    summary="List an incident's updates",
    response="IncidentUpdateOut",
    many=True,
)
def list_incident_updates(request: ApiRequest):
    request.page()
    incident = incidents.get_incident(request.params["page_id"], request.params["incident_id"])
    return [update_out(update) for update in incident.updates]


@router.route(
    INCIDENT + "/incident_updates/{incident_update_id}",
    ["PATCH", "PUT"],
    summary="Edit an incident update",
    body="IncidentUpdateEdit",
    response="IncidentUpdateOut",
)
def edit_incident_update(request: ApiRequest):
    page_id, incident_id = request.params["page_id"], request.params["incident_id"]
    changes = request.parse().incident_update
    request.page(INCIDENT_MANAGER)
    incident = incidents.edit_update(
        page_id,
        incident_id,
        request.params["incident_update_id"],
        changes.model_dump(exclude_unset=True, exclude_none=True),
    )
    edited = [u for u in incident.updates if u.id == request.params["incident_update_id"]]
    if not edited:
        raise errors.not_found()
    return update_out(edited[0])
