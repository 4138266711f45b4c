"""What the public sees of a page, as the snapshot holds it.

Incidents and components are kept in the public status API v2 shapes (no automation emails,
metadata or postmortem drafts), with beside them what only the HTML page needs: colors and
flags, each showcased component's status history for its uptime bars, published postmortems.
Views derive the rest (which days are "the past 14", how long a bar is red) when they are
read, so a snapshot stays right as time passes without a write.
"""

from decimal import Decimal
from functools import cache
from urllib.parse import urlsplit

from chalicelib import clock, config, schemas
from chalicelib.domain import incidents as incident_rules
from chalicelib.domain import page_status, pages
from chalicelib.domain.incidents import Incident
from chalicelib.domain.pages import COLOR_FIELDS, DEFAULT_COLORS
from chalicelib.domain.uptime import Segment
from chalicelib.store.components import Component
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.metrics import Metric
from chalicelib.store.models import Page
from chalicelib.views.components import component_out
from chalicelib.views.incidents import incident_out

VERSION = 1
ALLOW_FLAGS = (
    "allow_page_subscribers",
    "allow_incident_subscribers",
    "allow_email_subscribers",
    "allow_sms_subscribers",
    "allow_webhook_subscribers",
    "allow_rss_atom_feeds",
)
_PROFILE_TEXTS = (
    "headline",
    "page_description",
    "branding",
    "support_url",
    "favicon_logo",
    "hero_cover",
    "transactional_logo",
    "dark_logo",
)
# What the HTML page calls each state of an incident or maintenance.
UNRESOLVED, RESOLVED = "unresolved", "resolved"
UPCOMING, IN_PROGRESS, COMPLETED = "upcoming", "in_progress", "completed"
SUMMARY_BODY_CHARS = 300
# The newest incidents and maintenances listed by the status API's documents (as Statuspage's
# do) and the feeds: the snapshot holds this many of the recent days, however busy a day was.
NEWEST_LISTED = 50
# Incidents an uptime bar's day cards may name, per component (the newest): the snapshot
# stays small however busy the bars' 90 days were.
UPTIME_MARKS = 60


def page_url(page: Page) -> str:
    """The page's own address: its custom domain, else the root of its host under
    PUBLIC_DOMAIN, else its path under PUBLIC_BASE_URL."""
    if page.domain:
        return host_url(page.domain, custom_domain=True)
    domain = config.public_domain()
    if domain and page.subdomain:
        return host_url(f"{page.subdomain}.{domain}", custom_domain=False)
    return f"{config.public_base_url()}/s/{page.subdomain or page.id}"


def host_url(host: str, *, custom_domain: bool) -> str:
    """The root of a host that serves a page, as every link to it is written (the summary's
    `url`, the feeds' links, the sign-in link): a custom domain on https, a host under
    PUBLIC_DOMAIN on the scheme and port of PUBLIC_BASE_URL."""
    if custom_domain:
        return f"https://{host}"
    address = urlsplit(config.public_base_url())
    port = f":{address.port}" if address.port else ""
    return f"{address.scheme}://{host}{port}"


def is_private(profile: dict) -> bool:
    """Pages only the organization's team may see: nobody without a login."""
    return bool(profile.get("viewers_must_be_team_members"))


def is_audience_specific(profile: dict) -> bool:
    """Pages shown only to signed-in page access users, each what they are granted."""
    return bool(profile.get("audience_specific")) and not is_private(profile)


@cache
def _fields(schema: str) -> tuple[str, ...]:
    """The fields of the public schema named `schema`: what a snapshot keeps of an object."""
    return tuple(getattr(schemas, schema).model_fields)


def public_component(shown: dict) -> dict:
    public = {name: shown.get(name) for name in _fields("PublicComponent") if name != "components"}
    if shown.get("group"):
        public["components"] = list(shown.get("components") or [])
    return public


def components_part(records: list[Component]) -> list[dict]:
    return [
        public_component(component_out(records, record).model_dump(mode="json"))
        for record in records
    ]


def _public_incident(shown: dict, scheduled: bool) -> dict:
    public = {
        name: shown.get(name)
        for name in _fields("PublicScheduledMaintenance" if scheduled else "PublicIncident")
    }
    public["started_at"] = shown["created_at"]
    public["incident_updates"] = [
        {name: update.get(name) for name in _fields("PublicIncidentUpdate")}
        for update in shown["incident_updates"]
    ]
    public["components"] = [public_component(component) for component in shown["components"]]
    return public


def state_of(incident: Incident) -> str:
    record = incident.record
    if record.scheduled:
        if incident_rules.is_upcoming(record):
            return UPCOMING
        return IN_PROGRESS if incident_rules.is_active_maintenance(record) else COMPLETED
    return UNRESOLVED if incident_rules.is_unresolved(record) else RESOLVED


def incident_entry(incident: Incident) -> dict:
    shown = incident_out(incident).model_dump(mode="json")
    published = shown.get("postmortem_published_at") and shown.get("postmortem_body")
    return {
        "scheduled": bool(incident.record.scheduled),
        "state": state_of(incident),
        "detailed": True,
        # What an audience-specific page filters on (brief entries have no components).
        "component_ids": list(incident.record.component_ids or []),
        "postmortem": {
            "body": shown["postmortem_body"],
            "published_at": shown["postmortem_published_at"],
        }
        if published
        else None,
        "incident": _public_incident(shown, bool(incident.record.scheduled)),
    }


def brief_entry(record: IncidentRecord) -> dict:
    """A past incident as the page lists it: its name, impact and newest update, linked to
    its own page (which reads the rest)."""
    entry = incident_entry(Incident(record, []))
    entry["incident"]["incident_updates"] = (
        [{name: (record.last_update or {}).get(name) for name in _fields("PublicIncidentUpdate")}]
        if record.last_update
        else []
    )
    entry["incident"]["components"] = []
    return {**entry, "detailed": False, "postmortem": None}


def is_open(entry: dict) -> bool:
    return entry["state"] in (UNRESOLVED, UPCOMING, IN_PROGRESS)


def status_part(records: list[Component], entries: list[dict]) -> dict:
    return status_of([record.status for record in records if not record.group], entries)


def status_of(statuses: list[str], entries: list[dict]) -> dict:
    """The indicator and description of components' `statuses` and incident `entries`."""
    unresolved = [e["incident"]["impact"] for e in entries if e["state"] == UNRESOLVED]
    in_maintenance = any(entry["state"] == IN_PROGRESS for entry in entries)
    indicator = page_status.indicator(statuses, unresolved, in_maintenance)
    return {"indicator": indicator, "description": page_status.description(indicator)}


def page_part(page: Page, profile: dict, updated_at: str) -> dict:
    colors = {name: profile.get(name) or DEFAULT_COLORS[name] for name in COLOR_FIELDS}
    return {
        "id": page.id,
        "subdomain": page.subdomain,
        "domain": page.domain,
        "name": profile.get("name") or "",
        "url": page_url(page),
        # The owner's company website, which the page's name links to (SPEC: `url`).
        "website": profile.get("url"),
        "time_zone": profile.get("time_zone") or "Etc/UTC",
        "updated_at": updated_at,
        "hidden_from_search": bool(profile.get("hidden_from_search")),
        "private": is_private(profile),
        "audience_specific": is_audience_specific(profile),
        "allow": {flag: bool(profile.get(flag)) for flag in ALLOW_FLAGS},
        "colors": colors,
        **{name: profile.get(name) for name in _PROFILE_TEXTS},
    }


def uptime_mark(record: IncidentRecord) -> dict:
    """An incident or maintenance as an uptime bar's day card names it: open from when it
    began (a maintenance: its window) until resolved or completed."""
    scheduled = bool(record.scheduled)
    return {
        "id": record.id,
        "name": record.name or "",
        "impact": "maintenance" if scheduled else (record.impact or "none"),
        "from": clock.iso(record.started_at or record.created_at),
        "until": clock.iso(record.resolved_at),
    }


def uptime_part(history: dict[str, tuple], related: list[IncidentRecord] = ()) -> dict:
    """Each showcased component's start, statuses and edited days (`{day: [minutes of major,
    of partial outage]}`) over the bars' window, and the newest `UPTIME_MARKS` of the
    `related` incidents that named it (for its bars' day cards)."""
    marks: dict[str, list[dict]] = {component_id: [] for component_id in history}
    for record in sorted(related, key=lambda record: record.id, reverse=True):
        # A backfilled outage that named no component counts on every one (`uptime`).
        named = record.component_ids or (list(marks) if record.counts_in_uptime else [])
        for component_id in dict.fromkeys(named):
            listed = marks.get(component_id)
            if listed is not None and len(listed) < UPTIME_MARKS:
                listed.append(uptime_mark(record))
    return {
        component_id: {
            "start": clock.iso(start),
            "segments": [[clock.iso(at), status] for at, status in segments],
            "edits": edits,
            "incidents": marks[component_id],
        }
        for component_id, (start, segments, edits) in history.items()
    }


# What the page's charts need of a displayed metric (its points are read when viewed).
_METRIC_FIELDS = (
    "id",
    "metrics_provider_id",
    "name",
    "tooltip_description",
    "suffix",
    "decimal_places",
    "y_axis_min",
    "y_axis_max",
    "y_axis_hidden",
)


def metrics_part(displayed: list[Metric]) -> list[dict]:
    return [
        {
            name: (float(value) if isinstance(value, Decimal) else value)
            for name, value in ((name, getattr(metric, name)) for name in _METRIC_FIELDS)
        }
        for metric in displayed
    ]


def build(
    page: Page,
    records: list[Component],
    entries: list[dict],
    history: dict[str, tuple[object, list[Segment]]],
    built_at: str,
    *,
    incomplete: bool = False,
    displayed: list[Metric] | None = None,
    related: list[IncidentRecord] = (),
) -> dict:
    """The snapshot's content. `entries` are `incident_entry`s, newest first; `incomplete`
    when older incidents were left out or summarized to fit; `displayed`: the metrics the
    page charts; `related`: the incidents open at some moment of the uptime bars' window."""
    profile = pages.profile_of(page)
    stamps = [clock.iso(page.updated_at)]
    stamps += [clock.iso(record.updated_at) for record in records]
    stamps += [entry["incident"]["updated_at"] for entry in entries]
    return {
        "version": VERSION,
        "built_at": built_at,
        "page": page_part(page, profile, max(stamp for stamp in stamps if stamp)),
        "status": status_part(records, entries),
        "components": components_part(records),
        "uptime": uptime_part(history, related),
        "incidents": entries,
        "embed": pages.embed_config_of(page),
        "incomplete": incomplete,
        "metrics": metrics_part(displayed or []),
    }
