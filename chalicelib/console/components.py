"""Components and groups in the console: create, edit, delete, and move them up and down the
page. Every change is the API's: the forms post its field names (`component[...]`,
`component_group[...]`), validated by its schemas, written by its domain functions
(`components.create_component`, `update_component`, `delete_component`, and the groups'),
under its role (`page_configuration`). A move is an update of `position`, as the API's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import component_groups, components
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain

if TYPE_CHECKING:
    # annotations only: read by the domain
    from chalicelib.store.components import Component
    from chalicelib.store.models import Page

COMPONENTS = "/pages/{page_id}/components"
COMPONENT = COMPONENTS + "/{component_id}"
GROUPS = "/pages/{page_id}/groups"
GROUP = GROUPS + "/{group_id}"
STEPS = {"up": -1, "down": 1}
# What the domain takes of each form's fields, by the API's body key.
_INPUTS = {"component": components.ComponentInput, "component_group": component_groups.GroupInput}


def _records(screen: Screen) -> tuple[Page, list[Component]]:
    """The page (for those who may configure it) and its components, read as just written."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    return page, components.components_of(page.id, consistent=True)


def nested(records: list[Component]) -> list[dict]:
    """The page's components (`records` in page order) as the public page lists them: the top
    level in order, each an entry `{"record": ..., "members": [...]}`, a group's members (in
    their order) in its entry."""
    group_ids = {record.id for record in records if record.group}
    entries = {record.id: {"record": record, "members": []} for record in records}
    top = []
    for record in records:
        if record.group_id in group_ids:
            entries[record.group_id]["members"].append(entries[record.id])
        else:
            top.append(entries[record.id])
    return top


def _listing(page: Page, records: list[Component]) -> dict:
    """The page's components as the page lists them, each with the moves it can make."""
    top = nested(records)
    for entry in [*top, *(member for each in top for member in each["members"])]:
        entry["moves"] = {
            name: components.neighbour_position(records, entry["record"], step) is not None
            for name, step in STEPS.items()
        }
    return {
        "page": page_heading(page),
        "entries": top,
        "groups": [record for record in records if record.group],
        # What a new group may take: components in no group yet (one group at most each).
        "loose": [record for record in records if not record.group and not record.group_id],
    }


def _write(
    screen: Screen,
    done: str,
    wrapper: str,
    schema: type,
    write: Callable[..., components.Written],
    *ids: str,
) -> Response:
    """Validate the form's `wrapper[...]` fields with the API's `schema`, `write` them with
    the API's domain function (`write(page_id, *ids, fields)`, `fields` as the input its
    module takes), and go back to the list, at what was written, saying `done`."""
    page, _ = _records(screen)
    fields = screen.form.get(wrapper)
    if not isinstance(fields, dict):
        raise errors.unprocessable({wrapper: ["is missing"]})
    body = errors.validated(schema, {wrapper: fields}, wrapper)
    written = write(page.id, *ids, plain(getattr(body, wrapper), _INPUTS[wrapper]))
    return _back(page.id, done, written.record.id)


def _back(page_id: str, done: str, record_id: str | None = None) -> Response:
    """The list again, with a notice of what was `done`, at the entry it concerns."""
    anchor = f"#entry-{record_id}" if record_id else ""
    notice = urlencode({"done": done})
    return redirect(f"{BASE}{COMPONENTS.format(page_id=page_id)}?{notice}{anchor}")


@console_view(COMPONENTS)
def show_components(screen: Screen) -> Response:
    done = screen.request.query.get("done", "")
    return screen.render("components.html", done=done, **_listing(*_records(screen)))


def _components_screen(screen: Screen, _typed: dict) -> tuple[str, dict]:
    """The components screen, whose form adds one (shown again when refused)."""
    return "components.html", {"done": "", **_listing(*_records(screen))}


@console_view(COMPONENTS + "/new", ("POST",), form=_components_screen)
def create_component(screen: Screen) -> Response:
    create = components.create_component
    return _write(screen, "Component added", "component", schemas.ComponentCreate, create)


@console_view(COMPONENT)
def show_component(screen: Screen) -> Response:
    page, records = _records(screen)
    record = components.find(records, screen.request.params["component_id"], group=False)
    groups = [each for each in records if each.group]
    return screen.render(
        "edit.html", page=page_heading(page), component=record, group=None, groups=groups
    )


@console_view(COMPONENT, ("POST",), again=show_component)
def update_component(screen: Screen) -> Response:
    component_id = screen.request.params["component_id"]
    update = components.update_component
    return _write(
        screen, "Component saved", "component", schemas.ComponentUpdate, update, component_id
    )


@console_view(COMPONENT + "/delete", ("POST",))
def delete(screen: Screen) -> Response:
    """A component, or a group (its members stay, out of any group), as the API deletes
    each."""
    page, records = _records(screen)
    record = components.find(records, screen.request.params["component_id"])
    remove = component_groups.delete_group if record.group else components.delete_component
    remove(page.id, record.id)
    return _back(page.id, f"{_kind(record)} deleted")


@console_view(COMPONENT + "/move", ("POST",))
def move(screen: Screen) -> Response:
    """One place up or down among what the page shows beside it (a group: among the top
    level, its members with it), written as the API's `position` of a component or group."""
    page, records = _records(screen)
    record = components.find(records, screen.request.params["component_id"])
    direction = screen.form.get("direction")
    step = STEPS.get(direction) if isinstance(direction, str) else None
    if step is None:
        raise errors.unprocessable({"direction": ["must be up or down"]})
    position = components.neighbour_position(records, record, step)
    if position is not None:
        if record.group:
            fields = component_groups.GroupInput(position=position)
            component_groups.update_group(page.id, record.id, fields)
        else:
            fields = components.ComponentInput(position=position)
            components.update_component(page.id, record.id, fields)
    return _back(page.id, f"{_kind(record)} moved {direction}", record.id)


def _kind(record: Component) -> str:
    return "Group" if record.group else "Component"


@console_view(GROUPS + "/new", ("POST",), again=show_components)
def create_group(screen: Screen) -> Response:
    create = component_groups.create_group
    return _write(screen, "Group added", "component_group", schemas.ComponentGroupCreate, create)


@console_view(GROUP)
def show_group(screen: Screen) -> Response:
    page, records = _records(screen)
    group = components.find(records, screen.request.params["group_id"], group=True)
    return screen.render(
        "edit.html",
        page=page_heading(page),
        component=None,
        group=group,
        members={member.id for member in components.members_of(records, group.id)},
        candidates=[
            record
            for record in records
            if not record.group and record.group_id in (None, "", group.id)
        ],
    )


@console_view(GROUP, ("POST",), again=show_group)
def update_group(screen: Screen) -> Response:
    group_id = screen.request.params["group_id"]
    update = component_groups.update_group
    return _write(
        screen, "Group saved", "component_group", schemas.ComponentGroupUpdate, update, group_id
    )
