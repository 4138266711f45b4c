"""Moving a maintenance in the console (issue 50, item 6): its edit screen offers "Notify
subscribers", ticked; left unticked, the move posts its update and sends nothing."""

from datetime import timedelta

import pytest

from tests.api.test_email_notifications import email_subscriber, mails_to
from tests.api.test_maintenance_moves import READER, START, _maintenance, _window_text
from tests.sent_mail import sent_mail

pytestmark = pytest.mark.usefixtures("quick_retries")


def test_the_console_edit_notifies_when_ticked(console, make_user, world, drain):
    console.sign_in(make_user({"maintenance_manager": True}))
    maintenance = _maintenance(world)
    email_subscriber(world, READER)
    drain()
    path = f"/manage/pages/{world.page_id}/incidents/{maintenance['id']}/edit"
    edit = console.get(path).text
    assert (
        '<input type="checkbox" name="incident[deliver_notifications]" value="true" checked>'
        " Notify subscribers of the new window" in edit
    )
    later = START + timedelta(days=2)
    window = {
        "incident[scheduled_for]": later.strftime("%Y-%m-%dT%H:%M"),
        "incident[scheduled_until]": (later + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
    }
    before = len(sent_mail())
    saved = console.post(path, window)  # unticked: not posted
    assert saved.status == 303, saved.text
    drain()
    assert mails_to(READER, before) == []
    later += timedelta(days=1)
    window = {
        "incident[scheduled_for]": later.strftime("%Y-%m-%dT%H:%M"),
        "incident[scheduled_until]": (later + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
    }
    saved = console.post(path, {**window, "incident[deliver_notifications]": "true"})
    assert saved.status == 303, saved.text
    drain()
    (mail,) = mails_to(READER, before)
    assert _window_text(later, 1) in mail.body
