"""The rules by which automation (alert integrations, built-in checks) moves a component:
`automation.apply_status`, as a check calls it, over moto's DynamoDB."""

from datetime import UTC, datetime, timedelta

import pytest
from moto import mock_aws

from chalicelib import clock
from chalicelib.domain import errors
from chalicelib.domain.automation import AutomationOutcome, apply_status, settle_due


@pytest.fixture(scope="module")
def aws():
    with mock_aws():
        from chalicelib.store.tables import create_all

        create_all()
        yield


@pytest.fixture
def page_id(aws):
    from chalicelib.domain import organizations, pages
    from chalicelib.domain.pages import PageInput

    organization = organizations.create_organization("Acme Inc")
    return pages.create_page(organization.id, PageInput(name="Acme")).id


@pytest.fixture
def component_id(page_id):
    from chalicelib.domain import components

    return components.create_component(page_id, components.ComponentInput(name="API")).record.id


@pytest.fixture
def moment():
    """The service's clock, pinned; `moment(seconds)` moves it on."""
    start = datetime.now(UTC)

    def at(seconds: float = 0) -> datetime:
        clock.freeze(start + timedelta(seconds=seconds))
        return start + timedelta(seconds=seconds)

    at()
    yield at
    clock.freeze(None)


def check(page_id, component_id, status, **settings):
    """What a failing check asks (`detail`: its result)."""
    return apply_status(
        page_id,
        component_id,
        status,
        source_kind="check",
        source_id="check1",
        detail="HTTP 503 in 120 ms",
        **settings,
    )


def stored(page_id, component_id):
    from chalicelib.store.components import Component

    return Component.get(page_id, component_id, consistent_read=True)


def audit_reasons(page_id):
    from chalicelib.domain import automation_audit

    return [event.reason for event in automation_audit.recent(page_id)]


def test_a_wanted_status_is_applied_and_the_component_knows_automation_set_it(
    page_id, component_id, moment
):
    outcome = check(page_id, component_id, "major_outage")
    assert outcome == AutomationOutcome(True, "major_outage", "set to major_outage")
    component = stored(page_id, component_id)
    assert component.status == "major_outage"
    assert component.status_set_by == "check:check1"
    assert audit_reasons(page_id) == ["set to major_outage"]


def test_the_same_status_again_changes_nothing(page_id, component_id, moment):
    check(page_id, component_id, "partial_outage")
    outcome = check(page_id, component_id, "partial_outage")
    assert outcome == AutomationOutcome(False, "partial_outage", "already partial_outage")


def test_a_status_set_by_hand_holds_for_hold_minutes(page_id, component_id, moment):
    from chalicelib.domain import components

    components.set_component_status(page_id, component_id, "degraded_performance")
    assert stored(page_id, component_id).status_set_by == "hand"
    held = check(page_id, component_id, "major_outage", hold_minutes=10)
    assert not held.changed and held.status == "degraded_performance"
    assert held.reason.startswith("set by hand at ")
    moment(10 * 60 + 1)
    assert check(page_id, component_id, "major_outage", hold_minutes=10).changed


def test_a_wait_from_before_a_status_set_by_hand_is_never_applied(page_id, component_id, moment):
    from chalicelib.domain import components

    check(page_id, component_id, "major_outage", min_firing_seconds=60)  # waits
    moment(30)
    components.set_component_status(page_id, component_id, "degraded_performance")
    moment(61 * 60)  # the wait came due, and any hold is over
    settle_due()
    assert stored(page_id, component_id).status == "degraded_performance"
    assert audit_reasons(page_id)[0].endswith("; kept as set until an alert fires")
    moment(62 * 60)
    settle_due()  # the wait went with it: recorded once
    assert len(audit_reasons(page_id)) == 2
    # The check's next verdict is news: it moves the component.
    assert check(page_id, component_id, "partial_outage").changed


def test_under_maintenance_stays(page_id, component_id, moment):
    from chalicelib.domain import components

    components.set_component_status(page_id, component_id, "under_maintenance")
    outcome = check(page_id, component_id, "major_outage", hold_minutes=0)
    assert outcome == AutomationOutcome(False, "under_maintenance", "under maintenance")


def test_an_open_incident_holds_its_components(page_id, component_id, moment):
    from chalicelib.domain import incidents

    incident = incidents.create_incident(
        page_id, incidents.IncidentInput(name="Looking", component_ids=[component_id])
    )
    outcome = check(page_id, component_id, "major_outage")
    assert outcome == AutomationOutcome(False, "operational", "held by an open incident")
    resolving = incidents.IncidentInput(status="resolved")
    incidents.update_incident(page_id, incident.record.id, resolving)
    assert check(page_id, component_id, "major_outage").changed


def test_a_status_is_applied_only_once_wanted_for_min_firing_seconds(page_id, component_id, moment):
    first = check(page_id, component_id, "major_outage", min_firing_seconds=60)
    assert not first.changed and "min_firing_seconds" in first.reason
    moment(30)
    assert not check(page_id, component_id, "major_outage", min_firing_seconds=60).changed
    moment(61)
    assert check(page_id, component_id, "major_outage", min_firing_seconds=60).changed


def test_an_undo_within_min_firing_seconds_leaves_nothing_to_apply(page_id, component_id, moment):
    check(page_id, component_id, "major_outage", min_firing_seconds=60)
    moment(20)
    undone = check(page_id, component_id, "operational", min_firing_seconds=60)
    assert undone == AutomationOutcome(False, "operational", "already operational")
    moment(120)
    settle_due()
    assert stored(page_id, component_id).status == "operational"


def test_the_tick_applies_a_wait_that_came_due_and_records_it_once(page_id, component_id, moment):
    check(page_id, component_id, "partial_outage", min_firing_seconds=60)
    moment(30)
    settle_due()  # not due yet
    assert stored(page_id, component_id).status == "operational"
    moment(61)
    settle_due()
    assert stored(page_id, component_id).status == "partial_outage"
    reasons = audit_reasons(page_id)
    assert reasons[0] == "set to partial_outage" and len(reasons) == 2


def test_an_unknown_component_is_no_component_matched(page_id, moment):
    outcome = check(page_id, "nosuch", "major_outage")
    assert outcome == AutomationOutcome(False, "", "no component matched")
    assert audit_reasons(page_id) == ["no component matched"]


def test_a_status_that_is_not_a_components_is_refused(page_id, component_id, moment):
    with pytest.raises(errors.Invalid):
        check(page_id, component_id, "down")


def test_a_check_confirming_its_status_each_run_is_recorded_once(page_id, component_id, moment):
    for minute, status in enumerate(["partial_outage"] * 3 + ["operational"] * 2):
        moment(minute * 60)
        check(page_id, component_id, status, audit_unchanged=False)
    assert audit_reasons(page_id) == ["set to operational", "set to partial_outage"]
