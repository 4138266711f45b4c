"""A page's overall status: the indicator and description the public page and webhooks show.

The rule (CONTRACT.md): `none` when every component is operational and no incident is
unresolved; otherwise the worst of the component statuses (degraded_performance minor,
partial_outage major, major_outage critical) and the unresolved incidents' impact; when
nothing else is wrong but a maintenance is in progress, `maintenance`.
"""

from chalicelib.domain.incident_states import IMPACT_OF_COMPONENT_STATUS, IMPACT_ORDER

DESCRIPTIONS = {
    "none": "All Systems Operational",
    "minor": "Minor Service Outage",
    "major": "Partial System Outage",
    "critical": "Major System Outage",
    "maintenance": "Service Under Maintenance",
}


def indicator(
    component_statuses: list[str], unresolved_impacts: list[str], maintenance_in_progress: bool
) -> str:
    worst = max(
        [IMPACT_OF_COMPONENT_STATUS.get(status, "none") for status in component_statuses]
        + [impact if impact in IMPACT_ORDER else "none" for impact in unresolved_impacts],
        key=IMPACT_ORDER.index,
        default="none",
    )
    if worst != "none":
        return worst
    if unresolved_impacts:
        # An open incident is something wrong, even with no impact of its own.
        return "minor"
    if maintenance_in_progress or "under_maintenance" in component_statuses:
        return "maintenance"
    return "none"


def description(indicator_value: str) -> str:
    return DESCRIPTIONS[indicator_value]
