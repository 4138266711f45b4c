"""A component's past uptime, edited per day as on Statuspage: the minutes of major and of
partial outage of a day (in the page's zone), which replace what its statuses and backfilled
incidents gave, in the uptime bars and the uptime endpoints alike (`domain.uptime`). Under the
components' role (`page_configuration`)."""

from __future__ import annotations

from datetime import date, timedelta

from chalice import Response

from chalicelib.console.components import COMPONENT
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import components, uptime
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors

UPTIME = COMPONENT + "/uptime"


def _uptime_screen(screen: Screen, typed: dict | None = None) -> tuple[str, dict]:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    records = components.components_of(page.id, consistent=True)
    component = components.find(records, screen.request.params["component_id"], group=False)
    edits = sorted((component.uptime_edits or {}).items(), reverse=True)
    time_zone = uptime.time_zone_of(page)
    today = uptime.today_in(time_zone)
    first = min(today, uptime.local_date(uptime.start_of(component, time_zone), time_zone))
    # Yesterday at first (the usual day to correct), unless the component is younger.
    shown = max(first, today - timedelta(days=1))
    return "component_uptime.html", {
        "page": page_heading(page),
        "component": component,
        "edits": [
            {"day": day, "major": major, "partial": partial} for day, (major, partial) in edits
        ],
        "first": first.isoformat(),
        "today": today.isoformat(),
        "day": (typed or {}).get("day") or shown.isoformat(),
        "done": screen.request.query.get("done", ""),
    }


@console_view(UPTIME)
def show_uptime(screen: Screen) -> Response:
    template, context = _uptime_screen(screen)
    return screen.render(template, **context)


def _minutes(screen: Screen, name: str) -> int | None:
    text = str(screen.form.get(name) or "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise errors.unprocessable({name: ["must be a whole number of minutes"]})
    return int(text)


@console_view(UPTIME, ("POST",), form=_uptime_screen)
def save_uptime(screen: Screen) -> Response:
    """Set a day's minutes (both left empty, or the day's Remove: back to what was
    computed)."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    try:
        day = date.fromisoformat(str(screen.form.get("day") or ""))
    except ValueError:
        raise errors.unprocessable({"day": ["must be a date"]}) from None
    removing = screen.form.get("action") == "remove"
    major = None if removing else _minutes(screen, "major_outage")
    partial = None if removing else _minutes(screen, "partial_outage")
    component_id = screen.request.params["component_id"]
    uptime.edit_day(page, component_id, day, major, partial)
    done = "Day+reset" if major is None and partial is None else "Day+saved"
    return redirect(f"{BASE}/pages/{page.id}/components/{component_id}/uptime?done={done}")
