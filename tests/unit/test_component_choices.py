"""The rules of a grouped component picker (domain/component_choices.py): sections in page
order, and a whole group's choice read as its members'."""

from chalicelib.domain import component_choices

LISTED = [
    {"id": "web", "name": "Website", "group": False, "group_id": None},
    {"id": "core", "name": "Core", "group": True, "group_id": None},
    {"id": "api", "name": "API", "group": False, "group_id": "core"},
    {"id": "db", "name": "Database", "group": False, "group_id": "core"},
    {"id": "docs", "name": "Docs", "group": False, "group_id": None},
    {"id": "cdn", "name": "CDN", "group": False, "group_id": None},
    {"id": "empty", "name": "Empty", "group": True, "group_id": None},
]


def test_sections_keep_page_order_and_run_ungrouped_components_together():
    found = component_choices.sections(LISTED)
    assert [(s["group"] and s["group"]["id"], [m["id"] for m in s["members"]]) for s in found] == [
        (None, ["web"]),
        ("core", ["api", "db"]),
        (None, ["docs", "cdn"]),
    ]


def test_a_whole_group_adds_its_members_after_those_chosen_each_once():
    chosen = component_choices.with_whole_groups(["db", "web"], ["core", "nope"], LISTED)
    assert chosen == ["db", "web", "api"]
    assert component_choices.with_whole_groups("web", "core", LISTED) == ["web", "api", "db"]
    assert component_choices.with_whole_groups(None, None, LISTED) == []


def test_a_group_status_goes_to_members_left_unset():
    statuses = component_choices.statuses_with_whole_groups(
        {"db": "degraded_performance"}, {"core": "major_outage", "empty": ""}, LISTED
    )
    assert statuses == {"db": "degraded_performance", "api": "major_outage"}
