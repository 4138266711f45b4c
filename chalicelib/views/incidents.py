"""Incidents and their updates as the API, webhooks and the public page show them."""

from chalicelib import clock, config
from chalicelib.domain import incident_states as states
from chalicelib.domain.incidents import AUTO_TRANSITION_FLAGS, Incident
from chalicelib.domain.postmortems import postmortem_of
from chalicelib.schemas.incidents import IncidentOut, IncidentUpdateOut
from chalicelib.store.incidents import IncidentRecord


def update_out(update: IncidentRecord) -> IncidentUpdateOut:
    return IncidentUpdateOut(
        id=update.id,
        incident_id=update.incident_id,
        body=update.body or "",
        status=update.status,
        created_at=clock.iso(update.created_at),
        display_at=clock.iso(update.display_at or update.created_at),
        updated_at=clock.iso(update.updated_at),
        social_updated_at=None,
        wants_social_update=bool(update.wants_social_update),
        deliver_notifications=bool(update.deliver_notifications),
        affected_components=update.affected_components,
        wants_twitter_update=bool(update.wants_social_update),
        twitter_updated_at=None,
        tweet_id=None,
        custom_tweet=None,
    )


def shortlink(record: IncidentRecord) -> str:
    return f"{config.public_base_url()}/s/{record.page_id}/incidents/{record.id}"


def shown_status(record: IncidentRecord) -> str:
    """A closed incident with a published postmortem reads `postmortem`."""
    postmortem = postmortem_of(record) or {}
    if record.status in states.CLOSED and postmortem.get("published_at"):
        return states.POSTMORTEM_STATUS
    return record.status


def incident_out(incident: Incident) -> IncidentOut:
    record = incident.record
    postmortem = postmortem_of(record) or {}
    return IncidentOut(
        id=record.id,
        page_id=record.page_id,
        name=record.name or "",
        status=shown_status(record),
        impact=record.impact or "none",
        impact_override=record.impact_override,
        incident_updates=[update_out(update) for update in incident.updates],
        components=record.components or [],
        metadata=record.metadata or {},
        monitoring_at=clock.iso(record.monitoring_at),
        resolved_at=clock.iso(record.resolved_at),
        postmortem_body=postmortem.get("body"),
        postmortem_body_last_updated_at=postmortem.get("body_updated_at"),
        postmortem_published_at=postmortem.get("published_at"),
        postmortem_ignored=bool(postmortem.get("ignored")),
        postmortem_notified_subscribers=bool(postmortem.get("notified_subscribers")),
        postmortem_notified_social=bool(postmortem.get("notified_social")),
        postmortem_notified_twitter=bool(postmortem.get("notified_social")),
        scheduled_for=clock.iso(record.scheduled_for),
        scheduled_until=clock.iso(record.scheduled_until),
        scheduled_remind_prior=bool(record.scheduled_remind_prior),
        scheduled_reminded_at=clock.iso(record.scheduled_reminded_at),
        scheduled_auto_in_progress=bool(record.scheduled_auto_in_progress),
        scheduled_auto_completed=bool(record.scheduled_auto_completed),
        **{flag: getattr(record, flag) is not False for flag in AUTO_TRANSITION_FLAGS},
        reminder_intervals=record.reminder_intervals,
        incident_impacts=[],
        shortlink=shortlink(record),
        created_at=clock.iso(record.created_at),
        updated_at=clock.iso(record.updated_at),
    )
