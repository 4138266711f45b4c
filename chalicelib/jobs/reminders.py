"""Open incidents remind the team: after 3, 6, 12 and 24 hours without an update (or the
incident's own `reminder_intervals`), one email to each organization user who may update it.

Only incidents on the sparse due index are read; each reminder is counted and announced in one
conditional write, so overlapping ticks send it once and an update in between sends none.
"""

from datetime import datetime

from chalicelib import clock
from chalicelib.domain import incidents
from chalicelib.jobs import due_steps


def run(moment: datetime | None = None) -> int:
    """One tick: returns how many open incidents had a reminder due."""
    due = incidents.due_records(incidents.DUE_REMINDER, moment or clock.now())
    due_steps.take(due, incidents.remind_team, "reminder")
    return len(due)
