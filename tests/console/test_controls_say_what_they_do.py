"""Console controls that say what they do (issue 50, item 12): no impact offered for a
maintenance, and resolving or completing says so rather than "Update posted"."""

from tests.console.test_incident_month_screens import _incident_id, _open, _resolve_form_fields


def _maintenance(world, status: str = "scheduled") -> dict:
    window = {"scheduled_for": "2031-01-10T02:00:00Z", "scheduled_until": "2031-01-10T04:00:00Z"}
    return _open(world, "Database upgrade", {}, status=status, **window)


def test_a_maintenance_edit_offers_its_window_not_an_impact(console, make_user, world):
    maintenance = _maintenance(world)
    incident = _open(world, "Slow search", {})
    console.sign_in(make_user())
    base = f"/manage/pages/{world.page_id}/incidents"
    edit = console.get(f"{base}/{maintenance['id']}/edit").text
    assert "Impact" not in edit and "impact_override" not in edit and "now " not in edit
    assert "Name and window" in edit
    edit = console.get(f"{base}/{incident['id']}/edit").text
    assert "Impact" in edit and "now None" in edit


def test_resolving_says_resolved_and_completing_says_completed(console, make_user, world):
    console.sign_in(make_user())
    for opened, said in (
        (_open(world, "Slow search", {}), "Incident resolved"),
        (_maintenance(world, "in_progress"), "Maintenance completed"),
    ):
        path = f"/manage/pages/{world.page_id}/incidents/{opened['id']}"
        answer = console.post(path, _resolve_form_fields(console.get(path).text))
        assert answer.status == 303 and _incident_id(answer.headers["location"]) == opened["id"]
        screen = console.get(answer.headers["location"]).text
        assert said in screen and "Update posted" not in screen
    posted = console.post(path, {"incident[body]": "A follow-up."})
    assert "Update posted" in console.get(posted.headers["location"]).text
