"""`GET /v1/health`: Route 53's health check of this region, without a key (docs/deploy.md,
Two regions). 200 while the region reads its own table; 503 otherwise, so the failover
record sends the API, the console and every write to the other region."""

from chalice import Blueprint

from chalicelib import config, schemas
from chalicelib.domain import health
from chalicelib.http import errors
from chalicelib.http.routing import ApiRequest, Router, Style

blueprint = Blueprint(__name__)
router = Router(blueprint, "health")


@router.route(
    "/v1/health",
    ["GET"],
    summary="Whether this region reads its table (Route 53's health check)",
    response="HealthOut",
    authenticated=False,
    style=Style.CURRENT,
    answers=(503,),
)
def region_health(request: ApiRequest):
    if not health.table_answers():
        raise errors.ApiError(503, errors.UNAVAILABLE, headers={"Retry-After": "10"})
    return schemas.HealthOut(status="ok", region=config.region())
