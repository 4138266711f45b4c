"""Integrations (issue 34, items 1-3, 6, 9): a page's alert webhooks, and what a post to one
does.

An integration is reached by the token in its URL (or a bearer header), kept only as a hash.
A post's alerts are read (`alert_payloads`), each matched to a component; the alerts firing
per component are kept across posts (`FiringAlerts`, by fingerprint), so that a resolved
alert is forgotten and the worst of those still firing is what the integration wants for the
component (`operational` once none fires). The wanted statuses go to the automation rules
(`automation.apply_in`) in the same unit of work as the firing alerts and the audit.

Issue 45: a post names any number of components. Its components are applied
`COMPONENTS_PER_UNIT` at a time, each part one unit of work (each part lands whole or not at
all; a post that failed part-way is posted again by its monitoring, and what already landed
changes nothing the second time). A firing alert that is not posted again within
`expire_after_minutes` (Alertmanager re-sends firing alerts every `repeat_interval`) expires
at the every-minute tick: its component goes back as after a resolution, audited as expired.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from chalicelib import clock, ids
from chalicelib.domain import automation, automation_audit, errors, incidents, turns, unit_of_work
from chalicelib.domain import components as component_rules
from chalicelib.domain.alert_payloads import (
    ALERTMANAGER,
    GENERIC,
    GRAFANA,
    KINDS,
    RANK,
    Alert,
    MalformedPayload,
    alerts_of,
    component_for,
    status_for,
    why_unmatched,
    worst,
)
from chalicelib.domain.automation import AutomationOutcome, Source, Wanted
from chalicelib.domain.automation_audit import Entry
from chalicelib.domain.components import OPERATIONAL, Edit, edit_components
from chalicelib.domain.credentials import api_key_hash
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.incidents import IncidentTemplate
from chalicelib.store.integrations import DUE, FiringAlerts, Integration, IntegrationToken

# Where monitoring posts: the token in the path, or (`BEARER_PATH`) in an Authorization header.
# Under /v1/ so that the CDN sends it to the API as it does the rest of the API.
RECEIVER_PATH = "/v1/integrations/{token}/alerts"
BEARER_PATH = "/v1/integrations/alerts"
# Each changed component writes five items (its firing alerts, itself, its status day, its
# event, its audit entry): this many fit one DynamoDB transaction with room to spare, so a
# post's components are applied this many to a unit of work.
COMPONENTS_PER_UNIT = 16
# Issue 45: a firing alert not posted again for this long expires, by default three group
# intervals of the source (Alertmanager's and Grafana's default group_interval is 5 minutes).
# A generic post is not re-sent by anything: its alerts never expire unless told to.
DEFAULT_EXPIRE_AFTER_MINUTES = {ALERTMANAGER: 15, GRAFANA: 15, GENERIC: 0}
EXPIRED = "expired"
SETTINGS = (
    "kind",
    "name",
    "rules",
    "severities",
    "hold_minutes",
    "min_firing_seconds",
    "expire_after_minutes",
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


def expire_after_minutes(integration: Integration) -> int:
    """Minutes without a post after which a firing alert expires (0: never); the kind's
    default unless the integration sets its own."""
    if integration.expire_after_minutes is None:
        return DEFAULT_EXPIRE_AFTER_MINUTES.get(integration.kind, 0)
    return int(integration.expire_after_minutes)


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


def turn_of(integration: Integration) -> str:
    """What writers of an integration's alerts take turns on (posts, the expiry): two at once
    must not both open an incident."""
    return f"integration#{integration.id}"


def receive(integration: Integration, payload: Any) -> Receipt:
    """Apply a decoded post to the page, `COMPONENTS_PER_UNIT` components to a unit of work.
    A malformed payload is recorded in the audit and refused (`MalformedPayload`)."""
    try:
        alerts = alerts_of(integration.kind, payload)
    except MalformedPayload as refusal:
        refuse(integration, refusal.problem)
        raise
    records = component_rules.components_of(integration.page_id, consistent=True)
    by_component: dict[str, list[Alert]] = {}
    unmatched: list[Alert] = []
    for alert in alerts:
        component_id = component_for(alert, integration.rules or [], records)
        if component_id is None:
            unmatched.append(alert)
        else:
            by_component.setdefault(component_id, []).append(alert)
    named = list(by_component.items())
    parts = [
        dict(named[start : start + COMPONENTS_PER_UNIT])
        for start in range(0, len(named), COMPONENTS_PER_UNIT)
    ]
    receipt = Receipt(unmatched=unmatched)
    for index, part in enumerate(parts or [{}]):
        audited = unmatched if index == 0 else []
        _merge(
            receipt,
            _in_unit(
                integration, lambda edit, p=part, u=audited: _received(edit, integration, p, u)
            ),
        )
    return receipt


def _in_unit(integration: Integration, change: Callable[[Edit], Receipt]) -> Receipt:
    return edit_components(integration.page_id, change)


def _merge(receipt: Receipt, part: Receipt) -> None:
    receipt.outcomes.update(part.outcomes)
    receipt.broke.extend(part.broke)
    if part.outcomes:
        receipt.all_clear = part.all_clear  # the last part read every part's alerts before it


def _received(
    edit: Edit, integration: Integration, by_component: dict[str, list[Alert]], unmatched: list
) -> Receipt:
    """One part of a post: its components' alerts, their statuses, the audit."""
    if unmatched:
        _audit_unmatched(edit, integration, unmatched)
    kept = _firing_alerts(edit, integration)
    minutes = expire_after_minutes(integration)
    wanted = [
        _follow(edit.work, integration, component_id, named, kept, minutes)
        for component_id, named in by_component.items()
    ]
    return _applied(edit, integration, wanted, kept)


def _applied(
    edit: Edit, integration: Integration, wanted: list[Wanted], kept: dict[str, FiringAlerts]
) -> Receipt:
    """Hand the wanted statuses to automation; what became of them."""
    receipt = Receipt()
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
    minutes: int,
) -> Wanted:
    """Keep the component's firing alerts up to date with `alerts`; the status they want."""
    firing = kept.get(component_id) or FiringAlerts(
        integration.id, component_id, page_id=integration.page_id, alerts={}
    )
    held = dict(firing.alerts or {})
    now = clock.iso(work.moment)
    for alert in alerts:
        if alert.firing:
            # Since when it fires as seen here: a monitor's clock may be off, and the flap
            # rule counts from what this service saw. `fired`: since when it wants its status
            # (a status set by hand after that is not overridden by it).
            known = held.get(alert.fingerprint)
            status = status_for(alert, integration.severities or {})
            same = known is not None and known["status"] == status
            held[alert.fingerprint] = {
                "status": status,
                "since": known["since"] if known else now,
                "fired": known.get("fired", known["since"]) if same else now,
                "seen": now,
            }
        else:
            held.pop(alert.fingerprint, None)
    _keep(work, firing, held, minutes)
    kept[component_id] = firing
    return _wanted(component_id, held, _detail(alerts))


def _keep(work: Work, firing: FiringAlerts, held: dict[str, dict], minutes: int) -> None:
    """Store the component's firing alerts, and when the first of them expires."""
    firing.alerts = held
    seen = [_moment(alert.get("seen", alert["since"])) for alert in held.values()]
    if minutes and seen:
        firing.due, firing.expires_at = DUE, min(seen) + timedelta(minutes=minutes)
    else:
        firing.due, firing.expires_at = None, None
    if held:
        work.save(firing)
    elif firing.version is not None:  # stored before: the last alert resolved
        work.delete(firing)


def _wanted(component_id: str, held: dict[str, dict], detail: str) -> Wanted:
    status = worst([alert["status"] for alert in held.values()])
    fired = [_moment(alert.get("fired", alert["since"])) for alert in held.values()]
    return Wanted(component_id, status, detail, _since(held, status), max(fired, default=None))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def expire_due(moment: datetime | None = None) -> int:
    """The every-minute step: expire the firing alerts not posted again in time; how many
    components changed."""
    moment = moment or clock.now()
    due: dict[tuple[str, str], list[str]] = {}
    for firing in FiringAlerts.expiry_index.query(DUE, FiringAlerts.expires_at <= moment):
        due.setdefault((firing.page_id, firing.integration_id), []).append(firing.component_id)
    changed = 0
    for (page_id, integration_id), component_ids in due.items():
        try:
            integration = get_integration(page_id, integration_id, consistent=True)
        except errors.NotFound:
            _forget(page_id, integration_id)
            continue
        try:
            with turns.taken(turn_of(integration)):
                receipt = _expire(integration, component_ids, moment)
                follow_incident(integration, receipt)
        except errors.DomainError:
            continue  # lost to other writers every time: the next tick tries again
        changed += sum(outcome.changed for outcome in receipt.outcomes.values())
    return changed


def _forget(page_id: str, integration_id: str) -> None:
    """The firing alerts of an integration deleted meanwhile: they fire on nothing."""

    def change(work: Work) -> None:
        work.quiet()
        for firing in FiringAlerts.query(integration_id, consistent_read=True):
            work.delete(firing)

    unit_of_work.run(page_id, change)


def _expire(integration: Integration, component_ids: list[str], moment: datetime) -> Receipt:
    receipt = Receipt()
    for start in range(0, len(component_ids), COMPONENTS_PER_UNIT):
        part = component_ids[start : start + COMPONENTS_PER_UNIT]
        _merge(
            receipt,
            _in_unit(integration, lambda edit, p=part: _expired(edit, integration, p, moment)),
        )
    return receipt


def _expired(
    edit: Edit, integration: Integration, component_ids: list[str], moment: datetime
) -> Receipt:
    """One part of the expiry: the components' alerts not posted within the integration's
    `expire_after_minutes` go, and their components follow the alerts left."""
    kept = _firing_alerts(edit, integration)
    minutes = expire_after_minutes(integration)
    wanted = []
    for component_id in component_ids:
        firing = kept.get(component_id)
        if firing is None:
            continue  # resolved or gone meanwhile
        held = dict(firing.alerts or {})
        gone = [
            fingerprint
            for fingerprint, alert in held.items()
            if minutes
            and _moment(alert.get("seen", alert["since"])) + timedelta(minutes=minutes) <= moment
        ]
        for fingerprint in gone:
            del held[fingerprint]
        _keep(edit.work, firing, held, minutes)  # posted since, or the setting changed: later
        if gone:
            detail = ", ".join(f"{fingerprint} {EXPIRED}" for fingerprint in gone)
            detail += f" (not posted for {minutes} minutes)"
            wanted.append(_wanted(component_id, held, detail))
    return _applied(edit, integration, wanted, kept)


def _since(held: dict[str, dict], status: str) -> datetime | None:
    """Since when the worst status has been wanted: its oldest alert's start."""
    starts = [_moment(alert["since"]) for alert in held.values() if alert["status"] == status]
    return min(starts, default=None)


def _detail(alerts: list[Alert]) -> str:
    return ", ".join(f"{alert.fingerprint} {alert.state}" for alert in alerts)


def _audit_unmatched(edit: Edit, integration: Integration, alerts: list[Alert]) -> None:
    """One entry for the post's alerts that named no component: each with the label that
    failed to match, so that whoever reads the audit can fix the alert or the page."""
    detail = "; ".join(
        f"{alert.fingerprint} {alert.state}: {why_unmatched(alert, edit.records)}"
        for alert in alerts
    )
    automation_audit.stage(
        edit.work, Entry(integration.kind, integration.id, detail, automation.NO_COMPONENT)
    )


RESOLVED_BODY = "Resolved: every alert behind this incident has resolved."


def follow_incident(integration: Integration, receipt: Receipt) -> None:
    """Issue 34, item 6: open an incident from the integration's template when automation
    takes a component to major_outage; once every alert has resolved (or expired), resolve it
    if the integration says so (and forget it either way: the next outage opens a new one)."""
    page_id, open_id = integration.page_id, integration.open_incident_id
    if integration.incident_template_id and receipt.broke and not open_id:
        fields = incidents.IncidentInput(
            template_id=integration.incident_template_id, component_ids=receipt.broke
        )
        incident = incidents.create_incident(page_id, fields)
        remember_incident(page_id, integration.id, incident.record.id)
    elif open_id and receipt.all_clear:
        if integration.resolve_incident and _still_open(page_id, open_id):
            resolving = incidents.IncidentInput(status="resolved", body=RESOLVED_BODY)
            incidents.update_incident(page_id, open_id, resolving)
        remember_incident(page_id, integration.id, None)


def _still_open(page_id: str, incident_id: str) -> bool:
    try:
        return incidents.is_open(incidents.get_record(page_id, incident_id, consistent=True))
    except errors.NotFound:  # deleted meanwhile
        return False


def remember_incident(page_id: str, integration_id: str, incident_id: str | None) -> None:
    """The incident the integration opened (None: it resolved it)."""

    def change(work: Work) -> None:
        work.quiet()
        integration = get_integration(page_id, integration_id, consistent=True)
        integration.open_incident_id = incident_id
        work.save(integration)

    unit_of_work.run(page_id, change)
