"""The page's incidents and its maintenances as lists: incidents newest first, maintenances
by start (in progress, then upcoming soonest first, then completed latest first), a page of
rows at a time, searchable by name or update text as `GET /incidents.json?q=` searches (the
domain's own list, which reads one page of rows, not the page's history)."""

from __future__ import annotations

from urllib.parse import urlencode

from chalice import Response

from chalicelib.console.views import Screen, console_view
from chalicelib.domain import incidents, organizations, pages
from chalicelib.http.pagination import page_and_size

ROWS_PER_SCREEN = 25


def _list_screen(screen: Screen, scheduled: bool) -> Response:
    page = screen.page(screen.request.params["page_id"])
    query = screen.request.query
    number, _ = page_and_size({"page": query.get("page")})
    text = (query.get("q") or "").strip()
    sections = None
    if scheduled and not text:
        # Maintenances by start, in the sections a page owner looks for them in.
        by_start = incidents.maintenances_by_start(page.id, ROWS_PER_SCREEN, number)
        rows = by_start.past
        sections = [
            ("in-progress", "In progress", by_start.in_progress),
            ("upcoming", "Upcoming, soonest first", by_start.upcoming),
            ("past", "Completed, latest start first", by_start.past),
        ]
    else:
        found = incidents.list_of_kind(page.id, scheduled, ROWS_PER_SCREEN, number, text or None)
        rows = [incident.record for incident in found]

    def link(to: int) -> str:
        return "?" + urlencode({"q": text, "page": to} if text else {"page": to})

    return screen.render(
        "incident_list.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        scheduled=scheduled,
        rows=rows,
        sections=sections,
        text=text,
        newer=link(number - 1) if number > 1 else "",
        older=link(number + 1) if len(rows) == ROWS_PER_SCREEN else "",
        can_write=screen.may(page.id, organizations.incident_role(scheduled)),
        done=query.get("done", ""),
    )


@console_view("/pages/{page_id}/incidents")
def list_incidents(screen: Screen) -> Response:
    return _list_screen(screen, scheduled=False)


@console_view("/pages/{page_id}/maintenances")
def list_maintenances(screen: Screen) -> Response:
    return _list_screen(screen, scheduled=True)
