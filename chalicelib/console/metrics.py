"""Metrics in the console: the page's metrics providers (link, unlink), its metrics (create,
edit, delete), and a custom metric's values, entered one by one or from a CSV (previewed,
then confirmed), charted as the public page charts them.

Every change is the API's: the forms post its field names (`metrics_provider[...]`,
`metric[...]`, `data[...]`), validated by its schemas, written by its domain functions under
its role (`page_configuration`); a value, one by one or from a CSV, is written by the
function of the API's `POST .../metrics/{id}/data` (`metrics.add_point`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from urllib.parse import quote_plus

from chalice import Response

from chalicelib import clock, schemas
from chalicelib.console import metric_upload
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import metrics, metrics_providers
from chalicelib.domain.errors import NotAllowed
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.http.multipart import UploadedFile
from chalicelib.public import metric_charts
from chalicelib.views.metrics import metric_out
from chalicelib.web.templates import environment_for

METRICS = "/pages/{page_id}/metrics"
METRIC = METRICS + "/{metric_id}"
PROVIDERS = "/pages/{page_id}/metrics_providers"
PROVIDER = PROVIDERS + "/{provider_id}"
PROVIDER_LABELS = {metrics_providers.SELF: "Self (values entered here or sent to the API)"}
FIELD_LABELS = {
    "email": "Email",
    "password": "Password",
    "api_key": "API key",
    "api_token": "API token",
    "application_key": "Application key",
}
# The kinds a page links, with the credentials each needs (the Self provider comes with it).
THIRD_PARTY = {kind: need for kind, need in metrics_providers.REQUIRED_FIELDS.items() if need}
# Fields a form leaves blank to mean "none": absent from what the API is given.
_OPTIONAL = (*metrics_providers.SECRET_FIELDS, "metric_base_uri", "metric_identifier")
# Fields a blank clears (the API's null).
_CLEARED = ("y_axis_min", "y_axis_max", "tooltip_description")


def _page_id(screen: Screen) -> str:
    return screen.request.params["page_id"]


def _fields(screen: Screen, wrapper: str) -> dict:
    fields = screen.form.get(wrapper)
    if not isinstance(fields, dict):
        raise errors.unprocessable({wrapper: ["is missing"]})
    for name in _OPTIONAL:
        if fields.get(name) == "":
            del fields[name]
    for name in _CLEARED:
        if fields.get(name) == "":
            fields[name] = None
    return fields


def _back(page_id: str, done: str, metric_id: str | None = None) -> Response:
    path = METRIC if metric_id else METRICS
    where = path.format(page_id=page_id, metric_id=metric_id)
    return redirect(f"{BASE}{where}?done={quote_plus(done)}")


def _provider_label(provider) -> str:
    return PROVIDER_LABELS.get(provider.type, provider.type)


@console_view(METRICS)
def list_metrics(screen: Screen) -> Response:
    page = screen.page(_page_id(screen))
    providers = metrics_providers.providers_of(page.id)
    found = sorted(metrics.metrics_of(page.id, consistent=True), key=lambda m: m.name.lower())
    labels = {provider.id: _provider_label(provider) for provider in providers}
    counts = {provider.id: 0 for provider in providers}
    for metric in found:
        counts[metric.metrics_provider_id] = counts.get(metric.metrics_provider_id, 0) + 1
    return screen.render(
        "metrics_list.html",
        page=page_heading(page),
        providers=providers,
        provider_labels=labels,
        counts=counts,
        metrics=found,
        kinds=THIRD_PARTY,
        field_labels=FIELD_LABELS,
        self_type=metrics_providers.SELF,
        can_write=screen.may(page.id, PAGE_CONFIGURATION),
        done=screen.request.query.get("done", ""),
    )


@console_view(PROVIDERS + "/new", ("POST",), again=list_metrics)
def create_provider(screen: Screen) -> Response:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    body = {"metrics_provider": _fields(screen, "metrics_provider")}
    parsed = errors.validated(schemas.MetricsProviderCreate, body, "metrics_provider")
    fields = plain(parsed.metrics_provider, metrics_providers.ProviderInput)
    provider = metrics_providers.create_provider(page.id, fields)
    return _back(page.id, f"{provider.type} provider linked")


@console_view(PROVIDER + "/delete", ("POST",))
def delete_provider(screen: Screen) -> Response:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    provider = metrics_providers.delete_provider(page.id, screen.request.params["provider_id"])
    return _back(page.id, f"{provider.type} provider unlinked, with its metrics")


@console_view(METRICS + "/new", ("POST",), again=list_metrics)
def create_metric(screen: Screen) -> Response:
    page = screen.page(_page_id(screen), PAGE_CONFIGURATION)
    provider_id = screen.form.get("metrics_provider_id")
    if not isinstance(provider_id, str) or not provider_id:
        raise errors.invalid("metrics_provider_id", "is required")
    body = errors.validated(schemas.MetricCreate, {"metric": _fields(screen, "metric")}, "metric")
    metric = metrics.create_metric(page.id, provider_id, plain(body.metric, metrics.MetricInput))
    return _back(page.id, "Metric added", metric.id)


def _metric(screen: Screen, role: str | None = None) -> tuple[str, metrics.Metric]:
    page = screen.page(_page_id(screen), role)
    return page.id, metrics.get_metric(page.id, screen.request.params["metric_id"])


@console_view(METRIC)
def show_metric(screen: Screen) -> Response:
    page_id, metric = _metric(screen)
    period = metric_charts.period_of(screen.request.query.get("period"))
    shown = metric_out(metric).model_dump(mode="json")
    data = {"page": {"id": page_id, "time_zone": screen.zone}, "metrics": [shown]}
    (chart,) = metric_charts.charts(data, period, clock.now())
    return screen.render(
        "metric_edit.html",
        page=page_heading(screen.current_page),
        metric=shown,
        custom=metrics.is_custom(page_id, metric),
        chart=chart_markup(chart, screen.zone),
        period=period,
        periods=metric_charts.PERIOD_LABELS,
        now=clock.now(),
        max_rows=metric_upload.MAX_ROWS,
        can_write=screen.may(page_id, PAGE_CONFIGURATION),
        done=screen.request.query.get("done", ""),
    )


@lru_cache(maxsize=1)
def _public_macros():
    """The public page's template macros (beside its charts), the chart's among them."""
    folder = Path(metric_charts.__file__).parent / "templates"
    return environment_for(folder).get_template("macros.html")


def chart_markup(chart: metric_charts.Chart, time_zone: str):
    """The chart as the public page draws it (its own macro, not a copy)."""
    macros = _public_macros().make_module(
        {"chart_size": metric_charts.SIZE, "page": {"time_zone": time_zone}}
    )
    return macros.metric_chart(chart)


@console_view(METRIC, ("POST",), again=show_metric)
def update_metric(screen: Screen) -> Response:
    page_id, metric = _metric(screen, PAGE_CONFIGURATION)
    body = errors.validated(schemas.MetricUpdate, {"metric": _fields(screen, "metric")}, "metric")
    metrics.update_metric(page_id, metric.id, plain(body.metric, metrics.MetricInput))
    return _back(page_id, "Metric saved", metric.id)


@console_view(METRIC + "/delete", ("POST",))
def delete_metric(screen: Screen) -> Response:
    page_id, metric = _metric(screen, PAGE_CONFIGURATION)
    metrics.delete_metric(page_id, metric.id)
    return _back(page_id, f"Metric {metric.name} deleted")


@console_view(METRIC + "/data", ("POST",), again=show_metric)
def add_value(screen: Screen) -> Response:
    """One value at a time given in the page's zone, as the API's `data[timestamp]` takes it."""
    page_id, metric = _metric(screen, PAGE_CONFIGURATION)
    fields = screen.form.get("data")
    if not isinstance(fields, dict):
        raise errors.unprocessable({"data": ["is missing"]})
    given = fields.get("timestamp")
    if isinstance(given, str) and given:
        # As `screen.time_input` reads it, in Unix seconds (a time past the calendar's ends
        # is left as given, for the schema to refuse).
        seconds = metric_upload.unix_seconds(given, screen.zone)
        fields["timestamp"] = seconds if seconds is not None else given
    point = errors.validated(schemas.DataPointCreate, {"data": fields}, "data").data
    metrics.add_point(page_id, metric.id, plain(point, metrics.Point))
    return _back(page_id, "Value added", metric.id)


def _uploaded_text(screen: Screen) -> str:
    """The CSV posted: a file, or else text pasted."""
    upload = screen.form.get("csv_file")
    if isinstance(upload, UploadedFile):
        return metric_upload.text_of(upload.content)
    pasted = screen.form.get("csv")
    if isinstance(pasted, str) and pasted.strip():
        return pasted
    raise errors.invalid("csv", "choose a file or paste the values")


@console_view(METRIC + "/upload", ("POST",))
def preview_upload(screen: Screen) -> Response:
    """What a CSV would add, and which rows it would not and why; nothing is written yet."""
    page_id, metric = _metric(screen, PAGE_CONFIGURATION)
    if not metrics.is_custom(page_id, metric):
        raise NotAllowed()  # values of a provider's metric come from the provider
    preview = metric_upload.read(_uploaded_text(screen), screen.zone)
    return screen.render(
        "metric_upload.html",
        page=page_heading(screen.current_page),
        metric=metric,
        preview=preview,
    )


@console_view(METRIC + "/upload/confirm", ("POST",))
def confirm_upload(screen: Screen) -> Response:
    """The previewed rows, read again (the form carries them) and each added as the API adds
    one; any row no longer good (now older than 28 days) is skipped."""
    page_id, metric = _metric(screen, PAGE_CONFIGURATION)
    carried = screen.form.get("rows")
    if not isinstance(carried, list) or not all(isinstance(row, str) for row in carried):
        raise errors.invalid("rows", "is missing")
    preview = metric_upload.read("\n".join(carried), screen.zone)
    for row in preview.rows:
        metrics.add_point(page_id, metric.id, metrics.Point(row.timestamp, row.value))
    done = f"{len(preview.rows)} values added"
    if preview.refused:
        done += f"; {len(preview.refused)} skipped"
    return _back(page_id, done, metric.id)
