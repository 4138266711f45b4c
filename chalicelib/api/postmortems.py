"""Postmortems (SPEC 4.9), in both path styles."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.api.incidents import INCIDENT, INCIDENT_MANAGER
from chalicelib.domain import postmortems
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.http.routing import ApiRequest, Router

blueprint = Blueprint(__name__)
router = Router(blueprint, "postmortems")
POSTMORTEM = INCIDENT + "/postmortem"


def postmortem_out(postmortem: dict) -> schemas.PostmortemOut:
    return schemas.PostmortemOut(
        **{name: postmortem.get(name) for name in schemas.PostmortemOut.model_fields}
    )


@router.route(POSTMORTEM, ["GET"], summary="Get a postmortem", response="PostmortemOut")
def get_postmortem(request: ApiRequest):
    request.page()
    return postmortem_out(postmortems.get(request.params["page_id"], request.params["incident_id"]))


@router.route(
    POSTMORTEM,
    ["PUT"],
    summary="Create or update a postmortem draft",
    body="PostmortemDraft",
    response="PostmortemOut",
)
def save_postmortem_draft(request: ApiRequest):
    request.page(INCIDENT_MANAGER)
    if not request.body:
        raise errors.bad_request()
    draft = request.parse().postmortem
    return postmortem_out(
        postmortems.save_draft(
            request.params["page_id"], request.params["incident_id"], draft.body_draft
        )
    )


@router.route(
    POSTMORTEM + "/publish",
    ["PUT"],
    summary="Publish a postmortem",
    body="PostmortemPublish",
    response="PostmortemOut",
)
def publish_postmortem(request: ApiRequest):
    page = request.page(INCIDENT_MANAGER)
    options = plain(request.parse().postmortem, postmortems.PublishOptions)
    return postmortem_out(postmortems.publish_on_page(page, request.params["incident_id"], options))


@router.route(
    POSTMORTEM + "/revert",
    ["PUT"],
    summary="Revert a published postmortem to draft",
    response="PostmortemOut",
)
def revert_postmortem(request: ApiRequest):
    request.page(INCIDENT_MANAGER)
    return postmortem_out(
        postmortems.revert(request.params["page_id"], request.params["incident_id"])
    )


@router.route(POSTMORTEM, ["DELETE"], summary="Delete a postmortem", status=204)
def delete_postmortem(request: ApiRequest):
    request.page(INCIDENT_MANAGER)
    postmortems.delete(request.params["page_id"], request.params["incident_id"])
