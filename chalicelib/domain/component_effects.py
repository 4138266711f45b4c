"""What an incident write does to components: the statuses it applies (SPEC 3.1, last row),
the `affected_components` its update records, and the components it shows."""

from dataclasses import dataclass, field
from datetime import datetime

from chalicelib.domain import components
from chalicelib.http import errors
from chalicelib.store.components import Component
from chalicelib.store.outbox import OutboxEvent
from chalicelib.views.components import component_out


@dataclass
class Effects:
    records: list[Component]
    changes: dict[str, str]  # component id -> new status
    moment: datetime
    old_statuses: dict[str, str] = field(default_factory=dict)

    def stage(self, writes) -> list[OutboxEvent]:
        """Add the component writes to the incident's transaction."""
        events = []
        by_id = {record.id: record for record in self.records}
        for component_id, status in self.changes.items():
            event = components.stage_status(writes, by_id[component_id], status, self.moment)
            if event is not None:
                events.append(event)
        return events

    def affected(self) -> list[dict]:
        by_id = {record.id: record for record in self.records}
        return [
            {
                "code": component_id,
                "name": by_id[component_id].name,
                "old_status": self.old_statuses[component_id],
                "new_status": status,
            }
            for component_id, status in self.changes.items()
        ]

    def snapshot(self, component_ids: list[str]) -> list[dict]:
        """The named components as they will be once the changes land."""
        by_id = {record.id: record for record in self.records}
        shown = []
        for component_id in component_ids:
            record = by_id.get(component_id)
            if record is None:
                continue  # deleted since the incident named it
            view = component_out(self.records, record).model_dump(mode="json")
            view["status"] = self.changes.get(component_id, record.status)
            view.pop("components", None)
            shown.append(view)
        return shown


def plan(page_id: str, named: list[str], requested: dict[str, str], moment: datetime) -> Effects:
    """Check the named components belong to the page; plan the requested statuses."""
    records = components.components_of(page_id)
    known = {record.id: record for record in records}
    for component_id in named:
        if component_id not in known:
            field_name = "components" if component_id in requested else "component_ids"
            raise errors.invalid(field_name, f"{component_id} is not a component of this page")
        if known[component_id].group and component_id in requested:
            raise errors.invalid("components", "a group's status follows its components")
    old_statuses = {component_id: known[component_id].status for component_id in requested}
    return Effects(records, dict(requested), moment, old_statuses)
