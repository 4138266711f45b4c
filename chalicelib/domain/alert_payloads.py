"""What monitoring posts to an integration, read into plain alerts, and what each alert means
for the page: which component it names and which status it wants (issue 34, items 1-3).

Three payloads: Alertmanager's webhook (version "4"), Grafana alerting's webhook contact point
(the same shape, version "1", with Grafana's own fields beside it), and a generic one,
`{"component_id" or "component": ..., "status": ...}`, one object or a list. A payload that is
not one of these is refused with what is wrong with it (`MalformedPayload`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from chalicelib.domain import errors
from chalicelib.domain.components import OPERATIONAL, STATUSES
from chalicelib.store.components import Component

ALERTMANAGER, GRAFANA, GENERIC = "alertmanager", "grafana", "generic"
KINDS = (ALERTMANAGER, GRAFANA, GENERIC)
ALERTMANAGER_VERSION = "4"
FIRING, RESOLVED = "firing", "resolved"
# Issue 34, item 3: the `severity` label's default meaning; any other severity (or none) is
# `OTHER_SEVERITY`.
DEFAULT_SEVERITIES = {
    "critical": "major_outage",
    "page": "major_outage",
    "error": "partial_outage",
    "major": "partial_outage",
    "warning": "degraded_performance",
    "minor": "degraded_performance",
}
OTHER_SEVERITY = "degraded_performance"
# Worst last: of several firing alerts on one component, the highest rank wins.
RANK = {
    OPERATIONAL: 0,
    "under_maintenance": 1,
    "degraded_performance": 2,
    "partial_outage": 3,
    "major_outage": 4,
}
MAX_ALERTS = 1000
GENERIC_FINGERPRINT = "generic"
# RFC 3339 with more than microseconds (Alertmanager writes nanoseconds): Python reads six.
_EXTRA_DIGITS = re.compile(r"(\.\d{6})\d+")


class MalformedPayload(errors.Refused):
    """A payload that is not what the integration's kind posts; `problem` says why."""

    def __init__(self, problem: str):
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Alert:
    """One alert as posted: firing or resolved, its labels, since when it fires; a generic
    post names its `status` outright."""

    fingerprint: str
    firing: bool
    labels: dict[str, str]
    starts_at: datetime | None = None
    status: str | None = None

    @property
    def state(self) -> str:
        return FIRING if self.firing else RESOLVED


def alerts_of(kind: str, payload: Any) -> list[Alert]:
    """The alerts a decoded JSON `payload` of `kind` carries, or `MalformedPayload`."""
    alerts = _generic(payload) if kind == GENERIC else _alerting(kind, payload)
    if len(alerts) > MAX_ALERTS:
        raise MalformedPayload(f"holds more than {MAX_ALERTS} alerts")
    return alerts


def _alerting(kind: str, payload: Any) -> list[Alert]:
    """Alertmanager's webhook payload, which Grafana's contact point follows."""
    if not isinstance(payload, dict):
        raise MalformedPayload("must be a JSON object with an `alerts` array")
    version = payload.get("version")
    if kind == ALERTMANAGER and version is not None and version != ALERTMANAGER_VERSION:
        raise MalformedPayload(f'`version` must be "{ALERTMANAGER_VERSION}", not {version!r}')
    listed = payload.get("alerts")
    if not isinstance(listed, list):
        raise MalformedPayload("`alerts` must be an array")
    return [_alert(item, index) for index, item in enumerate(listed)]


def _alert(item: Any, index: int) -> Alert:
    where = f"alerts[{index}]"
    if not isinstance(item, dict):
        raise MalformedPayload(f"`{where}` must be an object")
    status = item.get("status")
    if status not in (FIRING, RESOLVED):
        raise MalformedPayload(f'`{where}.status` must be "firing" or "resolved"')
    labels = item.get("labels")
    if not isinstance(labels, dict) or not all(isinstance(value, str) for value in labels.values()):
        raise MalformedPayload(f"`{where}.labels` must be an object of strings")
    fingerprint = item.get("fingerprint")
    if fingerprint is not None and (not isinstance(fingerprint, str) or not fingerprint):
        raise MalformedPayload(f"`{where}.fingerprint` must be a string")
    return Alert(
        fingerprint or _fingerprint_of(labels),
        status == FIRING,
        dict(labels),
        _moment(item.get("startsAt")),
    )


def _fingerprint_of(labels: dict[str, str]) -> str:
    """What identifies an alert that came without a fingerprint: its labels."""
    return hashlib.sha256(json.dumps(sorted(labels.items())).encode()).hexdigest()[:16]


def _moment(value: Any) -> datetime | None:
    """An RFC 3339 time, or None (a time only informs: a bad one refuses nothing)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(_EXTRA_DIGITS.sub(r"\1", value.replace("Z", "+00:00")))
    except ValueError:
        return None
    if moment.tzinfo is None or moment.year < 2000:  # `0001-01-01T00:00:00Z`: not set
        return None
    return moment.astimezone(UTC)


def _generic(payload: Any) -> list[Alert]:
    items = payload if isinstance(payload, list) else [payload]
    return [_generic_alert(item, index) for index, item in enumerate(items)]


def _generic_alert(item: Any, index: int) -> Alert:
    where = f"[{index}]"
    if not isinstance(item, dict):
        raise MalformedPayload(f"`{where}` must be an object")
    named = {key: item[key] for key in ("component_id", "component") if key in item}
    if not named or not all(isinstance(value, str) and value for value in named.values()):
        raise MalformedPayload(f'`{where}` must name "component_id" or "component" (a string)')
    status = item.get("status")
    if status not in STATUSES:
        raise MalformedPayload(f"`{where}.status` must be one of {', '.join(sorted(STATUSES))}")
    return Alert(GENERIC_FINGERPRINT, status != OPERATIONAL, named, status=status)


def component_for(alert: Alert, rules: list[dict], records: list[Component]) -> str | None:
    """The component an alert names: by the first of the integration's `rules` whose labels
    all match, else by the label `component_id`, or `component` (an id, or a name on the
    page in any case). None when it names none (a group is no target: it follows its own)."""
    components = {record.id: record for record in records if not record.group}
    for rule in rules:
        if all(alert.labels.get(label) == value for label, value in rule["match"].items()):
            return rule["component_id"] if rule["component_id"] in components else None
    by_id = alert.labels.get("component_id")
    if by_id in components:
        return by_id
    named = alert.labels.get("component")
    if not named:
        return None
    if named in components:
        return named
    wanted = named.strip().casefold()
    matching = [record.id for record in components.values() if record.name.casefold() == wanted]
    return matching[0] if len(matching) == 1 else None


def why_unmatched(alert: Alert, records: list[Component]) -> str:
    """What an alert that names no component (`component_for` None) named instead, for the
    audit: the label that failed to match, and why."""
    components = [record for record in records if not record.group]
    by_id = alert.labels.get("component_id")
    if by_id:
        return f'component_id="{by_id}" is no component of the page'
    named = alert.labels.get("component")
    if not named:
        return "no component or component_id label (and no rule of the integration matched)"
    wanted = named.strip().casefold()
    matching = [record for record in components if record.name.casefold() == wanted]
    if len(matching) > 1:
        return f'component="{named}" names {len(matching)} components: use component_id'
    return f'component="{named}" is no component of the page'


def status_for(alert: Alert, severities: dict[str, str]) -> str:
    """The status a firing alert wants: a generic one's own, else its severity's, the
    integration's `severities` before the defaults."""
    if alert.status is not None:
        return alert.status
    severity = alert.labels.get("severity", "").strip().lower()
    return severities.get(severity) or DEFAULT_SEVERITIES.get(severity) or OTHER_SEVERITY


def worst(statuses: list[str]) -> str:
    return max(statuses, key=RANK.__getitem__, default=OPERATIONAL)
