"""The public status page's routes: no authentication, one snapshot read per view.

Each view answers under `/s/{page_id}` (a page id or subdomain; Chalice needs one name for
the parameter of `/s/...`, which the subscription links already call `page_id`) and, for a
request whose `Host` is `{subdomain}.{PUBLIC_DOMAIN}` or a page's custom domain, at the root
(`/`, `/history`, `/api/v2/summary.json`, ...).
"""

import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from chalice import Blueprint, Response

from chalicelib import clock, config
from chalicelib.domain import incidents
from chalicelib.domain.errors import DomainError
from chalicelib.http import errors
from chalicelib.http.routing import ApiRequest, Router, Style, json_response
from chalicelib.observability import logs as structured_logs
from chalicelib.public import (
    audience,
    caching,
    clock_changes,
    days,
    embed_script,
    feeds,
    html,
    metric_charts,
    status_api,
)
from chalicelib.views import content
from chalicelib.views import snapshot as page_snapshot
from chalicelib.views.snapshot import Snapshot
from chalicelib.web import security, templates

T = TypeVar("T")
blueprint = Blueprint(__name__)
router = Router(blueprint, "public status page")
BY_PATH = "/s/{page_id}"
HTML = "text/html; charset=utf-8"
FAVICON = "image/svg+xml"
_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")
_V2_SCHEMAS = {
    "summary.json": "SummaryDocument",
    "status.json": "StatusDocument",
    "components.json": "ComponentsDocument",
    "incidents.json": "IncidentsDocument",
    "incidents/unresolved.json": "IncidentsDocument",
    "scheduled-maintenances.json": "ScheduledMaintenancesDocument",
    "scheduled-maintenances/upcoming.json": "ScheduledMaintenancesDocument",
    "scheduled-maintenances/active.json": "ScheduledMaintenancesDocument",
}
V2_DOCUMENTS = tuple(_V2_SCHEMAS)
# Incidents a history page lists at most; the period's others are on the pages after it.
HISTORY_PAGE = 50
# An incident id, as `?before=` names one.
_CURSOR = re.compile(r"^[0-9a-z]{1,64}$")


class Visit:
    """One public request: the snapshot of its page and where the page's links start."""

    def __init__(
        self,
        request: ApiRequest,
        snapshot: Snapshot,
        base: str,
        site_url: str,
        viewer: audience.Viewer | None = None,
        reads: dict | None = None,
        fresh: bool = False,
    ):
        self.request = request
        self.snapshot = snapshot
        self.data = snapshot.content
        self.base = base
        self.site_url = site_url
        # The signed-in reader of an audience-specific page (the snapshot is theirs).
        self.viewer = viewer
        # What the view read beyond the snapshot, shared by the visits of one publish (the
        # same page at each of its places reads the same items).
        self.reads = {} if reads is None else reads
        # A publish renders anew: the bodies kept for readers within a minute may predate a
        # write that changes no version of the page (a chart's points), which it must show.
        self.fresh = fresh

    def read(self, function: Callable[..., T], *arguments) -> T:
        """`function(*arguments)`, once per `reads`."""
        key = (function.__module__, function.__qualname__, *arguments)
        if key not in self.reads:
            self.reads[key] = function(*arguments)
        return self.reads[key]

    def shows(self, component_ids: list[str] | None) -> bool:
        """Whether the viewer sees an incident touching `component_ids` (all do on a page
        that is not audience-specific)."""
        if self.viewer is None:
            return True
        return audience.keeps(component_ids or [], audience.visible_ids(self.data, self.viewer))

    def respond(
        self,
        content_type: str,
        render: Callable[[], str],
        *parts: str,
        embeddable: bool = False,
    ) -> Response:
        etag = caching.etag_of(self.snapshot.etag, self.base, *parts)
        extra = {} if self.base else {"Vary": "Host"}
        if self.viewer is not None:
            # One reader's view: no shared cache may keep it, and a browser asks again.
            extra["Cache-Control"] = "private, no-cache"
            extra["Vary"] = ", ".join(filter(None, [extra.get("Vary"), "Cookie"]))
        if content_type.startswith("application/json"):
            extra["Access-Control-Allow-Origin"] = "*"
        if content_type == HTML:
            return caching.respond(
                self.request.headers,
                etag,
                content_type,
                render,
                extra,
                security.for_html,
                reuse=not self.fresh,
            )
        extra.update(security.for_data(embeddable=embeddable))
        return caching.respond(
            self.request.headers, etag, content_type, render, extra, reuse=not self.fresh
        )


def _by_path(request: ApiRequest) -> tuple[Snapshot | None, str, str]:
    reference = request.params["page_id"]
    base = f"/s/{reference}"
    viewer = audience.viewer_key(request.headers)
    snapshot = page_snapshot.load_by_reference(reference, viewer)
    if snapshot is not None:
        structured_logs.annotate(page_id=snapshot.page_id)  # a page, not the caller's string
    return snapshot, base, config.public_base_url() + base


def _by_host(request: ApiRequest) -> tuple[Snapshot | None, str, str]:
    # Behind CloudFront, API Gateway gets its own name as `Host`: the reader's comes in
    # `X-Forwarded-Host` (infra/cloudfront/viewer-request.js). Any client may send one; it
    # names a page whose public view anyone gets at that host anyway.
    named = request.headers.get("x-forwarded-host") or request.headers.get("host", "")
    host = named.split(":")[0].strip().lower().rstrip(".")
    if not _HOST.match(host):
        return None, "", ""
    subdomain = _subdomain_of(host)
    viewer = audience.viewer_key(request.headers)
    snapshot = page_snapshot.load_by_subdomain(subdomain, viewer) if subdomain else None
    if snapshot is not None:
        return snapshot, "", content.host_url(host, custom_domain=False)
    snapshot = page_snapshot.load_by_domain(host, viewer)
    return snapshot, "", content.host_url(host, custom_domain=True)


def _subdomain_of(host: str) -> str | None:
    """`acme` of `acme.{PUBLIC_DOMAIN}`: one label, as subdomains are."""
    domain = config.public_domain()
    if not domain or not host.endswith("." + domain):
        return None
    label = host[: -len(domain) - 1]
    return label if label and "." not in label else None


def refusal(
    error: errors.ApiError, as_html: bool, shown: dict | None = None, base: str = ""
) -> Response:
    """The answer of a public path that cannot show what was asked; `shown`: the page's
    content when there is a page at `base` (a missing incident of it is a page of its own,
    with the way back to its status)."""
    if not as_html:
        headers = {"Cache-Control": "no-store", **security.for_data(), **error.headers}
        return json_response(error.body(), error.status, headers)
    if shown is not None and error.status == 404:
        body = html.notice_page(
            shown,
            base,
            "Page not found",
            "Nothing is published at this address: it may have been mistyped, or what it "
            "showed was removed.",
            {"href": base or "/", "text": "See the current status"},
        )
        return caching.uncached(body, 404, HTML, security.for_html(body))
    titles = {
        401: "This page is private",
        404: "Page not found",
        400: "Bad request",
        429: "Too many requests",
    }
    messages = {
        401: "You must be signed in to see this status page.",
        404: "There is no status page here.",
        429: "Too many subscriptions from here for now. Try again later.",
    }
    body = html.error_page(
        titles.get(error.status, error.message), messages.get(error.status, error.message)
    )
    return caching.uncached(body, error.status, HTML, {**security.for_html(body), **error.headers})


def sign_in_required(snapshot: Snapshot, base: str) -> Response:
    """An audience-specific page to a reader not signed in: the sign-in form, no status."""
    body = html.sign_in_page(snapshot.content, base)
    return caching.uncached(body, 401, HTML, security.for_html(body))


def public_view(
    suffix: str,
    summary: str,
    *,
    as_html: bool = False,
    content_type: str = "application/json",
    response=None,
    otherwise: Callable[[], Response] | None = None,
    methods: tuple[str, ...] = ("GET", "HEAD"),
    status: int = 200,
    answers: tuple[int, ...] = (),
    body: str | None = None,
    on: Router = router,
    viewers_only: bool = True,
):
    """Register a view (GET and HEAD, unless `methods` says otherwise; its success answers
    `status`) under `/s/{page_id}` and at the root of a custom domain, on the router `on`.
    `otherwise` answers instead of the refusal when there is no page to show (or it is
    private). On an audience-specific page a view shows the signed-in reader's part of it, and
    asks anyone else to sign in (unless not `viewers_only`: the sign-in pages themselves)."""

    def register(view: Callable[[Visit], Response]) -> Callable:
        for prefix, locate, name in ((BY_PATH, _by_path, ""), ("", _by_host, "_by_domain")):

            def handler(request: ApiRequest, locate=locate) -> Response:
                shown = None  # the page's content, once it may be shown
                try:
                    snapshot, base, site_url = locate(request)
                    if snapshot is None:
                        raise errors.not_found()
                    page = snapshot.content["page"]
                    if page["private"]:
                        raise errors.unauthenticated()
                    viewer = None
                    if page.get("audience_specific") and viewers_only:
                        viewer = audience.viewer_from(snapshot.alongside, request.headers)
                        if viewer is None:
                            if as_html and not otherwise:
                                return sign_in_required(snapshot, base)
                            raise errors.unauthenticated()
                        snapshot = audience.shown_to(snapshot, viewer)
                    shown = snapshot.content
                    return view(Visit(request, snapshot, base, site_url, viewer))
                except errors.ApiError as error:
                    return otherwise() if otherwise else refusal(error, as_html, shown, base)
                except DomainError as error:
                    refused = errors.from_domain(error)
                    return otherwise() if otherwise else refusal(refused, as_html, shown, base)

            handler.__name__ = f"{view.__name__}{name}"
            where = "" if prefix else " (custom domain, by Host)"
            on.route(
                (prefix + suffix) or "/",
                list(methods),
                summary=summary + where,
                response=response,
                status=status,
                authenticated=False,
                body=body,
                style=Style.CURRENT,
                content_type=HTML if as_html else content_type,
                answers=answers + ((302,) if otherwise else ()),
            )(handler)
        return view

    return register


@public_view("", "Public status page", as_html=True)
def status_page(visit: Visit) -> Response:
    """The page; with displayed metrics, their charts over `?metric_period=` (day, week or
    month) read when rendered (a Query each), and a body kept a minute at most."""
    now = clock.now()
    period = metric_charts.period_of(visit.request.query.get("metric_period"))
    charted = bool(visit.data.get("metrics"))

    def render() -> str:
        charts = metric_charts.charts(visit.data, period, now) if charted else []
        return html.status_page(visit.data, visit.base, now, charts, period)

    # Data points change no snapshot: an answer of the app with charts is kept a minute.
    fresh = (period, str(int(now.timestamp()) // 60)) if charted else ()
    return visit.respond(HTML, render, "page", clock_changes.period_of(visit.data, now), *fresh)


@public_view(
    "/history",
    "Incident history, a quarter a page (?quarter=YYYY-Qn, or one month: ?month=YYYY-MM), "
    "the newest incidents first; ?before={incident id}: those after it in that order",
    as_html=True,
)
def history_page(visit: Visit) -> Response:
    query = visit.request.query
    time_zone = visit.data["page"]["time_zone"]
    now = clock.now()
    # A malformed period or cursor is a 400 before anything else.
    period = days.parse_period(query.get("quarter"), query.get("month"), days.today(time_zone, now))
    before = query.get("before")
    if before is not None and not _CURSOR.match(before):
        raise errors.bad_request()
    listed = history_entries(visit, period, before)

    def render() -> str:
        entries = [entry for entry in listed.entries if visit.shows(entry["component_ids"])]
        return html.history_page(visit.data, visit.base, period, entries, now, listed)

    parts = ("history", period.label, before or "", clock_changes.period_of(visit.data, now))
    return visit.respond(HTML, render, *parts)


def history_entries(visit: Visit, period: days.Period, before: str | None) -> days.HistoryEntries:
    """Read once for the renders of one publish."""
    start, end = period.bounds(visit.data["page"]["time_zone"])
    return visit.read(_history_entries, visit.snapshot.page_id, start, end, before)


def _history_entries(
    page_id: str, start: datetime, end: datetime, before: str | None
) -> days.HistoryEntries:
    """One bounded Query (and, for a later page, the GetItem of the incident it follows),
    of one incident more than a page lists, which says there are more."""
    after = None
    if before is not None:
        after = incidents.get_record(page_id, before)
        if after.started_at is None or not start <= after.started_at < end:
            raise errors.not_found()
    found = incidents.started_between(page_id, start, end, HISTORY_PAGE + 1, after)
    records = found[:HISTORY_PAGE]
    more = records[-1].id if len(found) > HISTORY_PAGE else None
    return days.HistoryEntries([content.brief_entry(record) for record in records], before, more)


@public_view("/incidents/{incident_id}", "Incident: its updates and postmortem", as_html=True)
def incident_page(visit: Visit) -> Response:
    entry = incident_entry(visit, visit.request.params["incident_id"])
    return visit.respond(
        HTML,
        lambda: html.incident_page(visit.data, entry, visit.base),
        "incident",
        entry["incident"]["id"],
    )


def incident_entry(visit: Visit, incident_id: str) -> dict:
    """The incident from the snapshot when it holds it whole (open ones); a past one costs
    one Query more."""
    for entry in visit.data["incidents"]:
        if entry["incident"]["id"] == incident_id and entry["detailed"]:
            return entry
    incident = visit.read(incidents.get_incident, visit.snapshot.page_id, incident_id)
    if not visit.shows(incident.record.component_ids):
        raise errors.not_found()
    entry = content.incident_entry(incident)
    if visit.viewer is not None:
        seen = audience.visible_ids(visit.data, visit.viewer)
        entry = audience.entry_shown(entry, seen)
    return entry


def _feed(visit: Visit, kind: str) -> Response:
    if not visit.data["page"]["allow"]["allow_rss_atom_feeds"]:
        raise errors.not_found()
    if kind == "rss":
        return visit.respond(
            "application/rss+xml; charset=utf-8",
            lambda: feeds.rss(visit.data, visit.site_url),
            "rss",
            visit.site_url,
        )
    return visit.respond(
        "application/atom+xml; charset=utf-8",
        lambda: feeds.atom(visit.data, visit.site_url),
        "atom",
        visit.site_url,
    )


@public_view(
    "/history.rss",
    "Incident history as RSS (when the page allows feeds)",
    content_type="application/rss+xml; charset=utf-8",
)
def history_rss(visit: Visit) -> Response:
    return _feed(visit, "rss")


@public_view(
    "/history.atom",
    "Incident history as Atom (when the page allows feeds)",
    content_type="application/atom+xml; charset=utf-8",
)
def history_atom(visit: Visit) -> Response:
    return _feed(visit, "atom")


@public_view(
    "/embed/status.js",
    "Embed script: the status badge for other sites",
    content_type="application/javascript; charset=utf-8",
)
def embed_status_script(visit: Visit) -> Response:
    return visit.respond(
        "application/javascript; charset=utf-8",
        lambda: embed_script.script(visit.data, visit.site_url),
        "embed",
        visit.site_url,
        embeddable=True,
    )


def _default_favicon() -> Response:
    """The icon of a host or name that shows no page: the service's own."""
    return Response(
        body=html.favicon(None),
        status_code=200,
        headers={
            "Content-Type": FAVICON,
            "Cache-Control": f"public, max-age={caching.MAX_AGE_SECONDS}",
            **security.for_data(),
        },
    )


@public_view("/favicon.ico", "The page's icon", content_type=FAVICON, otherwise=_default_favicon)
def favicon(visit: Visit) -> Response:
    logo = visit.data["page"].get("favicon_logo")
    if templates.is_web_url(logo):
        headers = {"Location": logo, "Cache-Control": f"public, max-age={caching.MAX_AGE_SECONDS}"}
        return Response(body="", status_code=302, headers={**headers, **security.for_data()})
    return visit.respond(FAVICON, lambda: html.favicon(visit.data["page"]), "favicon")


def v2_view(document: str) -> Callable[[Visit], Response]:
    build = status_api.DOCUMENTS[document]

    def view(visit: Visit) -> Response:
        return visit.respond(
            "application/json",
            lambda: json.dumps(build(visit.data)),
            "v2",
            document,
        )

    view.__name__ = "status_api_" + re.sub(r"\W", "_", document.removesuffix(".json"))
    return view


for _document, _schema in _V2_SCHEMAS.items():
    public_view(f"/api/v2/{_document}", f"Status API v2: {_document}", response=_schema)(
        v2_view(_document)
    )
