"""Integrations (issue 34, items 1-3, 6, 9): a page's alert webhooks, and what a post to one
does.

An integration is reached by the token in its URL (or a bearer header), kept only as a hash.
A post's alerts are read (`alert_payloads`), each matched to a component; the alerts firing
per component are kept across posts (`FiringAlerts`, by fingerprint), so that a resolved
alert is forgotten and the worst of those still firing is what the integration wants for the
component (`operational` once none fires). The wanted statuses go to the automation rules
(`automation.apply_in`) in the same unit of work as the firing alerts and the audit: a post
lands whole or not at all.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib import clock, ids
from chalicelib.domain import automation, automation_audit, errors, unit_of_work
from chalicelib.domain import components as component_rules
from chalicelib.domain.alert_payloads import (
    KINDS,
    RANK,
    Alert,
    MalformedPayload,
    alerts_of,
    component_for,
    status_for,
    worst,
)
from chalicelib.domain.automation import AutomationOutcome, Source, Wanted
from chalicelib.domain.automation_audit import Entry
from chalicelib.domain.components import OPERATIONAL, Edit, edit_components
from chalicelib.domain.credentials import api_key_hash
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.incidents import IncidentTemplate
from chalicelib.store.integrations import FiringAlerts, Integration, IntegrationToken

# Where monitoring posts: the token in the path, or (`BEARER_PATH`) in an Authorization header.
# Under /v1/ so that the CDN sends it to the API as it does the rest of the API.
RECEIVER_PATH = "/v1/integrations/{token}/alerts"
BEARER_PATH = "/v1/integrations/alerts"
# Each changed component writes five items (its firing alerts, itself, its status day, its
# event, its audit entry): this many fit one DynamoDB transaction with room to spare.
MAX_COMPONENTS_PER_POST = 16
SETTINGS = (
    "kind",
    "name",
    "rules",
    "severities",
    "hold_minutes",
    "min_firing_seconds",
    "rate_limit_per_minute",
    "incident_template_id",
    "resolve_incident",
)


@dataclass
class Made:
    """An integration with the token of its URL, shown this once (only its hash is kept)."""

    integration: Integration
    token: str


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    # 256 random bits: a plain SHA-256 is as strong as a slow hash, as for API keys.
    return api_key_hash(token)


def integrations_of(page_id: str) -> list[Integration]:
    return list(Integration.query(page_id))


def get_integration(page_id: str, integration_id: str, *, consistent: bool = False) -> Integration:
    try:
        return Integration.get(page_id, integration_id, consistent_read=consistent)
    except Integration.DoesNotExist:
        raise errors.NotFound() from None


def integration_for_token(token: str) -> Integration:
    """The integration whose URL carries `token` (NotFound for an unknown or rotated one)."""
    if not token:
        raise errors.NotFound()
    try:
        claim = IntegrationToken.get(token_hash(token), consistent_read=True)
    except IntegrationToken.DoesNotExist:
        raise errors.NotFound() from None
    return get_integration(claim.page_id, claim.integration_id, consistent=True)


def _check(page_id: str, values: dict[str, Any]) -> None:
    """A 422 naming the field unless the settings name this page's own things."""
    if "kind" in values and values["kind"] not in KINDS:
        raise errors.invalid("kind", f"must be one of {', '.join(KINDS)}")
    for severity, status in (values.get("severities") or {}).items():
        if status not in RANK or status == OPERATIONAL:
            raise errors.invalid("severities", f"{severity}: {status} is not an outage status")
    rules = values.get("rules") or []
    if rules:
        records = component_rules.components_of(page_id)
        named = [rule["component_id"] for rule in rules]
        component_rules.check_named(records, named, "rules")
        if any(record.group for record in records if record.id in named):
            raise errors.invalid("rules", "a group's status follows its components")
    template_id = values.get("incident_template_id")
    if template_id:
        try:
            IncidentTemplate.get(page_id, template_id)
        except IncidentTemplate.DoesNotExist:
            raise errors.invalid("incident_template_id", "is not a template of this page") from None


def _settings(values: dict[str, Any]) -> dict[str, Any]:
    settled = {name: values[name] for name in SETTINGS if name in values}
    if "name" in settled:
        settled["name"] = settled["name"] or ""  # null clears it
    if "severities" in settled:
        settled["severities"] = {
            severity.strip().lower(): status
            for severity, status in (settled["severities"] or {}).items()
        }
    if "rules" in settled:
        settled["rules"] = settled["rules"] or []
    return settled


def create_integration(page_id: str, **values: Any) -> Made:
    """A new integration of `values` (the settings named in `SETTINGS`; `kind` required)."""
    if not values.get("kind"):
        raise errors.invalid("kind", f"must be one of {', '.join(KINDS)}")
    _check(page_id, values)
    token = new_token()

    def change(work: Work) -> Made:
        work.quiet()
        integration = Integration(
            page_id,
            ids.new_id(),
            token_hash=token_hash(token),
            created_at=work.moment,
            updated_at=work.moment,
            **_settings(values),
        )
        with work.together():
            work.save(integration)
            work.save(_claim(integration))
        return Made(integration, token)

    return unit_of_work.run(page_id, change)


def _claim(integration: Integration) -> IntegrationToken:
    return IntegrationToken(
        integration.token_hash, page_id=integration.page_id, integration_id=integration.id
    )


def update_integration(page_id: str, integration_id: str, **changes: Any) -> Integration:
    _check(page_id, changes)

    def change(work: Work) -> Integration:
        work.quiet()
        integration = get_integration(page_id, integration_id, consistent=True)
        for name, value in _settings(changes).items():
            setattr(integration, name, value)
        integration.updated_at = work.moment
        work.save(integration)
        return integration

    return unit_of_work.run(page_id, change)


def rotate_token(page_id: str, integration_id: str) -> Made:
    """A new token for the integration; the old one stops working in the same transaction."""
    token = new_token()

    def change(work: Work) -> Made:
        work.quiet()
        integration = get_integration(page_id, integration_id, consistent=True)
        with work.together():
            work.delete(_claim(integration))
            integration.token_hash = token_hash(token)
            integration.updated_at = work.moment
            work.save(integration)
            work.save(_claim(integration))
        return Made(integration, token)

    return unit_of_work.run(page_id, change)


def delete_integration(page_id: str, integration_id: str) -> Integration:
    """The integration, its token, its firing alerts and its waits go; components keep the
    status they have."""

    def change(work: Work) -> Integration:
        work.quiet()
        integration = get_integration(page_id, integration_id, consistent=True)
        with work.together():
            work.delete(integration)
            work.delete(_claim(integration))
        for firing in FiringAlerts.query(integration.id):
            work.delete(firing)
        for pending in automation.waits_of(page_id, integration.kind, integration.id):
            work.delete(pending)
        return integration

    return unit_of_work.run(page_id, change)


def source_of(integration: Integration) -> Source:
    return Source(
        integration.kind,
        integration.id,
        int(integration.hold_minutes),
        int(integration.min_firing_seconds),
        integration.open_incident_id,
    )


def refuse(integration: Integration, problem: str) -> None:
    """Record a refused post in the audit (the caller answers it)."""
    automation_audit.record(
        integration.page_id,
        Entry(integration.kind, integration.id, "", f"refused: {problem}"),
    )


@dataclass
class Receipt:
    """What a post did: each matched component's outcome, the alerts that named no
    component, and what the integration's incident should do next."""

    outcomes: dict[str, AutomationOutcome] = field(default_factory=dict)
    unmatched: list[Alert] = field(default_factory=list)
    # Components automation just took to major_outage (an incident may open for them).
    broke: list[str] = field(default_factory=list)
    # No alert of the integration fires any more.
    all_clear: bool = False

    @property
    def matched(self) -> bool:
        return bool(self.outcomes)


def receive(integration: Integration, payload: Any) -> Receipt:
    """Apply a decoded post to the page, as one unit of work. A malformed payload is recorded
    in the audit and refused (`MalformedPayload`)."""
    try:
        alerts = alerts_of(integration.kind, payload)
        return edit_components(
            integration.page_id, lambda edit: _received(edit, integration, alerts)
        )
    except MalformedPayload as refusal:
        refuse(integration, refusal.problem)
        raise


def _received(edit: Edit, integration: Integration, alerts: list[Alert]) -> Receipt:
    receipt = Receipt()
    by_component: dict[str, list[Alert]] = {}
    for alert in alerts:
        component_id = component_for(alert, integration.rules or [], edit.records)
        if component_id is None:
            receipt.unmatched.append(alert)
        else:
            by_component.setdefault(component_id, []).append(alert)
    if len(by_component) > MAX_COMPONENTS_PER_POST:
        raise MalformedPayload(
            f"names {len(by_component)} components; at most {MAX_COMPONENTS_PER_POST} a post "
            "(group the alerts by component)"
        )
    if receipt.unmatched:
        _audit_unmatched(edit.work, integration, receipt.unmatched)
    kept = _firing_alerts(edit, integration)
    wanted = [
        _follow(edit.work, integration, component_id, named, kept)
        for component_id, named in by_component.items()
    ]
    if not wanted:
        edit.work.quiet()
        return receipt
    before = {record.id: record.status for record in edit.records}
    outcomes = automation.apply_in(edit, source_of(integration), wanted)
    for one, outcome in zip(wanted, outcomes, strict=True):
        receipt.outcomes[one.component_id] = outcome
        if outcome.changed and outcome.status == "major_outage":
            if before.get(one.component_id) != "major_outage":
                receipt.broke.append(one.component_id)
    receipt.all_clear = not any(firing.alerts for firing in kept.values())
    return receipt


def _firing_alerts(edit: Edit, integration: Integration) -> dict[str, FiringAlerts]:
    """The integration's firing alerts by component (one Query)."""
    kept: dict[str, FiringAlerts] = {}
    existing = {record.id for record in edit.records}
    for firing in FiringAlerts.query(integration.id, consistent_read=True):
        if firing.component_id in existing:
            kept[firing.component_id] = firing
        else:
            edit.work.delete(firing)  # its component was deleted: its alerts fire on nothing
    return kept


def _follow(
    work: Work,
    integration: Integration,
    component_id: str,
    alerts: list[Alert],
    kept: dict[str, FiringAlerts],
) -> Wanted:
    """Keep the component's firing alerts up to date with `alerts`; the status they want."""
    firing = kept.get(component_id) or FiringAlerts(
        integration.id, component_id, page_id=integration.page_id, alerts={}
    )
    held = dict(firing.alerts or {})
    for alert in alerts:
        if alert.firing:
            # Since when it fires as seen here: a monitor's clock may be off, and the flap
            # rule counts from what this service saw.
            known = held.get(alert.fingerprint)
            held[alert.fingerprint] = {
                "status": status_for(alert, integration.severities or {}),
                "since": known["since"] if known else clock.iso(work.moment),
            }
        else:
            held.pop(alert.fingerprint, None)
    firing.alerts = held
    kept[component_id] = firing
    if held:
        work.save(firing)
    elif firing.version is not None:  # stored before: the last alert resolved
        work.delete(firing)
    status = worst([alert["status"] for alert in held.values()])
    return Wanted(component_id, status, _detail(alerts), _since(held, status))


def _since(held: dict[str, dict], status: str) -> datetime | None:
    """Since when the worst status has been wanted: its oldest alert's start."""
    starts = [
        datetime.fromisoformat(alert["since"].replace("Z", "+00:00"))
        for alert in held.values()
        if alert["status"] == status
    ]
    return min(starts, default=None)


def _detail(alerts: list[Alert]) -> str:
    return ", ".join(f"{alert.fingerprint} {alert.state}" for alert in alerts)


def _audit_unmatched(work: Work, integration: Integration, alerts: list[Alert]) -> None:
    automation_audit.stage(
        work,
        Entry(integration.kind, integration.id, _detail(alerts), automation.NO_COMPONENT),
    )


def remember_incident(page_id: str, integration_id: str, incident_id: str | None) -> None:
    """The incident the integration opened (None: it resolved it)."""

    def change(work: Work) -> None:
        work.quiet()
        integration = get_integration(page_id, integration_id, consistent=True)
        integration.open_incident_id = incident_id
        work.save(integration)

    unit_of_work.run(page_id, change)
