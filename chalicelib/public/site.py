"""Every public file of a page, rendered by the views that answer its public URLs.

The publisher does not have a renderer of its own: it calls the same view functions the app
routes public requests to (`routes`, `subscriptions`), with the request a reader would send,
and keeps each answer whole (status, headers, body). What a reader gets from a published file
is therefore what the view answers, and the audience-specific pages, which stay dynamic, can
never drift from it.

A page is served at several *mounts*: `/s/{id}`, `/s/{subdomain}`, the root of
`{subdomain}.{PUBLIC_DOMAIN}` and of its custom domain. Links and feed addresses differ
between them, so each mount gets its own files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from chalice import Response

from chalicelib import clock, config
from chalicelib.domain import metrics, pages
from chalicelib.domain.errors import DomainError
from chalicelib.http import errors
from chalicelib.http.routing import ApiRequest
from chalicelib.public import clock_changes, days, html, metric_charts, routes, subscriptions
from chalicelib.views import content
from chalicelib.views.snapshot import Snapshot

if TYPE_CHECKING:
    from chalicelib.store.models import Page

# The query parameters that choose another file; any other parameter is ignored. `before`
# (a later page of a history period) is never published: the app answers it.
VARIANT_KEYS = ("quarter", "month", "metric_period", "via", "before")
# Past quarters of the history published beside the current one; older ones are rendered by
# the app when asked for (each costs its own reads at every publish).
PAST_QUARTERS = 0
# The header each file's answer gets from its manifest entry instead (the body's own hash).
_ETAG = "etag"
_LOOKS_LIKE_PAGE_ID = re.compile(r"^[0-9a-z]{16}$")


@dataclass(frozen=True)
class Mount:
    """Where the page is served: `folder` in the site store, links under `base`."""

    folder: str
    base: str
    site_url: str
    host: str | None = None


@dataclass(frozen=True)
class File:
    """One public answer: `key` is its path below the mount (with `?name=value` for a
    variant)."""

    key: str
    status: int
    headers: dict[str, str]
    body: bytes
    # What it is made of (`render`), when the snapshot says it all.
    source: str | None = None

    @property
    def etag(self) -> str:
        digest = hashlib.sha256(self.body + json.dumps(self.headers).encode()).hexdigest()
        return f'"{digest[:32]}"'

    @property
    def name(self) -> str:
        """Its file name below the mount."""
        path, _, variant = self.key.partition("?")
        stem = path or "index"
        if "." not in stem.rsplit("/", 1)[-1]:
            stem += "@" + variant + ".html" if variant else ".html"
        elif variant:
            stem += "@" + variant
        return stem


def mounts_of(page: Page) -> list[Mount]:
    """Every place the page is served at."""
    base_url = config.public_base_url()
    found = [Mount(f"s/{page.id}", f"/s/{page.id}", f"{base_url}/s/{page.id}")]
    subdomain = page.subdomain
    # A page id always names its own page: a subdomain shaped like another page's id is
    # reached only through its host.
    if subdomain and subdomain != page.id and not _another_page(subdomain, page.id):
        found.append(Mount(f"s/{subdomain}", f"/s/{subdomain}", f"{base_url}/s/{subdomain}"))
    hosts: dict[str, bool] = {}  # each host, and whether it is the page's custom domain
    if subdomain and config.public_domain():
        hosts[f"{subdomain}.{config.public_domain()}"] = False
    if page.domain:
        hosts[page.domain.lower().rstrip(".")] = True
    # Links at a host's root are written as the page's own address writes that host.
    found += [
        Mount(f"hosts/{host}", "", content.host_url(host, custom_domain=custom), host)
        for host, custom in hosts.items()
    ]
    return found


def _another_page(reference: str, page_id: str) -> bool:
    if not _LOOKS_LIKE_PAGE_ID.match(reference):
        return False
    return pages.find_page(reference) is not None


def is_dynamic(snapshot: Snapshot) -> bool:
    """Pages answered by the app, not by files: private ones and audience-specific ones."""
    page = snapshot.content["page"]
    return bool(page["private"] or page.get("audience_specific"))


def render(
    snapshot: Snapshot,
    mount: Mount,
    skip: Callable[[str, str | None], bool] = lambda key, source: False,
    reads: dict | None = None,
) -> Iterator[File]:
    """Every file of the page at `mount`, but those `skip` says are current already: it is
    asked with each key and what the key's file is made of (`File.source`; None: made of
    more than the snapshot says, rendered every time). `reads`, shared by the renders of one
    publish, keeps what views read beyond the snapshot (a history period, a past incident)
    for the page's other places."""
    reads = {} if reads is None else reads
    for view in _views(snapshot):
        visit = _visit(snapshot, mount, view.query, view.params, reads)
        made_of = view.inputs(visit) if view.inputs is not None else None
        source = None if made_of is None else _digest([mount, _renderer(), made_of])
        wanted = [key for key in view.keys if not skip(key, source)]
        if wanted:
            rendered = _answer(view.keys[0], view.view, visit)
            yield from (replace(rendered, key=key, source=source) for key in wanted)


@dataclass(frozen=True)
class _View:
    """A view, its query and parameters, the keys it answers (a query naming the default
    answers as its absence does), and what its answer is made of (None: more than that)."""

    keys: tuple[str, ...]
    view: Callable
    query: dict
    params: dict
    inputs: Callable[[routes.Visit], object] | None


def _views(snapshot: Snapshot) -> Iterator[_View]:
    """Each view of the page, with what its answer is made of as the view uses it: an update
    to one incident leaves the other incidents' pages, the badge, the icon and the forms as
    they were."""
    data = snapshot.content
    today = days.today(data["page"]["time_zone"], clock.now())
    settings = _settings(data)
    # Everything the snapshot holds: what the page itself, its feeds and its JSON show.
    whole = _digest({name: value for name, value in data.items() if name != "built_at"})
    home: tuple[str, ...] = ("",)
    if data.get("metrics"):
        # The charts' points are read when rendered: no snapshot says they changed.
        home += (f"?metric_period={metric_charts.DEFAULT_PERIOD}",)
        for period in metrics.WINDOWS:
            if period != metric_charts.DEFAULT_PERIOD:
                query = {"metric_period": period}
                yield _View((f"?metric_period={period}",), routes.status_page, query, {}, None)
        yield _View(home, routes.status_page, {}, {}, None)
    else:
        made_of = [whole, clock_changes.period_of(data, clock.now())]
        yield _View(home, routes.status_page, {}, {}, lambda visit: made_of)
    period = days.parse_period(None, None, today)

    def history(visit: routes.Visit, period: days.Period = period) -> object:
        listed = routes.history_entries(visit, period, None)
        made_of = [settings, data["components"], listed.entries, listed.more, period.label]
        return [*made_of, str(today)]

    yield _View(("history", f"history?{period.parameter}"), routes.history_page, {}, {}, history)
    for _ in range(PAST_QUARTERS):
        period = period.before()
        query = {"quarter": period.label}
        keys = (f"history?{period.parameter}",)
        yield _View(keys, routes.history_page, query, {}, partial(history, period=period))
    for entry in data["incidents"]:
        params = {"incident_id": entry["incident"]["id"]}
        key = f"incidents/{entry['incident']['id']}"
        yield _View((key,), routes.incident_page, {}, params, lambda visit, e=entry: [settings, e])
    yield _View(("history.rss",), routes.history_rss, {}, {}, lambda visit: whole)
    yield _View(("history.atom",), routes.history_atom, {}, {}, lambda visit: whole)
    # The badge names the newest open incident or maintenance in progress.
    opened = [
        (entry["state"], entry["incident"]["id"], entry["incident"]["name"])
        for entry in data["incidents"]
        if content.is_open(entry)
    ]
    embedded = [data["embed"], opened]
    yield _View(("embed/status.js",), routes.embed_status_script, {}, {}, lambda v: embedded)
    yield _View(("favicon.ico",), routes.favicon, {}, {}, lambda visit: settings)
    kinds = [kind.name for kind in html.subscription_kinds(data["page"])]
    form = [settings, data["components"]]
    keys = ("subscribe", *(f"subscribe?via={kind}" for kind in kinds[:1]))
    yield _View(keys, subscriptions.subscribe_form, {}, {}, lambda visit: form)
    for kind in kinds[1:]:
        query = {"via": kind}
        keys = (f"subscribe?via={kind}",)
        yield _View(keys, subscriptions.subscribe_form, query, {}, lambda visit: form)
    for document in routes.V2_DOCUMENTS:
        keys = (f"api/v2/{document}",)
        yield _View(keys, routes.v2_view(document), {}, {}, lambda visit: whole)


def _settings(data: dict) -> dict:
    """The page's settings, but the time of its last change (only its JSON shows it)."""
    return {name: value for name, value in data["page"].items() if name != "updated_at"}


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@lru_cache(maxsize=1)
def _renderer() -> str:
    """The code and templates the files are rendered by: a release that changes them renders
    every file again."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".html", ".css", ".js", ".json") and path.is_file():
            digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()[:32]


def _visit(
    snapshot: Snapshot, mount: Mount, query: dict, params: dict, reads: dict
) -> routes.Visit:
    reference = mount.base.removeprefix("/s/") if mount.base else ""
    request = ApiRequest(
        params={"page_id": reference, **params},
        query=query,
        query_lists={name: [value] for name, value in query.items()},
        headers={"host": mount.host} if mount.host else {},
        archived=False,
        raw_body=None,
        content_type=None,
    )
    return routes.Visit(request, snapshot, mount.base, mount.site_url, reads=reads, fresh=True)


def _answer(key: str, view: Callable, visit: routes.Visit) -> File:
    as_html = key in ("", "history", "subscribe") or key.startswith(
        ("incidents/", "history?", "subscribe?", "?")
    )
    try:
        response = view(visit)
    except errors.ApiError as error:
        response = routes.refusal(error, as_html, visit.data, visit.base)
    except DomainError as error:
        response = routes.refusal(errors.from_domain(error), as_html, visit.data, visit.base)
    return _file(key, response)


def _file(key: str, response: Response) -> File:
    headers = {name: value for name, value in response.headers.items() if name.lower() != _ETAG}
    body = response.body
    if isinstance(body, str):
        body = body.encode()
    return File(key, response.status_code, headers, body or b"")
