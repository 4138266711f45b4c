"""Moving a maintenance tells its subscribers (issue 50, item 6): a window moved through the API
or the console posts an update, whose email states the new window, unless the move says not to
notify (the API's `deliver_notifications`, the console's "Notify subscribers")."""

from datetime import UTC, datetime, timedelta

import pytest

from tests.api.test_email_notifications import email_subscriber, mails_to
from tests.sent_mail import sent_mail

pytestmark = pytest.mark.usefixtures("quick_retries")
READER = "reader@example.com"
START = (datetime.now(UTC) + timedelta(days=3)).replace(hour=2, minute=0, second=0, microsecond=0)


def _maintenance(world) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "Database upgrade",
                "status": "scheduled",
                "scheduled_for": START.isoformat(),
                "scheduled_until": (START + timedelta(hours=2)).isoformat(),
                "deliver_notifications": False,
            }
        },
    )
    assert answer.status == 201, answer.text
    return answer.json


def _moved(world, maintenance: dict, **fields) -> dict:
    later = START + timedelta(days=1, hours=20)
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{maintenance['id']}",
        {
            "incident": {
                "scheduled_for": later.isoformat(),
                "scheduled_until": (later + timedelta(hours=3)).isoformat(),
                **fields,
            }
        },
    )
    assert answer.status == 200, answer.text
    return answer.json


def _window_text(moment: datetime, hours: int) -> str:
    """The plain part's window line (the page is in UTC)."""
    shown = "%b %-d, %Y - %H:%M UTC"
    return f"Scheduled: {moment.strftime(shown)} until {(moment + timedelta(hours=hours)).strftime(shown)}"


def test_a_window_moved_through_the_api_notifies_with_the_new_window(world, drain):
    maintenance = _maintenance(world)
    email_subscriber(world, READER)
    drain()
    before = len(sent_mail())
    moved = _moved(world, maintenance)
    assert moved["incident_updates"][0]["body"] == "This maintenance has been rescheduled."
    assert moved["incident_updates"][0]["status"] == "scheduled"
    drain()
    (mail,) = mails_to(READER, before)
    assert _window_text(START + timedelta(days=1, hours=20), 3) in mail.body
    assert "This maintenance has been rescheduled." in mail.body


def test_a_move_without_notifications_posts_its_update_and_sends_nothing(world, drain):
    maintenance = _maintenance(world)
    email_subscriber(world, READER)
    drain()
    before = len(sent_mail())
    moved = _moved(world, maintenance, deliver_notifications=False, body="Moved a day later.")
    assert moved["incident_updates"][0]["body"] == "Moved a day later."
    assert moved["incident_updates"][0]["deliver_notifications"] is False
    drain()
    assert mails_to(READER, before) == []


def test_a_window_given_again_unchanged_posts_nothing(world, drain):
    maintenance = _maintenance(world)
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{maintenance['id']}",
        {"incident": {"scheduled_for": START.isoformat(), "name": "Database upgrade (v16)"}},
    )
    assert answer.status == 200 and len(answer.json["incident_updates"]) == 1
