"""Automation sets component statuses (issue 34, items 3-5): alert integrations and built-in
checks say which status they want for a component, and these rules decide whether it moves.

People come first: a component under maintenance, named by an open incident, or set by hand
within the source's `hold_minutes` is not moved; and a component set by hand stays as set until
what wants a status for it fires again after that (issue 45): a hold that ends never re-applies
an older alert's state, nor a resolution or an expiry (`Wanted.fired_at`). No flapping: with
`min_firing_seconds`, a status is applied only once it has been wanted that long, so a change
and its undo within that time change nothing and notify nobody. A wait (for the firing time, or for people to let go)
is kept as a `PendingStatus`, which the every-minute tick tries again when it is due
(`settle_due`), so an alert that keeps firing still lands without being posted again.

A change is made as a manual one is (`components.Edit.set_status`, in the unit of work), so
its status day, its `component_update` to subscribers and the public page follow just as they
do for a person's change; the component remembers that automation set it (`status_set_by`).
Every decision is recorded in the audit (`automation_audit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from chalicelib import clock
from chalicelib.domain import component_holds, errors, turns
from chalicelib.domain.automation_audit import Entry
from chalicelib.domain.automation_audit import stage as stage_audit
from chalicelib.domain.components import SET_BY_HAND, STATUSES, Edit, edit_components
from chalicelib.store.components import Component
from chalicelib.store.integrations import DUE, PendingStatus

DEFAULT_HOLD_MINUTES = 60
UNDER_MAINTENANCE = "under_maintenance"
# How soon a wait on people (a maintenance, an open incident) is looked at again.
RECHECK_AFTER = timedelta(minutes=1)
NO_COMPONENT = "no component matched"
ALREADY = "already "


@dataclass(frozen=True)
class AutomationOutcome:
    """What became of one wanted status: whether the component changed, the status it has now
    (empty when there is no such component) and why."""

    changed: bool
    status: str
    reason: str


@dataclass(frozen=True)
class Source:
    """Who wants a status: an integration (its kind) or a check, by id, and its settings."""

    kind: str
    id: str
    hold_minutes: int = DEFAULT_HOLD_MINUTES
    min_firing_seconds: int = 0
    # The incident this source opened itself: it holds the components against people's other
    # sources, not against the source that opened it (which must be able to bring them back).
    own_incident_id: str | None = None

    @property
    def name(self) -> str:
        """How a component's `status_set_by` names it."""
        return f"{self.kind}:{self.id}"


@dataclass(frozen=True)
class Wanted:
    """A status a source wants for a component; `since` is when it began to want it (default:
    when first asked), `detail` the alerts' fingerprints or the check's result."""

    component_id: str
    status: str
    detail: str = ""
    since: datetime | None = None
    # When what wants it last fired: the newest start (or change) of a firing alert behind it,
    # a check's new verdict; None when nothing fires (a resolution, an expiry).
    fired_at: datetime | None = None


def apply_status(
    page_id: str,
    component_id: str,
    status: str,
    *,
    source_kind: str,
    source_id: str,
    detail: str,
    hold_minutes: int = DEFAULT_HOLD_MINUTES,
    min_firing_seconds: int = 0,
    audit_unchanged: bool = True,
) -> AutomationOutcome:
    """Apply the status an automation wants for one component under the rules above, record
    the decision in the audit, and say what became of it. `audit_unchanged` False leaves out
    of the audit what only repeats the last entry (a check that runs every minute confirming
    the status it set)."""
    source = Source(source_kind, source_id, hold_minutes, min_firing_seconds)
    # A check asks only when its verdict changes: each ask is news.
    wanted = Wanted(component_id, status, detail, fired_at=clock.now())
    with turns.taken(component_id):
        return apply_all(page_id, source, [wanted], audit_unchanged=audit_unchanged)[0]


def apply_all(
    page_id: str, source: Source, wanted: list[Wanted], *, audit_unchanged: bool = True
) -> list[AutomationOutcome]:
    """Apply several wanted statuses of one source as one unit of work (all land or none)."""
    return edit_components(
        page_id, lambda edit: apply_in(edit, source, wanted, audit_unchanged=audit_unchanged)
    )


def apply_in(
    edit: Edit, source: Source, wanted: list[Wanted], *, audit_unchanged: bool = True
) -> list[AutomationOutcome]:
    """Decide and stage each wanted status on `edit` (its caller stages the rest of its change
    with it); `audit_unchanged` False records only changes and new reasons."""
    for one in wanted:
        if one.status not in STATUSES:
            raise errors.invalid("status", f"must be one of {', '.join(sorted(STATUSES))}")
    held = component_holds.held_elsewhere(edit.page_id, besides=source.own_incident_id)
    outcomes = [_apply_one(edit, source, one, held, audit_unchanged) for one in wanted]
    if not any(outcome.changed for outcome in outcomes):
        edit.work.quiet()  # only the audit and the waits are written: the page shows nothing new
    return outcomes


def _apply_one(
    edit: Edit,
    source: Source,
    wanted: Wanted,
    held: component_holds.Holds,
    audit_unchanged: bool,
) -> AutomationOutcome:
    component = next((r for r in edit.records if r.id == wanted.component_id and not r.group), None)
    pending = _pending_of(edit.page_id, wanted.component_id, source)
    if component is None:
        outcome = AutomationOutcome(False, "", NO_COMPONENT)
        old_status = None
        if pending is not None:
            edit.work.delete(pending)  # the component is gone: nothing to wait for
    else:
        old_status = component.status
        outcome = _decided(edit, source, wanted, component, held, pending)
    if audit_unchanged or outcome.changed or _is_news(pending, outcome):
        _audit(edit, source, wanted, old_status, outcome)
    return outcome


def _is_news(pending: PendingStatus | None, outcome: AutomationOutcome) -> bool:
    """Whether an outcome that changed nothing differs from what was last recorded: not the
    same wait again, nor a status confirmed once more (the tick's retries, a check's every
    run)."""
    if pending is None:
        return not outcome.reason.startswith(ALREADY)
    return pending.reason != outcome.reason


def _decided(
    edit: Edit,
    source: Source,
    wanted: Wanted,
    component: Component,
    held: component_holds.Holds,
    pending: PendingStatus | None,
) -> AutomationOutcome:
    """Apply the wanted status, or keep waiting for it (or stop: it is the status already)."""
    waiting = _waiting(component, source, wanted, held, pending, edit.moment)
    if waiting is None:
        edit.set_status(component, wanted.status, by=source.name)
        if pending is not None:
            edit.work.delete(pending)
        return AutomationOutcome(True, wanted.status, f"set to {wanted.status}")
    reason, due_at = waiting
    if component.status == wanted.status or due_at is None:
        if pending is not None:
            edit.work.delete(pending)  # nothing to wait for
    else:
        edit.work.save(_pending(edit.page_id, source, wanted, pending, edit.moment, reason, due_at))
    return AutomationOutcome(False, component.status, reason)


def _waiting(
    component: Component,
    source: Source,
    wanted: Wanted,
    held: component_holds.Holds,
    pending: PendingStatus | None,
    moment: datetime,
) -> tuple[str, datetime | None] | None:
    """Why the wanted status is not applied now, and when to look again (None: never, without
    a new ask); None to apply it."""
    if component.status == wanted.status:
        return f"{ALREADY}{wanted.status}", moment
    if component.status == UNDER_MAINTENANCE:
        return "under maintenance", moment + RECHECK_AFTER
    if component.id in held:
        return "held by an open incident", moment + RECHECK_AFTER
    set_at = component.status_set_at
    if component.status_set_by == SET_BY_HAND and set_at is not None:
        if not _fired_after(_fired_at(wanted, pending), set_at):
            return f"set by hand at {clock.iso(set_at)}; kept as set until an alert fires", None
        until = set_at + timedelta(minutes=source.hold_minutes)
        if moment < until:
            return f"set by hand at {clock.iso(set_at)}; held until {clock.iso(until)}", until
    since = _wanted_since(wanted, pending, moment)
    firing_until = since + timedelta(seconds=source.min_firing_seconds)
    if moment < firing_until:
        return (
            f"wanted for less than min_firing_seconds ({source.min_firing_seconds}); "
            f"applied at {clock.iso(firing_until)} if still wanted"
        ), firing_until
    return None


def _fired_at(wanted: Wanted, pending: PendingStatus | None) -> datetime | None:
    if wanted.fired_at is None and pending is not None and pending.status == wanted.status:
        return pending.fired_at  # the tick trying a wait again
    return wanted.fired_at


def _fired_after(fired_at: datetime | None, set_at: datetime) -> bool:
    """Whether a firing is newer than a status set by hand (at the milliseconds the firing
    alerts' times keep)."""
    return fired_at is not None and fired_at >= set_at.replace(
        microsecond=set_at.microsecond // 1000 * 1000
    )


def _wanted_since(wanted: Wanted, pending: PendingStatus | None, moment: datetime) -> datetime:
    if pending is not None and pending.status == wanted.status:
        return pending.wanted_since
    return wanted.since or moment


def _key(component_id: str, source: Source) -> str:
    return f"{component_id}#{source.kind}#{source.id}"


def _pending_of(page_id: str, component_id: str, source: Source) -> PendingStatus | None:
    try:
        return PendingStatus.get(page_id, _key(component_id, source), consistent_read=True)
    except PendingStatus.DoesNotExist:
        return None


def _pending(
    page_id: str,
    source: Source,
    wanted: Wanted,
    pending: PendingStatus | None,
    moment: datetime,
    reason: str,
    due_at: datetime,
) -> PendingStatus:
    return PendingStatus(
        page_id,
        _key(wanted.component_id, source),
        component_id=wanted.component_id,
        source_kind=source.kind,
        source_id=source.id,
        status=wanted.status,
        detail=wanted.detail,
        wanted_since=_wanted_since(wanted, pending, moment),
        fired_at=_fired_at(wanted, pending),
        hold_minutes=source.hold_minutes,
        min_firing_seconds=source.min_firing_seconds,
        own_incident_id=source.own_incident_id,
        reason=reason,
        due=DUE,
        due_at=due_at,
    )


def _audit(
    edit: Edit,
    source: Source,
    wanted: Wanted,
    old_status: str | None,
    outcome: AutomationOutcome,
) -> None:
    stage_audit(
        edit.work,
        Entry(
            source_kind=source.kind,
            source_id=source.id,
            detail=wanted.detail,
            reason=outcome.reason,
            component_id=wanted.component_id,
            old_status=old_status,
            new_status=wanted.status,
            changed=outcome.changed,
        ),
    )


def waits_of(page_id: str, source_kind: str, source_id: str) -> list[PendingStatus]:
    """The waits of a source (to delete with it: a deleted integration wants nothing)."""
    return [
        pending
        for pending in PendingStatus.query(page_id)
        if pending.source_kind == source_kind and pending.source_id == source_id
    ]


def settle_due(moment: datetime | None = None) -> int:
    """The every-minute step: try again every wait that is due; how many components moved."""
    moment = moment or clock.now()
    moved = 0
    for pending in list(PendingStatus.due_index.query(DUE, PendingStatus.due_at <= moment)):
        source = Source(
            pending.source_kind,
            pending.source_id,
            int(pending.hold_minutes),
            int(pending.min_firing_seconds),
            pending.own_incident_id,
        )
        wanted = Wanted(pending.component_id, pending.status, pending.detail)
        try:
            with turns.taken(pending.component_id):
                outcomes = edit_components(
                    pending.page_id,
                    lambda edit, s=source, w=wanted: apply_in(edit, s, [w], audit_unchanged=False),
                )
        except errors.DomainError:
            continue  # lost to other writers every time: the next tick tries again
        moved += sum(outcome.changed for outcome in outcomes)
    return moved
