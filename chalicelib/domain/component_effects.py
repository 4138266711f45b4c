"""What an incident write does to components: the statuses it applies (SPEC 3.1, last row),
the `affected_components` its update records, and the components it shows."""

from dataclasses import dataclass, field
from datetime import datetime

from chalicelib.domain import components, errors
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.components import Component


@dataclass
class Effects:
    records: list[Component]
    changes: dict[str, str]  # component id -> new status
    moment: datetime
    old_statuses: dict[str, str] = field(default_factory=dict)

    def stage(self, work: Work) -> None:
        """Stage the component writes with the incident's."""
        by_id = {record.id: record for record in self.records}
        for component_id, status in self.changes.items():
            components.stage_status(work, by_id[component_id], status)

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
            view = components.component_fields(self.records, record)
            view["status"] = self.changes.get(component_id, record.status)
            view.pop("components", None)
            view.pop("third_party", None)  # an incident names components, not their sources
            shown.append(view)
        return shown


def plan(page_id: str, named: list[str], requested: dict[str, str], moment: datetime) -> Effects:
    """Check the named components belong to the page; plan the requested statuses."""
    # Consistent: the versions read are the ones the status writes are conditioned on.
    records = components.components_of(page_id, consistent=True)
    known = {record.id: record for record in records}
    for component_id in named:
        if component_id not in known:
            field_name = "components" if component_id in requested else "component_ids"
            raise errors.invalid(field_name, f"{component_id} is not a component of this page")
        if known[component_id].group and component_id in requested:
            raise errors.invalid("components", "a group's status follows its components")
    old_statuses = {component_id: known[component_id].status for component_id in requested}
    return Effects(records, dict(requested), moment, old_statuses)
