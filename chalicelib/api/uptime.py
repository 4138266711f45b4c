"""Component and component group uptime, from the status history (Statuspage's v1
`.../uptime`), in both path styles."""

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.domain import uptime
from chalicelib.http.routing import ApiRequest, Router

blueprint = Blueprint(__name__)
router = Router(blueprint, "uptime")


@router.route(
    "/v1/pages/{page_id}/components/{component_id}/uptime",
    ["GET"],
    summary="Get uptime data for a component",
    response="ComponentUptimeOut",
    query="UptimeQuery",
)
def component_uptime(request: ApiRequest):
    page = request.page()
    query = request.parse_query()
    return schemas.ComponentUptimeOut(
        **uptime.component_uptime(
            page,
            request.params["component_id"],
            query.start,
            query.end,
            related=not query.skip_related_events,
        )
    )


@router.route(
    "/v1/pages/{page_id}/component-groups/{id}/uptime",
    ["GET"],
    summary="Get uptime data for a component group",
    response="ComponentGroupUptimeOut",
    query="UptimeQuery",
)
def component_group_uptime(request: ApiRequest):
    page = request.page()
    query = request.parse_query()
    return schemas.ComponentGroupUptimeOut(
        **uptime.group_uptime(
            page,
            request.params["id"],
            query.start,
            query.end,
            related=not query.skip_related_events,
        )
    )
