"""The console's maintenances listed by start, in the sections a page owner looks for them in
(issue 50, item 14): those in progress, those to come soonest first, then the completed ones,
latest start first, whatever order they were scheduled in."""

import re


def _maintenance(world, name: str, start: str, end: str, status: str = "scheduled") -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": name,
                "status": "scheduled",
                "scheduled_for": start,
                "scheduled_until": end,
                "body": "Planned work.",
            }
        },
    )
    assert answer.status == 201, answer.text
    made = answer.json
    if status != "scheduled":
        moved = world.api.patch(
            f"/v1/pages/{world.page_id}/incidents/{made['id']}",
            {"incident": {"status": status, "body": "Moving on."}},
        )
        assert moved.status == 200, moved.text
    return made


def _names(section: str) -> list[str]:
    return re.findall(r'/incidents/\w+">([^<]*)</a></td>', section)


def _section(text: str, heading_id: str) -> str:
    start = text.index(f'aria-labelledby="{heading_id}"')
    return text[start : text.index("</section>", start)]


def test_maintenances_are_listed_by_start_in_progress_upcoming_then_past(console, make_user, world):
    # Scheduled in an order that is none of the orders shown.
    _maintenance(world, "Far future", "2099-06-01T02:00:00Z", "2099-06-01T03:00:00Z")
    _maintenance(world, "Old move", "2020-01-01T02:00:00Z", "2020-01-01T03:00:00Z", "completed")
    _maintenance(world, "Next week", "2099-01-08T02:00:00Z", "2099-01-08T03:00:00Z")
    _maintenance(world, "Running", "2026-01-01T02:00:00Z", "2099-01-01T03:00:00Z", "in_progress")
    _maintenance(world, "Newer move", "2021-05-01T02:00:00Z", "2021-05-01T03:00:00Z", "completed")
    _maintenance(world, "Tomorrow", "2099-01-02T02:00:00Z", "2099-01-02T03:00:00Z")
    _maintenance(world, "Oldest move", "2019-01-01T02:00:00Z", "2019-01-01T03:00:00Z", "completed")
    console.sign_in(make_user())
    shown = console.get(f"/manage/pages/{world.page_id}/maintenances").text
    headings = re.findall(r'<h2 id="[^"]+">([^<]*)</h2>', shown)
    assert headings == ["In progress", "Upcoming, soonest first", "Completed, latest start first"]
    assert _names(_section(shown, "in-progress")) == ["Running"]
    assert _names(_section(shown, "upcoming")) == ["Tomorrow", "Next week", "Far future"]
    assert _names(_section(shown, "past")) == ["Newer move", "Old move", "Oldest move"]
    # A search still lists what matches, newest first, in one list.
    found = console.get(f"/manage/pages/{world.page_id}/maintenances?q=move").text
    assert _names(found) == ["Oldest move", "Newer move", "Old move"]


def test_a_page_without_maintenances_says_so_once(console, make_user, world):
    console.sign_in(make_user())
    shown = console.get(f"/manage/pages/{world.page_id}/maintenances").text
    assert "No completed maintenances yet." in shown
    assert "In progress" not in shown and "Upcoming" not in shown
