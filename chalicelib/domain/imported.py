"""What each thing read from a Statuspage-compatible page becomes here, as our items.

The builders take the source's JSON as plain dicts and the id maps of what came before
(components before incidents, incidents before their subscribers), and keep the source's
timestamps: imported history reads as it happened, not as the day it was imported. Ids of
things with a mapping come from `import_mapping`; an incident's updates take ids derived
from their incident and their source id, so a second run finds them without a mapping each.
"""

from __future__ import annotations

from datetime import UTC, datetime

from chalicelib import clock, ids
from chalicelib.domain import (
    components,
    errors,
    incidents,
    metrics_providers,
    postmortems,
    subscriber_listing,
)
from chalicelib.domain import incident_states as states
from chalicelib.domain import subscribers as subscriber_rules
from chalicelib.domain.import_mapping import Built
from chalicelib.domain.markdown_text import strip_harmful
from chalicelib.store.components import Component
from chalicelib.store.incidents import IncidentRecord, IncidentTemplate, incident_key, update_key
from chalicelib.store.metrics import Metric
from chalicelib.store.subscribers import Subscriber

COMPONENT_STATUSES = (
    "operational",
    "degraded_performance",
    "partial_outage",
    "major_outage",
    "under_maintenance",
)


def moment(value: str | None) -> datetime | None:
    """A source timestamp (ISO 8601, `Z` or an offset) in UTC."""
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def new_id_for(source: dict):
    """Our id for a new thing, from `seed`: placed in time where the source's was made."""
    made = moment(source.get("created_at")) or datetime(1970, 1, 1, tzinfo=UTC)
    return lambda seed: ids.id_at(made, seed=seed)


def _mapped_ids(values, id_map: dict[str, str]) -> list[str]:
    found = []
    for value in values or []:
        source_id = value.get("id") if isinstance(value, dict) else value
        if source_id in id_map:
            found.append(id_map[source_id])
    return list(dict.fromkeys(found))


def component(page_id: str, source: dict, target_id: str, id_map: dict[str, str]) -> Built:
    """A component or a group; its group must be imported (and in `id_map`) before it."""
    created = moment(source.get("created_at")) or clock.now()
    status = source.get("status") if source.get("status") in COMPONENT_STATUSES else None
    return Built(
        [
            Component(
                page_id,
                target_id,
                name=source.get("name") or "",
                description=source.get("description"),
                position=int(source.get("position") or 0),
                status=status or "operational",
                showcase=source.get("showcase") is not False,
                only_show_if_degraded=bool(source.get("only_show_if_degraded")),
                automation_email=components.automation_email_of(target_id),
                start_date=source.get("start_date"),
                group_id=id_map.get(source.get("group_id") or ""),
                group=bool(source.get("group")),
                created_at=created,
                updated_at=moment(source.get("updated_at")) or created,
            )
        ]
    )


def _affected(values, component_map: dict[str, str]) -> list[dict] | None:
    if not values:
        return None
    return [
        {**value, "code": component_map.get(value.get("code"), value.get("code"))}
        for value in values
        if isinstance(value, dict)
    ]


def _update(
    page_id: str, incident_id: str, source: dict, component_map: dict[str, str]
) -> IncidentRecord:
    created = moment(source.get("created_at")) or clock.now()
    update_id = ids.id_at(created, seed=f"{incident_id}#{source.get('id')}")
    return IncidentRecord(
        page_id,
        update_key(incident_id, update_id),
        kind="update",
        incident_id=incident_id,
        id=update_id,
        status=source.get("status") or "investigating",
        created_at=created,
        updated_at=moment(source.get("updated_at")) or created,
        display_at=moment(source.get("display_at")) or created,
        body=source.get("body") or "",
        wants_social_update=bool(source.get("wants_social_update")),
        deliver_notifications=bool(source.get("deliver_notifications")),
        affected_components=_affected(source.get("affected_components"), component_map),
    )


def _stamp(value) -> str | None:
    """A source timestamp as ours reads (ISO 8601, UTC, milliseconds, `Z`)."""
    return clock.iso(moment(value)) if isinstance(value, str) else None


def _text(value) -> str | None:
    return strip_harmful(value) if isinstance(value, str) else None


def _published_postmortem(incident: dict) -> dict | None:
    """The postmortem as an incident shows it, for a source without the postmortem read: the
    published text only (a draft shows nowhere on an incident)."""
    body = incident.get("postmortem_body")
    if not body:
        return None
    published = incident.get("postmortem_published_at")
    updated = incident.get("postmortem_body_last_updated_at") or published
    return {
        "created_at": updated,
        "body": body,
        "body_updated_at": updated,
        "body_draft": body,
        "published_at": published,
        "updated_at": updated,
    }


def _preview_key(page_id: str, target_id: str, source: dict) -> str | None:
    """The source's preview key, else the one an earlier import made (None: a new one)."""
    if isinstance(source.get("preview_key"), str) and source["preview_key"]:
        return source["preview_key"]
    try:
        stored = incidents.get_record(page_id, target_id, consistent=True)
    except errors.NotFound:
        return None
    return (postmortems.postmortem_of(stored) or {}).get("preview_key")


def _postmortem(page_id: str, target_id: str, incident: dict, source: dict | None) -> dict | None:
    """The incident's postmortem, draft or published, as the source's postmortem read gives
    it (`source`; None: the source has no such read, and the incident's fields say what was
    published), made whole as one written here is, so it reads and edits the same. The
    incident's `postmortem_notified_*` flags keep it from notifying twice: a postmortem
    published once (notified or not) is never a first publication here."""
    source = source if source is not None else _published_postmortem(incident)
    if source is None:
        return None
    created = (
        _stamp(source.get("created_at"))
        or _stamp(source.get("updated_at"))
        or _stamp(incident.get("updated_at"))
        or clock.iso(clock.now())
    )
    postmortem = postmortems.blank(created)
    postmortem["preview_key"] = (
        _preview_key(page_id, target_id, source) or postmortem["preview_key"]
    )
    postmortem.update(
        body=_text(source.get("body")),
        body_updated_at=_stamp(source.get("body_updated_at")),
        body_draft=_text(source.get("body_draft")),
        body_draft_updated_at=_stamp(source.get("body_draft_updated_at")),
        published_at=_stamp(source.get("published_at")),
        notify_subscribers=bool(source.get("notify_subscribers")),
        notify_social=bool(source.get("notify_social")),
        custom_post=source.get("custom_post")
        if isinstance(source.get("custom_post"), str)
        else None,
        updated_at=_stamp(source.get("updated_at")) or created,
        ignored=bool(incident.get("postmortem_ignored")),
        notified_subscribers=bool(incident.get("postmortem_notified_subscribers")),
        notified_social=bool(
            incident.get("postmortem_notified_social")
            or incident.get("postmortem_notified_twitter")
        ),
    )
    # Publishing sets `body_updated_at`, and reverting keeps it.
    if (
        postmortem["published_at"]
        or postmortem["body_updated_at"]
        or postmortem["notified_subscribers"]
        or postmortem["notified_social"]
    ):
        postmortem["ever_published"] = True
    return postmortem


def _status(source: dict, scheduled: bool) -> str:
    """The source's status; `postmortem` is how a closed incident with a published
    postmortem reads, not a state of its own."""
    status = source.get("status") or states.DEFAULT_STATUS[scheduled]
    if status == states.POSTMORTEM_STATUS:
        return "completed" if scheduled else "resolved"
    return status


def incident(
    page_id: str,
    source: dict,
    target_id: str,
    component_map: dict[str, str],
    postmortem: dict | None = None,
) -> Built:
    """An incident or maintenance with its whole update history, newest update first, and
    its postmortem (`postmortem`: the source's postmortem read, see `_postmortem`)."""
    scheduled = bool(source.get("scheduled_for"))
    created = moment(source.get("created_at")) or clock.now()
    component_ids = _mapped_ids(source.get("components"), component_map)
    shown = [
        {**value, "id": component_map[value["id"]], "page_id": page_id}
        for value in source.get("components") or []
        if isinstance(value, dict) and value.get("id") in component_map
    ]
    for value in shown:
        if value.get("group_id"):
            value["group_id"] = component_map.get(value["group_id"])
        value["automation_email"] = components.automation_email_of(value["id"])
    record = IncidentRecord(
        page_id,
        incident_key(target_id),
        kind="incident",
        incident_id=target_id,
        id=target_id,
        name=source.get("name") or "",
        status=_status(source, scheduled),
        scheduled=scheduled,
        impact_override=source.get("impact_override"),
        impact=source.get("impact") or "none",
        metadata=source.get("metadata") or {},
        component_ids=component_ids,
        components=shown,
        monitoring_at=moment(source.get("monitoring_at")),
        resolved_at=moment(source.get("resolved_at")),
        scheduled_for=moment(source.get("scheduled_for")),
        scheduled_until=moment(source.get("scheduled_until")),
        scheduled_remind_prior=bool(source.get("scheduled_remind_prior")),
        scheduled_reminded_at=moment(source.get("scheduled_reminded_at")),
        scheduled_auto_in_progress=bool(source.get("scheduled_auto_in_progress")),
        scheduled_auto_completed=bool(source.get("scheduled_auto_completed")),
        **{
            flag: source[flag]
            for flag in incidents.AUTO_TRANSITION_FLAGS
            if isinstance(source.get(flag), bool)
        },
        reminder_intervals=incidents.reminder_intervals(source.get("reminder_intervals")),
        postmortem=_postmortem(page_id, target_id, source, postmortem),
        created_at=created,
        updated_at=moment(source.get("updated_at")) or created,
    )
    updates = [
        _update(page_id, target_id, update, component_map)
        for update in source.get("incident_updates") or []
    ]
    updates.sort(key=lambda update: update.id, reverse=True)
    if updates:
        record.last_update = incidents.brief(updates[0])
    incidents.index_keys(record)
    return Built([record, *updates])


def template(page_id: str, source: dict, target_id: str, component_map: dict[str, str]) -> Built:
    created = moment(source.get("created_at")) or clock.now()
    return Built(
        [
            IncidentTemplate(
                page_id,
                target_id,
                name=source.get("name") or "",
                title=source.get("title") or "",
                body=source.get("body") or "",
                group_id=source.get("group_id"),
                update_status=source.get("update_status"),
                should_tweet=bool(source.get("should_tweet")),
                should_send_notifications=source.get("should_send_notifications") is not False,
                component_ids=_mapped_ids(source.get("components"), component_map),
                created_at=created,
                updated_at=moment(source.get("updated_at")) or created,
            )
        ]
    )


def _subscriber_state(source: dict) -> str:
    """The source's state as it says it, else from its stamps. Confirmation is never asked
    again: an imported subscriber is in the state it was in there."""
    state = source.get("state")
    if state in (*subscriber_rules.LISTED_STATES, subscriber_rules.UNSUBSCRIBED):
        return state
    if source.get("quarantined_at"):
        return subscriber_rules.QUARANTINED
    return subscriber_rules.ACTIVE


def subscriber(
    page_id: str,
    source: dict,
    target_id: str,
    component_map: dict[str, str],
    incident_map: dict[str, str],
) -> Built:
    """A subscriber in its source state, with its recipient items and list entries: the
    writes a subscriber's own change makes, without a confirmation message. Unsubscribed is
    for good: one unsubscribed here (by itself, or by an earlier import) stays as it is,
    whatever the source says, so an import never adds back someone who left. An incident
    subscriber's incident must be in `incident_map` (the importer leaves out those whose
    incident is not): without it, it would be a page subscriber."""
    created = moment(source.get("created_at")) or clock.now()
    try:
        stored = Subscriber.get(page_id, target_id, consistent_read=True)
    except Subscriber.DoesNotExist:
        stored = None
    if stored is not None and stored.state == subscriber_rules.UNSUBSCRIBED:
        return Built([stored])
    state = _subscriber_state(source)
    unsubscribed_at = None
    if state == subscriber_rules.UNSUBSCRIBED:
        # The v1 API does not say when; the import that first sees it gone does.
        unsubscribed_at = moment(source.get("unsubscribed_at")) or clock.now()
    new = Subscriber(
        page_id,
        target_id,
        kind=source.get("mode") or "email",
        email=source.get("email"),
        phone_country=source.get("phone_country"),
        phone_number=source.get("phone_number"),
        endpoint=source.get("endpoint"),
        component_ids=_mapped_ids(source.get("components"), component_map),
        incident_id=incident_map.get(source.get("incident_id") or ""),
        state=state,
        quarantined_at=moment(source.get("quarantined_at")),
        confirmed_at=None if state == subscriber_rules.UNCONFIRMED else created,
        unsubscribed_at=unsubscribed_at,
        created_at=created,
        updated_at=moment(source.get("updated_at")) or created,
    )
    now_items = subscriber_rules.recipient_items(new)
    before_items = subscriber_rules.recipient_items(stored) if stored else []
    now_keys = {(item.audience, item.member) for item in now_items}
    address = subscriber_rules.address_of(new)
    before = (
        subscriber_listing.footprint(stored, subscriber_rules.address_of(stored))
        if stored
        else None
    )
    return Built(
        [new, *now_items],
        stale=[item for item in before_items if (item.audience, item.member) not in now_keys],
        stage_more=lambda work: subscriber_listing.stage(work, new, address, before),
    )


def page_fields(source: dict, writable: set[str]) -> dict:
    """The source page's profile and branding, as our page fields. The subdomain and the
    custom domain stay ours: they name where this page is served."""
    return {
        name: value
        for name, value in source.items()
        if name in writable and name not in ("subdomain", "domain") and value is not None
    }


def metric(
    page_id: str, source: dict, target_id: str, most_recent_data_at: datetime | None
) -> Built:
    """A custom metric (the source's own provider's), under this page's own provider.
    `most_recent_data_at`: its newest point imported, if any; not the source's own, which
    may name a point older than 28 days or one the source would not give."""
    created = moment(source.get("created_at")) or clock.now()
    return Built(
        [
            Metric(
                page_id,
                target_id,
                metrics_provider_id=metrics_providers.self_provider_id(page_id),
                metric_identifier=source.get("metric_identifier"),
                name=source.get("name") or "",
                display=bool(source.get("display")),
                tooltip_description=source.get("tooltip_description"),
                backfilled=bool(source.get("backfilled")),
                backfill_percentage=source.get("backfill_percentage") or 0,
                y_axis_min=source.get("y_axis_min"),
                y_axis_max=source.get("y_axis_max"),
                y_axis_hidden=bool(source.get("y_axis_hidden")),
                suffix=source.get("suffix") or "",
                decimal_places=int(source.get("decimal_places") or 0),
                most_recent_data_at=most_recent_data_at,
                created_at=created,
                updated_at=moment(source.get("updated_at")) or created,
            )
        ]
    )


def stamps(source: dict) -> tuple[datetime, datetime]:
    """The source's (created_at, updated_at)."""
    created = moment(source.get("created_at")) or clock.now()
    return created, moment(source.get("updated_at")) or created


def _granted(source: dict, grants: dict[str, dict[str, str]], field: str) -> list[str]:
    return _mapped_ids(source.get(field), grants[field])


def access_group_fields(source: dict, grants: dict) -> dict:
    """A page access group's own fields and grants, by name, as the API's body gives them
    (its users are set from their side)."""
    return {
        "name": source.get("name") or "",
        "external_identifier": source.get("external_identifier"),
        "component_ids": _granted(source, grants, "component_ids"),
        "metric_ids": _granted(source, grants, "metric_ids"),
    }


def access_user_fields(source: dict, grants: dict) -> dict:
    """A page access user's fields, its groups and grants, by name, as the API's body
    gives them."""
    return {
        "email": source.get("email"),
        "external_login": source.get("external_login"),
        "page_access_group_ids": _granted(source, grants, "page_access_group_ids"),
        "component_ids": _granted(source, grants, "component_ids"),
        "metric_ids": _granted(source, grants, "metric_ids"),
    }
