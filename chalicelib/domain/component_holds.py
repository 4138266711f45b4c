"""Which open incidents hold a component, and so which components a form may offer to set.

An incident holds the components it names while it is open (a maintenance, while it is in
progress). A component's status is the incidents' shared state: one incident's form must not
take over a component it was never given, nor give back to operational a component another
open incident still holds. These rules choose only what the console offers; a write through
the API still sets exactly the statuses its body names (SPEC 3.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.domain import incidents
from chalicelib.store.incidents import IncidentRecord

RESTORED_STATUS = "operational"


@dataclass
class Holds:
    """The components held by open incidents other than the one a form is about."""

    by_component: dict[str, list[str]] = field(default_factory=dict)  # id -> incident names

    def holders_of(self, component_id: str) -> list[str]:
        return self.by_component.get(component_id, [])

    def restorable(self, component_ids: list[str]) -> list[str]:
        """Of an incident's components, those it may set back to operational on resolving:
        the ones no other open incident still holds."""
        return [component_id for component_id in component_ids if component_id not in self]

    def __contains__(self, component_id: str) -> bool:
        return component_id in self.by_component


def _holds_components(record: IncidentRecord) -> bool:
    if record.scheduled:
        return incidents.is_active_maintenance(record)
    return incidents.is_open(record)


def held_elsewhere(page_id: str, besides: str | None = None) -> Holds:
    """The page's components held by its open incidents, the incident `besides` left out
    (one Query of the open incidents' sparse index)."""
    holds = Holds()
    for record in incidents.open_records(page_id):
        if record.id == besides or not _holds_components(record):
            continue
        for component_id in record.component_ids or []:
            holds.by_component.setdefault(component_id, []).append(record.name or "")
    return holds


def preselected_for_new(template_component_ids: list[str] | None = None) -> set[str]:
    """The components a new incident's form starts with: only its template's. A component
    already not operational belongs to whichever incident made it so, not to the new one."""
    return set(template_component_ids or [])
