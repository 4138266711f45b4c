"""A form's choice of components, by group (issue 50, item 15): each group a heading over its
members with a "whole group" choice, which stands for every member. A page's script checks
the members when the whole group is checked; without it, the form still posts the group's
choice, and these rules read it as all its members.

Components come as the pages list them (`{"id", "name", "group", "group_id"}`, in page
order): the console's from the store, the public page's from its published data.
"""

from __future__ import annotations

from collections.abc import Iterable

from chalicelib.domain import components


def sections(listed: Iterable[dict]) -> list[dict]:
    """The components a form offers, in page order: each group as `{"group": the group,
    "members": [...]}`, and each run of components in no group as `{"group": None,
    "members": [...]}`. A group without members offers nothing."""
    listed = list(listed)
    group_ids = {component["id"] for component in listed if component["group"]}
    found: list[dict] = []
    for component in listed:
        if component["group"]:
            members = _members(listed, component["id"])
            if members:
                found.append({"group": component, "members": members})
        elif component.get("group_id") not in group_ids:
            if found and found[-1]["group"] is None:
                found[-1]["members"].append(component)
            else:
                found.append({"group": None, "members": [component]})
    return found


def ids_of(value: object) -> list[str]:
    """A form's list of ids as posted (a list, one id alone, or nothing), ids only."""
    values = value if isinstance(value, list) else [value]
    return [item for item in values if isinstance(item, str) and item]


def with_whole_groups(chosen: object, whole: object, listed: Iterable[dict]) -> list[str]:
    """The components `chosen`, with every member of each group in `whole` (both a form's
    lists, `ids_of`), each once: the chosen ones first as given, then the groups' other
    members in page order."""
    listed = list(listed)
    picked = list(dict.fromkeys(ids_of(chosen)))
    for group_id in ids_of(whole):
        picked += [m["id"] for m in _members(listed, group_id) if m["id"] not in picked]
    return picked


def statuses_with_whole_groups(
    chosen: dict[str, str], whole: dict[str, str], listed: Iterable[dict]
) -> dict[str, str]:
    """The statuses `chosen` by component, with each member of a group given a status in
    `whole` taking that status, unless it was given its own."""
    listed = list(listed)
    statuses = dict(chosen)
    for group_id, status in whole.items():
        if not status:
            continue
        for member in _members(listed, group_id):
            statuses.setdefault(member["id"], status)
    return statuses


def _members(listed: list[dict], group_id: str) -> list[dict]:
    return [c for c in listed if c.get("group_id") == group_id and not c["group"]]


def listed_of(page_id: str) -> list[dict]:
    """The page's components as a form lists them (groups included), in page order."""
    return [
        {
            "id": component.id,
            "name": component.name or "",
            "status": component.status,
            "group": bool(component.group),
            "group_id": component.group_id,
        }
        for component in components.components_of(page_id)
    ]
