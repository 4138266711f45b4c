"""The public status API v2 (Statuspage's shapes) and the component uptime bodies."""

from typing import Literal

from pydantic import Field

from chalicelib.schemas.common import OutSchema, Schema

Indicator = Literal["none", "minor", "major", "critical", "maintenance"]


class PublicPage(OutSchema):
    id: str
    name: str
    url: str
    time_zone: str
    updated_at: str


class PublicStatus(OutSchema):
    indicator: Indicator
    description: str


class PublicComponent(OutSchema):
    id: str
    name: str
    status: str
    created_at: str | None
    updated_at: str | None
    position: int | None
    description: str | None
    showcase: bool | None
    start_date: str | None
    group_id: str | None
    page_id: str
    group: bool
    only_show_if_degraded: bool | None
    components: list[str] | None = Field(None, description="a group's members (groups only)")


class PublicAffectedComponent(OutSchema):
    code: str
    name: str
    old_status: str
    new_status: str


class PublicIncidentUpdate(OutSchema):
    id: str
    status: str
    body: str
    incident_id: str
    created_at: str
    updated_at: str
    display_at: str
    affected_components: list[PublicAffectedComponent] | None
    deliver_notifications: bool


class PublicIncident(OutSchema):
    id: str
    name: str
    status: str
    created_at: str
    updated_at: str
    monitoring_at: str | None
    resolved_at: str | None
    impact: str
    shortlink: str
    started_at: str
    page_id: str
    incident_updates: list[PublicIncidentUpdate]
    components: list[PublicComponent]


class PublicScheduledMaintenance(PublicIncident):
    scheduled_for: str | None
    scheduled_until: str | None


class StatusDocument(OutSchema):
    """`status.json`"""

    page: PublicPage
    status: PublicStatus


class SummaryDocument(StatusDocument):
    """`summary.json`: unresolved incidents, upcoming and in-progress maintenances."""

    components: list[PublicComponent]
    incidents: list[PublicIncident]
    scheduled_maintenances: list[PublicScheduledMaintenance]


class ComponentsDocument(OutSchema):
    page: PublicPage
    components: list[PublicComponent]


class IncidentsDocument(OutSchema):
    page: PublicPage
    incidents: list[PublicIncident]


class ScheduledMaintenancesDocument(OutSchema):
    page: PublicPage
    scheduled_maintenances: list[PublicScheduledMaintenance]


class PublicSubscriber(OutSchema):
    """A reader's subscription as Statuspage's public API answers it, with what this one
    holds beside (the address it was made for, its components, its state)."""

    id: str
    created_at: str
    mode: str = Field(description="the kind of subscriber: email, sms, webhook, ...")
    email: str | None
    endpoint: str | None
    phone_country: str | None
    phone_number: str | None
    components: list[str] = Field(description="the components followed; none: all of them")
    skip_confirmation_notification: bool = Field(description="always false: readers confirm")
    quarantined_at: str | None
    purge_at: str | None
    state: Literal["unconfirmed"] = Field(
        description="until its owner opens the confirmation link sent to it"
    )


class PublicSubscriberDocument(OutSchema):
    """`subscribers.json`'s answer to a subscription made."""

    subscriber: PublicSubscriber


# Component uptime (the management API).


# The form of the dates the domain takes (chalicelib/domain/uptime.py checks them, with its
# own message, a day the month lacks included): documented for clients and the fuzzer.
_UPTIME_DATE = r"^[1-9][0-9]{3}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$"


class UptimeQuery(Schema):
    start: str | None = Field(
        None,
        description="YYYY, YYYY-MM or YYYY-MM-DD; default the component's start or 90 days ago",
        json_schema_extra={"pattern": _UPTIME_DATE},
    )
    end: str | None = Field(
        None,
        description="YYYY, YYYY-MM or YYYY-MM-DD; default today",
        json_schema_extra={"pattern": _UPTIME_DATE},
    )
    skip_related_events: bool | None = Field(None, description="leave related_events out")


class RelatedIncident(OutSchema):
    id: str


class _Uptime(OutSchema):
    id: str
    name: str
    range_start: str = Field(description="first day counted (YYYY-MM-DD), page time zone")
    range_end: str = Field(description="last day counted (YYYY-MM-DD), page time zone")
    uptime_percentage: float
    major_outage: int = Field(description="seconds of major outage")
    partial_outage: int = Field(description="seconds of partial outage (weighs 0.3 in uptime)")
    warnings: list[str]


class ComponentUptimeOut(_Uptime):
    related_events: list[RelatedIncident] | None = None


class ComponentRelatedEvents(OutSchema):
    component_id: str
    incidents: list[RelatedIncident]


class ComponentGroupUptimeOut(_Uptime):
    related_events: list[ComponentRelatedEvents] | None = None
