"""The import itself: read the source page whole, then write it into a page of ours.

Everything is read first (at the source's pace), so a source that fails halfway through
reading writes nothing, and the writing has totals to estimate from. Things are written in
the order their references need: groups before their components, components before the
incidents, templates and subscribers that name them, incidents before their subscribers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from chalicelib import schemas
from chalicelib.domain import (
    components,
    errors,
    import_mapping,
    imported,
    metrics,
    organizations,
    page_access,
    pages,
    subscribers,
)
from chalicelib.http.inputs import plain
from chalicelib.importer import from_file, metric_data
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import Reader, Source, SourceError, SourceMissing

if TYPE_CHECKING:
    from chalicelib.store.models import Page

# Page fields the source's page is copied into; the images come by their URL (the image's
# own name in a page read, the field that sets it in a write: `pages.IMAGES`).
WRITABLE_PAGE_FIELDS = set(schemas.PageFields.model_fields) - {"layout", *pages.IMAGES}
# The provider type of a page's own (custom) metrics; metrics of other providers read
# third-party services with credentials the v1 API does not give out.
SELF_PROVIDER = "Self"


class ImportRefused(Exception):
    """The import cannot go ahead as asked; the message says why."""


@dataclass
class Request:
    from_url: str
    from_key: str
    source_page_id: str
    organization_id: str
    into: str | None = None
    rate: float = 1.0
    dry_run: bool = False
    # An export document (`from_file.load`) read in place of the source at `from_url`.
    document: dict | None = None


def read(source: Reader, page_id: str, progress: Progress) -> dict:
    """Everything an import brings of the source's page `page_id` (an export holds this)."""
    base = f"/pages/{page_id}"
    page = source.get(base)
    if not isinstance(page, dict) or "id" not in page or "name" not in page:
        raise SourceError(f"{base}: not a Statuspage page: is --from-url a Statuspage v1 API?")
    progress.has_read("page", 1)
    embed = source.get(base + "/status_embed_config")
    progress.has_read("status_embed_config", 1)
    lists = {
        "components": lambda: source.pages(base + "/components"),
        "incident_templates": lambda: source.pages(base + "/incident_templates"),
        "incidents": lambda: source.pages(base + "/incidents"),
        "subscribers": lambda: _subscribers(source, base, progress),
        "metrics": lambda: _custom_metrics(source, base, progress),
        "page_access_groups": lambda: source.pages(base + "/page_access_groups"),
        "page_access_users": lambda: _access_users(source, base),
    }
    found = {}
    for kind, read in lists.items():
        found[kind] = list(read())
        if any(not isinstance(item, dict) or "id" not in item for item in found[kind]):
            raise SourceError(f"{base}/{kind}: unexpected items: not a Statuspage v1 API?")
        progress.has_read(kind, len(found[kind]))
    more = _incident_subscribers(source, base, found)
    if more:
        found["subscribers"] += more
        progress.has_read("subscribers", len(found["subscribers"]))
    postmortems = _postmortems(source, base, found["incidents"], progress)
    metric_data.read(source, base, found["metrics"], progress)
    progress.say(f"{source.requests} requests to the source")
    return {
        "page": page,
        "status_embed_config": embed if isinstance(embed, dict) else {},
        "postmortems": postmortems,
        **found,
    }


def _subscribers(source: Reader, base: str, progress: Progress) -> list[dict]:
    """The page's subscribers in every state, those who left too: `state=all` lists the
    others, `/subscribers/unsubscribed` them (kept here unsubscribed, so a later import does
    not add them back). The unsubscribed come first: written first, they free the addresses
    that subscribers who came back hold now."""
    try:
        left = [
            {**subscriber, "state": subscribers.UNSUBSCRIBED}
            for subscriber in source.pages(base + "/subscribers/unsubscribed")
            if isinstance(subscriber, dict)
        ]
    except SourceMissing:
        progress.say("unsubscribed subscribers: not readable from this source; none imported")
        left = []
    gone = {subscriber.get("id") for subscriber in left}
    listed = source.pages(base + "/subscribers", "subscribers", state="all")
    return left + [s for s in listed if not isinstance(s, dict) or s.get("id") not in gone]


def _postmortems(
    source: Reader, base: str, incidents: list[dict], progress: Progress
) -> dict[str, dict]:
    """Each incident's postmortem by its own read, draft or published (an incident shows the
    published text only): a request an incident. An incident left out has none, or the
    source has no such read (404 and 405 alike): its incident's fields tell what it
    published."""
    found = {}
    for incident in incidents:
        try:
            postmortem = source.get(f"{base}/incidents/{incident['id']}/postmortem")
        except SourceMissing:
            continue
        written = ("created_at", "body", "body_draft", "published_at")
        if isinstance(postmortem, dict) and any(postmortem.get(name) for name in written):
            found[incident["id"]] = postmortem
    progress.say(f"read postmortems: {len(found)}")
    return found


def _custom_metrics(source: Reader, base: str, progress: Progress) -> list[dict]:
    providers = list(source.pages(base + "/metrics_providers"))
    own = {p.get("id") for p in providers if isinstance(p, dict) and p.get("type") == SELF_PROVIDER}
    found = list(source.pages(base + "/metrics"))
    custom = [m for m in found if isinstance(m, dict) and m.get("metrics_provider_id") in own]
    if len(custom) < len(found):
        progress.say(f"metrics: {len(found) - len(custom)} of other providers skipped")
    return custom


def _incident_subscribers(source: Reader, base: str, found: dict) -> list[dict]:
    """Subscribers of one incident, open or closed, that the page's list left out: Statuspage
    lists them only under their incident, a request an incident. A source whose page list
    says which incident each subscriber is of (`incident_id`, as this service's does) lists
    them all there, and is not asked again."""
    if any("incident_id" in subscriber for subscriber in found["subscribers"]):
        return []
    seen = {subscriber.get("id") for subscriber in found["subscribers"]}
    more = []
    for incident in found["incidents"]:
        path = f"{base}/incidents/{incident['id']}/subscribers"
        for subscriber in source.pages(path, "subscribers", state="all"):
            if isinstance(subscriber, dict) and subscriber.get("id") not in seen:
                seen.add(subscriber.get("id"))
                more.append({**subscriber, "incident_id": incident["id"]})
    return more


def _access_users(source: Reader, base: str) -> list[dict]:
    """Page access users with the components and metrics granted to them (the user itself
    does not list them: two more lists a user)."""
    users = list(source.pages(base + "/page_access_users"))
    for user in users:
        if isinstance(user, dict) and "id" in user:
            path = f"{base}/page_access_users/{user['id']}"
            user["component_ids"] = [c["id"] for c in source.pages(path + "/components")]
            user["metric_ids"] = [m["id"] for m in source.pages(path + "/metrics")]
    return users


def _write_access(
    page_id: str, found: dict, component_ids: dict, metric_ids: dict, progress: Progress
) -> None:
    """Groups, then users (who name their groups): each through the rules of page access,
    which keep both sides of a membership and every user's view."""
    # Each holder's fields are checked as the API's body of it is, then given to the rules.
    kinds = (
        (
            "page_access_groups",
            page_access.GROUP,
            imported.access_group_fields,
            schemas.PageAccessGroupCreateFields,
            page_access.GroupInput,
        ),
        (
            "page_access_users",
            page_access.USER,
            imported.access_user_fields,
            schemas.PageAccessUserFields,
            page_access.UserInput,
        ),
    )
    ours: dict[str, dict[str, str]] = {}
    stamps: dict[str, tuple] = {}
    for kind, *_ in kinds:
        scope = import_mapping.scope_of(page_id, kind)
        known = import_mapping.mapped(scope)
        ours[kind] = {
            source["id"]: known.get(source["id"])
            or imported.new_id_for(source)(f"{scope}#{source['id']}")
            for source in found[kind]
        }
        for source in found[kind]:
            stamps[ours[kind][source["id"]]] = imported.stamps(source)
    grants = {"component_ids": component_ids, "metric_ids": metric_ids}
    grants["page_access_group_ids"] = ours["page_access_groups"]
    for kind, model, fields_of, body, input_class in kinds:
        scope = import_mapping.scope_of(page_id, kind)
        known = import_mapping.mapped(scope)
        for source in found[kind]:
            target_id = ours[kind][source["id"]]
            try:
                fields = plain(body(**fields_of(source, grants)), input_class)
                written = page_access.import_holder(page_id, model, target_id, fields, stamps)
            except errors.DomainError as error:
                progress.skipped(kind, source["id"], str(error))
                progress.item(kind, False)
                continue
            if source["id"] not in known:
                import_mapping.remember(scope, source["id"], target_id)
            progress.item(kind, written)


def _orphaned(incident_ids: Collection[str]) -> Callable[[dict], str | None]:
    """Why a subscriber is left out (None: it is not): an incident subscriber whose incident
    is not imported (`incident_ids`: the source ids of the incidents imported, now or
    before), deleted at the source or skipped here. Written without its incident it would be
    a page subscriber, told of every incident, and an import never widens what a subscriber
    hears of."""

    def why(subscriber: dict) -> str | None:
        incident_id = subscriber.get("incident_id")
        if incident_id and incident_id not in incident_ids:
            return f"its incident {incident_id} is not imported (deleted at the source?)"
        return None

    return why


def _take_back(page_id: str, orphans: list[dict], progress: Progress) -> None:
    """Unsubscribe the `orphans` an earlier import wrote as page subscribers all the same."""
    if not orphans:
        return
    ours = import_mapping.mapped(import_mapping.scope_of(page_id, "subscribers"))
    for orphan in orphans:
        if orphan["id"] not in ours:
            continue
        try:
            written = subscribers.find(page_id, ours[orphan["id"]])
        except errors.NotFound:
            continue  # unsubscribed already
        if written.incident_id is None:
            subscribers.unsubscribe(written)
            progress.say(
                f"subscribers {orphan['id']}: unsubscribed here, where an earlier import "
                "made it a page subscriber"
            )


def _check_limits(found: dict) -> None:
    """A page here holds at most so many components, metrics and subscribers; a source page
    above one is refused before anything is written rather than imported in part."""
    listed = [s for s in found["subscribers"] if s.get("state") != subscribers.UNSUBSCRIBED]
    for kind, number, limit in (
        ("components", len(found["components"]), components.MAX_COMPONENTS_PER_PAGE),
        ("metrics", len(found["metrics"]), metrics.MAX_METRICS_PER_PAGE),
        ("subscribers", len(listed), subscribers.MAX_SUBSCRIBERS_PER_PAGE),
    ):
        if number > limit:
            raise ImportRefused(f"the source page has {number} {kind}; a page here, {limit}")


def _target(request: Request) -> Page | None:
    """The page written into: `--into` (of the organization), the one an earlier import
    made, or (None) a new one."""
    if organizations.find_organization(request.organization_id) is None:
        raise ImportRefused(f"no organization {request.organization_id}")
    page_id = request.into or import_mapping.target_of(
        f"organization#{request.organization_id}#page", request.source_page_id
    )
    if page_id is None:
        return None
    page = pages.find_page(page_id, consistent=True)
    if page is None:
        raise ImportRefused(f"no page {page_id} here (--into)")
    if page.organization_id != request.organization_id:
        raise ImportRefused(f"page {page_id} belongs to another organization")
    return page


def _valid_page_fields(source_page: dict, progress: Progress) -> dict:
    fields = imported.page_fields(source_page, WRITABLE_PAGE_FIELDS)
    # The files stay where the source hosts them: a page here holds a URL, not an image.
    for field, image in pages.IMAGES.items():
        if isinstance(source_page.get(image), str) and source_page[image]:
            fields[field] = source_page[image]
    kept = {}
    for name, value in fields.items():
        try:
            schemas.PageFields(**{name: value})
        except ValidationError:
            progress.say(f"page field {name} skipped: its value is not valid here")
            continue
        kept[name] = value
    return kept


def _page_input(values: dict) -> pages.PageInput:
    """Page fields by name (each one checked by `_valid_page_fields`), as the rules take them."""
    return plain(schemas.PageFields(**values), pages.PageInput)


def _write_page(request: Request, page: Page | None, source_page: dict, progress) -> Page:
    fields = _valid_page_fields(source_page, progress)
    if page is None:
        page = pages.create_page(request.organization_id, _page_input(fields))
        import_mapping.remember(
            f"organization#{request.organization_id}#page", request.source_page_id, page.id
        )
        progress.item("page", True)
        return page
    current = pages.profile_of(page)
    changes = {
        name: value
        for name, value in fields.items()
        if current.get(pages.IMAGES.get(name, name)) != value
    }
    if changes:
        page = pages.update_page(page, _page_input(changes))
    progress.item("page", bool(changes))
    return page


def _write_embed(page: Page, source_embed: dict, progress: Progress) -> None:
    current = pages.embed_config_of(page)
    changes = {
        name: value
        for name, value in source_embed.items()
        if name in pages.DEFAULT_EMBED_CONFIG and value and current.get(name) != value
    }
    if changes:
        pages.update_embed_config(page, changes)
    progress.item("status_embed_config", bool(changes))


def _write_each(
    page_id: str,
    kind: str,
    found: list[dict],
    build,
    progress: Progress,
    *,
    public: bool = True,
    id_map: dict[str, str] | None = None,
    skip: Callable[[dict], str | None] | None = None,
) -> dict[str, str]:
    """Write each thing of `kind` found (`build(source, our id)`) but those `skip` gives a
    reason for, keeping `id_map` (source id to ours) current as it goes."""
    scope = import_mapping.scope_of(page_id, kind)
    if id_map is None:
        id_map = import_mapping.mapped(scope)
    for source in found:
        why = skip(source) if skip else None
        if why:
            progress.skipped(kind, source["id"], why)
            progress.item(kind, False)
            continue
        try:
            target_id, written = import_mapping.put(
                page_id,
                scope,
                source["id"],
                lambda target, source=source: build(source, target),
                imported.new_id_for(source),
                known=id_map.get(source["id"]),
                public=public,
            )
        except errors.Conflict:
            progress.skipped(kind, source["id"], "it conflicts with one of ours")
            progress.item(kind, False)
            continue
        id_map[source["id"]] = target_id
        progress.item(kind, written)
    return id_map


def run(request: Request, progress: Progress | None = None) -> dict:
    progress = progress or Progress()
    page = _target(request)
    if request.document is not None:
        found = from_file.found(request.document, progress)
    else:
        source = Source(request.from_url, request.from_key, request.rate)
        found = read(source, request.source_page_id, progress)
    _check_limits(found)
    if request.dry_run:
        known = {incident["id"] for incident in found["incidents"]}
        if page is not None:
            known |= set(import_mapping.mapped(import_mapping.scope_of(page.id, "incidents")))
        orphaned = _orphaned(known)
        for subscriber in found["subscribers"]:
            if why := orphaned(subscriber):
                progress.skipped("subscribers", subscriber["id"], why)
        return {
            "dry_run": True,
            "would_import": dict(progress.read),
            "would_skip": progress.skipped_items,
        }
    progress.start_writing()
    page = _write_page(request, page, found["page"], progress)
    _write_embed(page, found["status_embed_config"], progress)
    component_ids = import_mapping.mapped(import_mapping.scope_of(page.id, "components"))
    _write_each(
        page.id,
        "components",
        # Groups first: a component names its group by our id.
        sorted(found["components"], key=lambda item: not item.get("group")),
        lambda source, target: imported.component(page.id, source, target, component_ids),
        progress,
        id_map=component_ids,
    )
    _write_each(
        page.id,
        "incident_templates",
        found["incident_templates"],
        lambda source, target: imported.template(page.id, source, target, component_ids),
        progress,
        public=False,
    )
    incident_ids = _write_each(
        page.id,
        "incidents",
        found["incidents"],
        lambda source, target: imported.incident(
            page.id, source, target, component_ids, found["postmortems"].get(source["id"])
        ),
        progress,
    )
    orphaned = _orphaned(incident_ids)
    _take_back(page.id, [s for s in found["subscribers"] if orphaned(s)], progress)
    _write_each(
        page.id,
        "subscribers",
        found["subscribers"],
        lambda source, target: imported.subscriber(
            page.id, source, target, component_ids, incident_ids
        ),
        progress,
        public=False,
        skip=orphaned,
    )
    metric_ids = _write_each(
        page.id,
        "metrics",
        found["metrics"],
        lambda source, target: imported.metric(page.id, source, target, metric_data.newest(source)),
        progress,
    )
    for source_metric in found["metrics"]:
        if source_metric.get("data") and source_metric["id"] in metric_ids:
            target_id = metric_ids[source_metric["id"]]
            metric_data.write(page.id, target_id, source_metric["data"], progress)
    _write_access(page.id, found, component_ids, metric_ids, progress)
    progress.say(progress.line())
    return {
        "page_id": page.id,
        "imported": progress.summary(),
        "skipped": progress.skipped_items,
    }
