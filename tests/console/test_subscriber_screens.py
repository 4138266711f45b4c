"""Subscribers in the console: add, list by state and search, quarantine, reactivate, CSV."""

import csv
import io


def _subscribers(console, world, query: str = "") -> str:
    return console.get(f"/manage/pages/{world.page_id}/subscribers{query}").text


def test_subscribers_are_added_filtered_quarantined_reactivated_and_exported(
    console, make_user, world
):
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/subscribers"
    console.get(base)
    for address in ("ann@example.com", "=cmd@example.com"):
        answer = console.post(
            base,
            {"subscriber[email]": address, "subscriber[skip_confirmation_notification]": "true"},
        )
        assert answer.status == 303, answer.text
    console.get(base)
    assert console.post(base, {"subscriber[email]": "bob@example.com"}).status == 303
    active = _subscribers(console, world)
    assert "ann@example.com" in active and "bob@example.com" not in active  # bob: unconfirmed
    assert "bob@example.com" in _subscribers(console, world, "?state=unconfirmed")
    searched = _subscribers(console, world, "?state=all&q=ann")
    assert "ann@example.com" in searched and "bob@example.com" not in searched

    listed = world.api.get(f"/v1/pages/{world.page_id}/subscribers?q=ann").json
    ann = listed[0]["id"]
    assert console.post(f"{base}/{ann}/quarantine", {}).status == 303
    assert world.api.get(f"/v1/pages/{world.page_id}/subscribers/{ann}").json["state"] == (
        "quarantined"
    )
    assert "ann@example.com" in _subscribers(console, world, "?state=quarantined")
    assert console.post(f"{base}/{ann}/reactivate", {}).status == 303
    assert world.api.get(f"/v1/pages/{world.page_id}/subscribers/{ann}").json["state"] == "active"

    exported = console.get(f"{base}/export?state=all")
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert {row["address"] for row in rows} == {
        "ann@example.com",
        "'=cmd@example.com",  # never a formula in a spreadsheet
        "bob@example.com",
    }


def test_an_incident_manager_sees_subscribers_but_changes_none(console, make_user, world):
    console.sign_in(make_user({"incident_manager": True}))
    base = f"/manage/pages/{world.page_id}/subscribers"
    assert "Add a subscriber" not in console.get(base).text
    assert console.post(base, {"subscriber[email]": "eve@example.com"}).status == 403


def test_a_chat_channel_is_added_and_listed_by_its_platform(console, make_user, world):
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/subscribers"
    form = console.get(f"{base}/new").text
    assert 'name="subscriber[chat_webhook_url]"' in form and "Microsoft Teams" in form
    answer = console.post(
        base,
        {
            "subscriber[chat_webhook_url]": "http://127.0.0.1:9/teams-relay",
            "subscriber[chat_platform]": "teams",
            "subscriber[email]": "ops@example.com",
        },
    )
    assert answer.status == 303, answer.text
    (created,) = world.api.get(f"/v1/pages/{world.page_id}/subscribers?type=teams").json
    assert created["chat_webhook_url"] == "http://127.0.0.1:9/teams-relay"
    listed = _subscribers(console, world, "?type=teams")
    assert "teams-relay" in listed and "Microsoft Teams: 1 active" in listed
