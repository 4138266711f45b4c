"""Built-in checks of a component (issue 34, item 7): managed by `page_configuration` only,
since a check's URL may name an internal service or carry a token."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import checks
from chalicelib.http.routing import ApiRequest, Router
from chalicelib.views.checks import check_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "checks")
CHECKS = "/v1/pages/{page_id}/components/{component_id}/checks"
CHECK = CHECKS + "/{check_id}"


def _fields(parsed) -> checks.CheckFields:
    return checks.fields_of(parsed.model_dump(exclude_unset=True))


@router.route(CHECKS, ["GET"], summary="List a component's checks", response="CheckOut", many=True)
def list_checks(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    found = checks.component_checks(page.id, request.params["component_id"])
    return [check_out(check) for check in found]


@router.route(
    CHECKS,
    ["POST"],
    summary="Create a check of a component (and the custom metric of its response times)",
    body="CheckCreate",
    response="CheckOut",
    status=201,
)
def create_check(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = _fields(request.parse().check)
    return check_out(checks.create_check(page.id, request.params["component_id"], fields))


@router.route(CHECK, ["GET"], summary="Get a check", response="CheckOut")
def get_check(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    params = request.params
    return check_out(checks.get_check(page.id, params["component_id"], params["check_id"]))


@router.route(
    CHECK, ["PATCH", "PUT"], summary="Update a check", body="CheckUpdate", response="CheckOut"
)
def update_check(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    params = request.params
    fields = _fields(request.parse().check)
    return check_out(
        checks.update_check(page.id, params["component_id"], params["check_id"], fields)
    )


@router.route(
    CHECK, ["DELETE"], summary="Delete a check and its response-time metric", response="CheckOut"
)
def delete_check(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    params = request.params
    return check_out(checks.delete_check(page.id, params["component_id"], params["check_id"]))
