"""Metrics (SPEC 2.14, 4.11) and the data points of custom metrics (SPEC 2.15, 8)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.api.metrics_providers import PROVIDER
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.domain import metrics, metrics_providers
from chalicelib.http.inputs import plain
from chalicelib.http.pagination import limit_and_after, paginate
from chalicelib.http.routing import ApiRequest, Reply, Router
from chalicelib.notify import queues
from chalicelib.views.metrics import metric_out

blueprint = Blueprint(__name__)
router = Router(blueprint, "metrics")
PROVIDER_METRICS = PROVIDER + "/metrics"
METRICS = "/v1/pages/{page_id}/metrics"
METRIC = METRICS + "/{metric_id}"
METRIC_DATA = METRIC + "/data"


@router.route(
    PROVIDER_METRICS,
    ["GET"],
    summary="List a metrics provider's metrics",
    response="MetricOut",
    many=True,
    query="Pagination",
)
def list_provider_metrics(request: ApiRequest):
    page = request.page()
    provider = metrics_providers.get_provider(page.id, request.params["metrics_provider_id"])
    found = metrics.metrics_of(page.id, provider.id)
    return [metric_out(metric) for metric in paginate(found, request.query)]


@router.route(
    PROVIDER_METRICS,
    ["POST"],
    summary="Create a metric under a metrics provider (custom metrics: under Self)",
    body="MetricCreate",
    response="MetricOut",
    status=201,
)
def create_metric(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().metric, metrics.MetricInput)
    provider_id = request.params["metrics_provider_id"]
    return metric_out(metrics.create_metric(page.id, provider_id, fields))


@router.route(
    METRICS,
    ["GET"],
    summary="List the page's metrics",
    response="MetricOut",
    many=True,
    query="Pagination",
)
def list_metrics(request: ApiRequest):
    page = request.page()
    return [metric_out(metric) for metric in paginate(metrics.metrics_of(page.id), request.query)]


@router.route(
    METRICS + "/data",
    ["POST"],
    summary="Queue data points of several custom metrics (at most 3,000)",
    body="MetricDataBatch",
    response="MetricDataBatch",
    status=202,
    answers=(405,),  # a point of a metric that is not custom
)
def add_data_points(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    batch = request.parse()
    data = {
        metric_id: [plain(point, metrics.Point) for point in points]
        for metric_id, points in batch.data.items()
    }
    queues.send(queues.METRIC_DATA, metrics.batch_message(page.id, data))
    return Reply(batch.model_dump(mode="json"), status=202)


@router.route(METRIC, ["GET"], summary="Get a metric", response="MetricOut")
def get_metric(request: ApiRequest):
    page = request.page()
    return metric_out(metrics.get_metric(page.id, request.params["metric_id"]))


@router.route(
    METRIC, ["PATCH", "PUT"], summary="Update a metric", body="MetricUpdate", response="MetricOut"
)
def update_metric(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    fields = plain(request.parse().metric, metrics.MetricInput)
    return metric_out(metrics.update_metric(page.id, request.params["metric_id"], fields))


@router.route(METRIC, ["DELETE"], summary="Delete a metric and its data", response="MetricOut")
def delete_metric(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return metric_out(metrics.delete_metric(page.id, request.params["metric_id"]))


@router.route(
    METRIC_DATA,
    ["POST"],
    summary="Add a data point to a custom metric (cast to its 30-second interval)",
    body="DataPointCreate",
    response="DataPointAdded",
    status=201,
    answers=(405,),
)
def add_data_point(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    point = plain(request.parse().data, metrics.Point)
    stored = metrics.add_point(page.id, request.params["metric_id"], point)
    return schemas.DataPointAdded(
        data=schemas.DataPoint(timestamp=int(stored.at), value=stored.value)
    )


@router.route(
    METRIC_DATA,
    ["GET"],
    summary=(
        "Read a custom metric's points of the last 28 days, oldest first, a page at a time "
        "(an extension: Statuspage's v1 API has no read of metric data). For the next page "
        "pass the last point's timestamp as `after`; a page shorter than `limit` is the last."
    ),
    response="DataPointList",
    query="MetricDataQuery",
)
def list_data_points(request: ApiRequest):
    page = request.page()
    request.parse_query()
    limit, after = limit_and_after(request.query, schemas.metrics.MAX_POINTS_PER_PAGE)
    found = metrics.points_of(page.id, request.params["metric_id"], after, limit)
    return schemas.DataPointList(
        data=[schemas.DataPoint(timestamp=int(point.at), value=point.value) for point in found]
    )


@router.route(
    METRIC_DATA,
    ["DELETE"],
    summary="Delete all data of a custom metric",
    response="MetricOut",
    answers=(405,),
)
def reset_metric_data(request: ApiRequest):
    page = request.page(PAGE_CONFIGURATION)
    return metric_out(metrics.reset_data(page.id, request.params["metric_id"]))
