"""How pages and notifications name a status, and the colour level they draw it in."""

STATUS_LABELS = {
    "operational": "Operational",
    "degraded_performance": "Degraded Performance",
    "partial_outage": "Partial Outage",
    "major_outage": "Major Outage",
    "under_maintenance": "Under Maintenance",
}
# Component status -> the color level a page draws it in.
LEVELS = {
    "operational": "up",
    "degraded_performance": "minor",
    "partial_outage": "major",
    "major_outage": "critical",
    "under_maintenance": "maintenance",
}
UPDATE_LABELS = {
    "investigating": "Investigating",
    "identified": "Identified",
    "monitoring": "Monitoring",
    "resolved": "Resolved",
    "scheduled": "Scheduled",
    "in_progress": "In progress",
    "verifying": "Verifying",
    "completed": "Completed",
    "postmortem": "Postmortem",
}
