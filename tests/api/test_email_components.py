"""Which components an incident's email lists, and with which status (issue 50, item 10): only
those the incident names, each with the status it gave them, never one another incident gave
since; the email that resolves it lists every one, saying which another open incident still
holds."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.api.test_email_notifications import component, email_subscriber, mails_to
from tests.sent_mail import sent_mail

pytestmark = pytest.mark.usefixtures("quick_retries")
READER = "reader@example.com"


def _open(world, name: str, **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def _update(world, incident: dict, **fields) -> None:
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}", {"incident": fields}
    )
    assert answer.status == 200, answer.text


def _listed(mail) -> list[str]:
    """The plain part's affected components, as `- name: status` lines."""
    text = mail.body
    if "Affected components:" not in text:
        return []
    lines = text.split("Affected components:\n", 1)[1].split("\n\n", 1)[0]
    return lines.splitlines()


def test_a_maintenance_email_shows_no_status_another_incident_gave(world, drain):
    search, api = component(world, "Search"), component(world, "API")
    _open(world, "Slow search", components={search["id"]: "degraded_performance"})
    email_subscriber(world, READER)
    drain()
    before = len(sent_mail())
    start = datetime.now(UTC) + timedelta(days=1)
    _open(
        world,
        "Index rebuild",
        status="scheduled",
        scheduled_for=start.isoformat(),
        scheduled_until=(start + timedelta(hours=2)).isoformat(),
        component_ids=[search["id"], api["id"]],
    )
    drain()
    (mail,) = mails_to(READER, before)
    assert _listed(mail) == ["- Search: Affected", "- API: Affected"]
    assert "Degraded Performance" not in mail.html


def test_an_update_shows_the_status_its_incident_gave(world, drain):
    api, database = component(world, "API"), component(world, "Database")
    email_subscriber(world, READER)
    errors = _open(
        world,
        "API errors",
        components={api["id"]: "partial_outage"},
        component_ids=[api["id"], database["id"]],
    )
    _open(world, "Database failover", components={database["id"]: "major_outage"})
    drain()
    before = len(sent_mail())
    _update(world, errors, status="identified", body="A bad deploy.")
    drain()
    (mail,) = mails_to(READER, before)
    assert _listed(mail) == ["- API: Partial Outage", "- Database: Affected"]


def test_the_resolving_email_lists_every_component_and_who_still_holds_one(world, drain):
    api, database = component(world, "API"), component(world, "Database")
    email_subscriber(world, READER)
    errors = _open(
        world,
        "API errors",
        components={api["id"]: "partial_outage", database["id"]: "major_outage"},
    )
    _open(world, "Database failover", components={database["id"]: "major_outage"})
    drain()
    before = len(sent_mail())
    # Resolved as the console resolves it: only what no other open incident holds goes back.
    _update(world, errors, status="resolved", body="Fixed.", components={api["id"]: "operational"})
    drain()
    (mail,) = mails_to(READER, before)
    assert _listed(mail) == [
        "- API: Operational",
        "- Database: Major Outage, still affected by Database failover",
    ]
    assert "still affected by Database failover" in mail.html
