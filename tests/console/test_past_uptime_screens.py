"""Past uptime by clicks (issue 50, item 4): the backfill form's impact and its "Count it in the
uptime bars" (ticked at first), and a component's past days edited on a screen of its own, each
read back through the uptime API."""

import re
from datetime import UTC, datetime

import pytest

from chalicelib import clock
from tests.public.conftest import make_component

NOW = datetime(2031, 5, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def api_component(world):
    clock.freeze(datetime(2031, 5, 1, tzinfo=UTC))
    component = make_component(world, "API", start_date="2031-05-01", showcase=True)
    clock.freeze(NOW)
    yield component
    clock.freeze(None)


def _outage(world, component: dict) -> tuple[int, int]:
    answer = world.api.get(
        f"/v1/pages/{world.page_id}/components/{component['id']}/uptime?start=2031-05-01"
    )
    assert answer.status == 200, answer.text
    return answer.json["major_outage"], answer.json["partial_outage"]


def _backfill(console, world, component: dict, name: str, **extra) -> None:
    added = console.post(
        f"/manage/pages/{world.page_id}/incidents/backfill",
        {
            "incident[name]": name,
            "incident[backfill_date]": "2031-05-10T09:00",
            "resolved_at": "2031-05-10T10:30",
            "incident[body]": "The API was down.",
            "incident[component_ids][]": component["id"],
            **extra,
        },
    )
    assert added.status == 303, added.text


def test_a_backfilled_incident_has_an_impact_and_counts_unless_unticked(
    console, make_user, world, api_component
):
    console.sign_in(make_user())
    form = console.get(f"/manage/pages/{world.page_id}/incidents/backfill").text
    impact = re.search(
        r'<select id="impact" name="incident\[impact_override\]".*?</select>', form, re.S
    )
    assert impact and all(
        f'value="{v}"' in impact.group(0) for v in ("none", "minor", "major", "critical")
    )
    assert (
        '<input type="checkbox" name="in_uptime" value="yes" checked> Count it in the uptime bars'
        in form
    )
    _backfill(
        console, world, api_component, "Kept out", **{"incident[impact_override]": "critical"}
    )
    assert _outage(world, api_component) == (0, 0)
    _backfill(
        console,
        world,
        api_component,
        "Counted",
        **{"incident[impact_override]": "critical", "in_uptime": "yes"},
    )
    assert _outage(world, api_component) == (90 * 60, 0)
    listed = world.api.get(f"/v1/pages/{world.page_id}/incidents").json
    assert {incident["name"]: incident["impact"] for incident in listed} == {
        "Counted": "critical",
        "Kept out": "critical",
    }


def test_a_past_day_is_set_then_reset_on_the_component_uptime_screen(
    console, make_user, world, api_component
):
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/components/{api_component['id']}"
    assert f'<a href="{path}/uptime">Edit past uptime</a>' in console.get(path).text
    screen = console.get(f"{path}/uptime")
    assert screen.status == 200 and "No day set" in screen.text
    saved = console.post(
        f"{path}/uptime", {"day": "2031-05-12", "major_outage": "30", "partial_outage": "45"}
    )
    assert saved.status == 303, saved.text
    shown = console.get(saved.headers["location"]).text
    assert "Day saved" in shown
    assert "<td>2031-05-12</td><td>30 min</td><td>45 min</td>" in shown
    assert _outage(world, api_component) == (30 * 60, 45 * 60)
    # Refused in the form, as typed, in words beside its field: nothing saved.
    refused = console.post(
        f"{path}/uptime", {"day": "2031-05-13", "major_outage": "1000", "partial_outage": "500"}
    )
    assert refused.status == 422
    assert 'value="1000"' in refused.text and 'value="2031-05-13"' in refused.text
    said = "The minutes of major outage and of partial outage must add up to at most 1440 (a day)"
    assert f'<p class="problem" id="major_outage-problem">{said}</p>' in refused.text
    future = console.post(f"{path}/uptime", {"day": "2031-06-01", "major_outage": "5"})
    assert future.status == 422 and "The day must be from the component" in future.text
    reset = console.post(f"{path}/uptime", {"day": "2031-05-12", "action": "remove"})
    assert reset.status == 303
    assert "No day set" in console.get(reset.headers["location"]).text
    assert _outage(world, api_component) == (0, 0)
