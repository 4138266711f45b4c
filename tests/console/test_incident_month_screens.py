"""Running incidents and maintenances by clicks: components another open incident holds stay
its own, the lists of past ones, edits, deletion, follow-ups, backfills, postmortem links,
moving and cancelling a maintenance, all under the API's roles."""

import re

from tests.public.conftest import make_component


def _incident_id(location: str) -> str:
    return location.split("?")[0].rsplit("/", 1)[-1]


def _open(world, name: str, statuses: dict[str, str], **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": name, "components": statuses, **fields}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def _statuses(world) -> dict[str, str]:
    listed = world.api.get(f"/v1/pages/{world.page_id}/components").json
    return {component["name"]: component["status"] for component in listed}


def _incident(world, incident_id: str) -> dict:
    return world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident_id}").json


def _section(text: str, heading_id: str) -> str:
    """One `<section>` of a screen, found by its heading's id."""
    start = text.index(f'aria-labelledby="{heading_id}"')
    return text[start : text.index("</section>", start)]


def _resolve_form_fields(text: str) -> list[tuple[str, str]]:
    """What the resolve form posts as it is shown: its hidden fields, its checked boxes."""
    form = _section(text, "resolve")
    pairs = []
    for tag in re.findall(r"<input [^>]*>", form):
        name, value = re.search(r'name="([^"]*)"', tag), re.search(r'value="([^"]*)"', tag)
        if name is None or name.group(1) == "csrf":
            continue
        if 'type="checkbox"' in tag and " checked" not in tag:
            continue
        pairs.append((name.group(1).replace("&#34;", '"'), value.group(1)))
    pairs.append(("incident[body]", "Resolved."))
    return pairs


def _web_components(world) -> dict[str, dict]:
    return {
        name: make_component(world, name)
        for name in ("Website", "Dashboard", "REST API", "Webhooks")
    }


def test_a_new_incident_takes_no_component_another_open_incident_holds(console, make_user, world):
    parts = _web_components(world)
    held = {
        parts["REST API"]["id"]: "partial_outage",
        parts["Webhooks"]["id"]: "degraded_performance",
    }
    first = _open(world, "Elevated API error rates", held, status="monitoring")
    console.sign_in(make_user())
    form = console.get(f"/manage/pages/{world.page_id}/incidents/new")
    assert not re.search(r'<option value="\w+" selected>', form.text)  # nothing preselected
    assert "also affected by “Elevated API error rates”, still open" in form.text
    opened = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[name]": "Login failures",
            "incident[body]": "Some sign-ins fail.",
            f"incident[components][{parts['Website']['id']}]": "major_outage",
            f"incident[components][{parts['Dashboard']['id']}]": "major_outage",
            f"incident[components][{parts['REST API']['id']}]": "",
            f"incident[components][{parts['Webhooks']['id']}]": "",
        },
    )
    login = _incident(world, _incident_id(opened.headers["location"]))
    assert {c["name"] for c in login["components"]} == {"Website", "Dashboard"}
    assert _statuses(world)["REST API"] == "partial_outage"
    assert {c["name"] for c in _incident(world, first["id"])["components"]} == {
        "REST API",
        "Webhooks",
    }

    screen = console.get(opened.headers["location"])
    resolved = console.post(opened.headers["location"], _resolve_form_fields(screen.text))
    assert resolved.status == 303
    assert _statuses(world) == {
        "Website": "operational",
        "Dashboard": "operational",
        "REST API": "partial_outage",
        "Webhooks": "degraded_performance",
    }
    assert _incident(world, first["id"])["status"] == "monitoring"


def test_resolving_gives_back_only_components_no_other_open_incident_holds(
    console, make_user, world
):
    parts = _web_components(world)
    api_id, web_id = parts["REST API"]["id"], parts["Website"]["id"]
    _open(world, "Elevated API error rates", {api_id: "partial_outage"})
    both = _open(world, "Login failures", {api_id: "major_outage", web_id: "major_outage"})
    console.sign_in(make_user())
    screen = console.get(f"/manage/pages/{world.page_id}/incidents/{both['id']}")
    offered = _resolve_form_fields(screen.text)
    assert (f"incident[components][{web_id}]", "operational") in offered
    assert not any(api_id in name for name, _ in offered)
    resolve = _section(screen.text, "resolve")
    assert "stays major outage while “Elevated API error rates” is open" in resolve
    console.post(f"/manage/pages/{world.page_id}/incidents/{both['id']}", offered)
    statuses = _statuses(world)
    assert (statuses["Website"], statuses["REST API"]) == ("operational", "major_outage")
    assert _incident(world, both["id"])["status"] == "resolved"


def test_the_lists_show_incidents_and_maintenances_newest_first_paged_and_searched(
    console, make_user, world, monkeypatch
):
    from chalicelib.console import incident_list

    monkeypatch.setattr(incident_list, "ROWS_PER_SCREEN", 2)
    for name in ("Queue backlog", "Login failures", "Slow search"):
        _open(world, name, {})
    resolved = _open(world, "Old outage", {}, status="resolved")
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {
            "incident": {
                "name": "Database upgrade",
                "status": "scheduled",
                "scheduled_for": "2031-01-10T02:00:00Z",
                "scheduled_until": "2031-01-10T04:00:00Z",
            }
        },
    )
    console.sign_in(make_user())
    first = console.get(f"/manage/pages/{world.page_id}/incidents")
    assert re.findall(r'/incidents/\w+">([^<]*)</a></td>', first.text) == [
        "Old outage",
        "Slow search",
    ]
    assert "Database upgrade" not in first.text and 'href="?page=2"' not in first.text
    second = console.get(f"/manage/pages/{world.page_id}/incidents?page=2")
    assert re.findall(r'/incidents/\w+">([^<]*)</a></td>', second.text) == [
        "Login failures",
        "Queue backlog",
    ]
    found = console.get(f"/manage/pages/{world.page_id}/incidents?q=LOGIN")
    assert re.findall(r'/incidents/\w+">([^<]*)</a></td>', found.text) == ["Login failures"]
    assert resolved["id"] in first.text
    maintenances = console.get(f"/manage/pages/{world.page_id}/maintenances")
    assert "Database upgrade" in maintenances.text and "Slow search" not in maintenances.text
    assert console.get(f"/manage/pages/{world.page_id}/incidents?page=x").status == 400


def test_an_incident_name_impact_and_update_text_are_edited(console, make_user, world):
    incident = _open(world, "Slow serach", {}, body="We are lookng into it.")
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}"
    assert f'href="{path}/edit"' in console.get(path).text
    console.get(f"{path}/edit")
    saved = console.post(
        f"{path}/edit", {"incident[name]": "Slow search", "incident[impact_override]": "major"}
    )
    assert saved.status == 303 and "done=Changes+saved" in saved.headers["location"]
    edited = _incident(world, incident["id"])
    assert (edited["name"], edited["impact"], len(edited["incident_updates"])) == (
        "Slow search",
        "major",
        1,
    )
    update_id = edited["incident_updates"][0]["id"]
    console.get(f"{path}/edit")
    console.post(
        f"{path}/updates/{update_id}", {"incident_update[body]": "We are looking into it."}
    )
    assert _incident(world, incident["id"])["incident_updates"][0]["body"] == (
        "We are looking into it."
    )
    console.get(f"{path}/edit")
    cleared = console.post(f"{path}/edit", {"incident[impact_override]": ""})
    assert cleared.status == 303
    assert _incident(world, incident["id"])["impact_override"] is None
    assert console.post(f"{path}/updates/{update_id}", {"incident_update[body]": ""}).status == 422


def test_deleting_an_incident_asks_first_then_removes_it(console, make_user, world):
    incident = _open(world, "Duplicate report", {})
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}"
    edit = console.get(f"{path}/edit")
    confirm = edit.text[edit.text.index("<details>") : edit.text.index("</details>")]
    assert f'action="{path}/delete"' in confirm and "cannot be undone" in confirm
    deleted = console.post(f"{path}/delete", {})
    assert deleted.headers["location"].endswith("/incidents?done=Incident+deleted")
    listed = console.get(deleted.headers["location"])
    assert '<p class="notice" role="status">Incident deleted</p>' in listed.text
    assert world.api.get(f"/v1/pages/{world.page_id}/incidents/{incident['id']}").status == 404


def test_a_resolved_incident_takes_a_follow_up_and_stays_resolved(console, make_user, world):
    incident = _open(world, "Checkout errors", {}, status="resolved")
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}"
    screen = console.get(path)
    follow_up = _section(screen.text, "post-update")
    assert 'value="resolved" checked' in follow_up and "Post the follow-up" in follow_up
    assert 'aria-labelledby="resolve"' not in screen.text
    console.post(
        path,
        {"incident[status]": "resolved", "incident[body]": "The root cause was a full disk."},
    )
    after = _incident(world, incident["id"])
    assert after["status"] == "resolved"
    assert after["incident_updates"][0]["body"] == "The root cause was a full disk."
    assert after["resolved_at"] == incident["resolved_at"]


def test_a_past_incident_is_backfilled_in_the_page_zone_and_notifies_no_one(
    console, make_user, world
):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"time_zone": "America/New_York"}})
    website = make_component(world, "Website")
    console.sign_in(make_user())
    listed = console.get(f"/manage/pages/{world.page_id}/incidents")
    assert "Backfill a past incident" in listed.text
    form = console.get(f"/manage/pages/{world.page_id}/incidents/backfill")
    assert "America/New_York, E" in form.text
    added = console.post(
        f"/manage/pages/{world.page_id}/incidents/backfill",
        {
            "incident[name]": "Outage last winter",
            "incident[backfill_date]": "2025-01-15T09:00",
            "resolved_at": "2025-01-15T10:30",
            "incident[body]": "The website was down.",
            "resolution": "A restart fixed it.",
            "incident[component_ids][]": website["id"],
        },
    )
    assert added.status == 303, added.text
    incident = _incident(world, _incident_id(added.headers["location"]))
    assert incident["created_at"].startswith("2025-01-15T14:00")
    assert incident["resolved_at"].startswith("2025-01-15T15:30")
    assert incident["status"] == "resolved"
    assert [(u["status"], u["body"]) for u in incident["incident_updates"]] == [
        ("resolved", "A restart fixed it."),
        ("investigating", "The website was down."),
    ]
    assert not any(u["deliver_notifications"] for u in incident["incident_updates"])
    assert [c["name"] for c in incident["components"]] == ["Website"]
    assert _statuses(world)["Website"] == "operational"
    reversed_times = console.post(
        f"/manage/pages/{world.page_id}/incidents/backfill",
        {
            "incident[name]": "Backwards",
            "incident[backfill_date]": "2025-01-15T09:00",
            "resolved_at": "2025-01-15T08:00",
        },
    )
    assert reversed_times.status == 422 and "resolved_at" in reversed_times.text


def test_the_incident_links_to_its_postmortem(console, make_user, world):
    incident = _open(world, "Checkout errors", {}, status="resolved")
    console.sign_in(make_user())
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}"
    assert f'<a href="{path}/postmortem">Write the postmortem</a>' in console.get(path).text
    console.get(f"{path}/postmortem")
    console.post(f"{path}/postmortem", {"body_draft": "What happened.", "action": "save"})
    assert f'<a href="{path}/postmortem">Edit the postmortem</a>' in console.get(path).text


def test_a_maintenance_is_moved_in_the_page_zone_then_cancelled(console, make_user, world):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"time_zone": "America/New_York"}})
    console.sign_in(make_user({"maintenance_manager": True}))
    form = console.get(f"/manage/pages/{world.page_id}/maintenances/new")
    assert "(UTC)" not in form.text and "America/New_York, E" in form.text
    scheduled = console.post(
        f"/manage/pages/{world.page_id}/incidents",
        {
            "incident[name]": "Database upgrade",
            "incident[status]": "scheduled",
            "incident[scheduled_for]": "2031-01-10T02:00",
            "incident[scheduled_until]": "2031-01-10T04:00",
        },
    )
    incident_id = _incident_id(scheduled.headers["location"])
    assert _incident(world, incident_id)["scheduled_for"].startswith("2031-01-10T07:00")
    path = f"/manage/pages/{world.page_id}/incidents/{incident_id}"
    shown = console.get(path)
    assert "2031-01-10 02:00 EST to 2031-01-10 04:00 EST · <a" in shown.text  # the copy fix
    edit = console.get(f"{path}/edit")
    assert 'value="2031-01-10T02:00"' in edit.text
    assert "Text of its updates" not in edit.text  # the API's update edit is incident_manager's
    console.post(
        f"{path}/edit",
        {
            "incident[scheduled_for]": "2031-01-11T22:00",
            "incident[scheduled_until]": "2031-01-12T01:00",
        },
    )
    moved = _incident(world, incident_id)
    assert moved["scheduled_for"].startswith("2031-01-12T03:00")
    assert moved["scheduled_until"].startswith("2031-01-12T06:00")
    cancel = _section(console.get(f"{path}/edit").text, "cancel")
    assert 'name="incident[status]" value="completed"' in cancel
    console.post(
        path,
        {"incident[status]": "completed", "incident[body]": "This maintenance is cancelled."},
    )
    cancelled = _incident(world, incident_id)
    assert cancelled["status"] == "completed"
    upcoming = world.api.get(f"/v1/pages/{world.page_id}/incidents/upcoming").json
    assert upcoming == []


def test_without_the_role_there_are_no_controls_and_forged_posts_are_refused(
    console, make_user, world
):
    incident = _open(world, "Login failures", {})
    update_id = incident["incident_updates"][0]["id"]
    console.sign_in(make_user({"maintenance_manager": True}))
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}"
    screen = console.get(path)
    for control in ("/edit", "Post an update", "Post a follow-up", "Resolve the incident"):
        assert control not in screen.text
    listed = console.get(f"/manage/pages/{world.page_id}/incidents")
    assert "Backfill a past incident" not in listed.text and "Open an incident" not in listed.text
    assert console.get(f"{path}/edit").status == 403
    forged = {
        f"{path}/edit": {"incident[name]": "Hijacked"},
        f"{path}/delete": {},
        f"{path}/updates/{update_id}": {"incident_update[body]": "Hijacked"},
        path: {"incident[status]": "resolved", "incident[body]": "Hijacked"},
        f"/manage/pages/{world.page_id}/incidents/backfill": {
            "incident[name]": "Hijacked",
            "incident[backfill_date]": "2025-01-15T09:00",
            "resolved_at": "2025-01-15T10:00",
        },
    }
    for target, form in forged.items():
        assert console.post(target, form).status == 403, target
    after = _incident(world, incident["id"])
    assert (after["name"], after["status"]) == ("Login failures", "investigating")
    assert after["incident_updates"][0]["body"] != "Hijacked"


def test_a_refused_maintenance_is_shown_again_as_typed_with_the_problem_beside_its_field(
    console, make_user, world
):
    console.sign_in(make_user())
    new = f"/manage/pages/{world.page_id}/maintenances/new"
    console.get(new)
    typed = {
        "incident[status]": "scheduled",
        "incident[name]": "Database <upgrade>",
        "incident[scheduled_for]": "2030-03-02T10:00",
        "incident[scheduled_until]": "2030-03-02T09:00",
        "incident[body]": "Kept *text*",
    }
    refused = console.post(f"/manage/pages/{world.page_id}/incidents", typed)
    assert refused.status == 422
    shown = refused.text
    assert "<h1>Schedule a maintenance</h1>" in shown  # the form, not a page of its own
    assert 'id="scheduled_until-problem">The end must be after the start</p>' in shown
    assert 'aria-invalid="true" aria-describedby="scheduled_until-problem"' in shown
    assert "must be after scheduled_for" not in shown  # no API field names
    assert "<li>The end must be after the start</li>" in shown  # and above the form
    assert 'value="Database &lt;upgrade&gt;"' in shown
    assert 'value="2030-03-02T10:00"' in shown and 'value="2030-03-02T09:00"' in shown
    assert ">Kept *text*</textarea>" in shown
    listed = world.api.get(f"/v1/pages/{world.page_id}/incidents").json
    assert not [i for i in listed if i["name"] == "Database <upgrade>"]  # nothing saved


def test_a_refused_incident_is_shown_again_with_what_was_typed(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"/manage/pages/{world.page_id}/incidents/new")
    typed = {"incident[name]": "", "incident[status]": "identified", "incident[body]": "Kept"}
    refused = console.post(f"/manage/pages/{world.page_id}/incidents", typed)
    assert refused.status == 422 and "<h1>Open an incident</h1>" in refused.text
    assert 'id="name-problem">The name ' in refused.text
    assert 'value="identified" checked' in refused.text and ">Kept</textarea>" in refused.text
