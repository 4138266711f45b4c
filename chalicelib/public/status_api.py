"""The public status API v2 documents, as Statuspage's public one shapes them, made from a
page snapshot."""

from __future__ import annotations

from collections.abc import Callable

from chalicelib import schemas
from chalicelib.views.content import IN_PROGRESS, NEWEST_LISTED, UNRESOLVED, UPCOMING

# incidents.json and scheduled-maintenances.json list this many, newest first.
LIST_LIMIT = NEWEST_LISTED


def page_of(data: dict) -> dict:
    return {name: data["page"][name] for name in schemas.PublicPage.model_fields}


def _incidents(data: dict, *, scheduled: bool, states: tuple[str, ...] | None = None) -> list[dict]:
    return [
        entry["incident"]
        for entry in data["incidents"]
        if entry["scheduled"] == scheduled and (states is None or entry["state"] in states)
    ]


def _by_start(maintenances: list[dict]) -> list[dict]:
    return sorted(maintenances, key=lambda incident: incident.get("scheduled_for") or "")


def status(data: dict) -> dict:
    return {"page": page_of(data), "status": data["status"]}


def summary(data: dict) -> dict:
    return {
        **status(data),
        "components": data["components"],
        "incidents": _incidents(data, scheduled=False, states=(UNRESOLVED,)),
        "scheduled_maintenances": _by_start(
            _incidents(data, scheduled=True, states=(IN_PROGRESS, UPCOMING))
        ),
    }


def components(data: dict) -> dict:
    return {"page": page_of(data), "components": data["components"]}


def incidents(data: dict) -> dict:
    return {"page": page_of(data), "incidents": _incidents(data, scheduled=False)[:LIST_LIMIT]}


def unresolved_incidents(data: dict) -> dict:
    return {
        "page": page_of(data),
        "incidents": _incidents(data, scheduled=False, states=(UNRESOLVED,)),
    }


def scheduled_maintenances(data: dict) -> dict:
    listed = _incidents(data, scheduled=True)[:LIST_LIMIT]
    return {"page": page_of(data), "scheduled_maintenances": listed}


def upcoming_maintenances(data: dict) -> dict:
    upcoming = _by_start(_incidents(data, scheduled=True, states=(UPCOMING,)))
    return {"page": page_of(data), "scheduled_maintenances": upcoming}


def active_maintenances(data: dict) -> dict:
    active = _by_start(_incidents(data, scheduled=True, states=(IN_PROGRESS,)))
    return {"page": page_of(data), "scheduled_maintenances": active}


# Path below `api/v2/` -> the document it serves.
DOCUMENTS: dict[str, Callable[[dict], dict]] = {
    "summary.json": summary,
    "status.json": status,
    "components.json": components,
    "incidents.json": incidents,
    "incidents/unresolved.json": unresolved_incidents,
    "scheduled-maintenances.json": scheduled_maintenances,
    "scheduled-maintenances/upcoming.json": upcoming_maintenances,
    "scheduled-maintenances/active.json": active_maintenances,
}
