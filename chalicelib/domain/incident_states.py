"""The incident lifecycle of SPEC 3.2 as data: statuses per kind, and what each move sets."""

from datetime import timedelta

REALTIME = ("investigating", "identified", "monitoring", "resolved")
SCHEDULED = ("scheduled", "in_progress", "verifying", "completed")
CLOSED = frozenset({"resolved", "completed"})
DEFAULT_STATUS = {False: "investigating", True: "scheduled"}
# The timestamp a status sets the first time the incident reaches it.
STAMPS = {"monitoring": "monitoring_at", "resolved": "resolved_at", "completed": "resolved_at"}
# A component's worst status decides the incident's impact when none is forced.
IMPACT_OF_COMPONENT_STATUS = {
    "operational": "none",
    "under_maintenance": "none",
    "degraded_performance": "minor",
    "partial_outage": "major",
    "major_outage": "critical",
}
IMPACT_ORDER = ("none", "minor", "major", "critical")
POSTMORTEM_STATUS = "postmortem"
# Subscribers of a maintenance with `scheduled_remind_prior` hear of it this long before.
REMINDER_LEAD = timedelta(minutes=60)
# An open incident without an update reminds the team after these many hours (Statuspage's
# default `reminder_intervals`); a custom list holds hours from 1 to 24, strictly increasing.
DEFAULT_REMINDER_HOURS = (3, 6, 12, 24)
REMINDER_HOURS_RANGE = range(1, 25)


def statuses_of(scheduled: bool) -> tuple[str, ...]:
    return SCHEDULED if scheduled else REALTIME


def impact(component_statuses: list[str], override: str | None) -> str:
    if override:
        return override
    impacts = [IMPACT_OF_COMPONENT_STATUS.get(status, "none") for status in component_statuses]
    return max(impacts, key=IMPACT_ORDER.index, default="none")
