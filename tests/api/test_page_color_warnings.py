"""A page's colours below WCAG AA on its background are saved, and the answer warns of each
in a `Warning` header (issue 32, item 5); the page object keeps the contract's fields."""

import re

import pytest

YELLOW = (
    "css_yellows #f1c40f has a contrast of 1.66:1 on the background #ffffff; WCAG AA asks 4.5:1"
)


def warnings_of(answer) -> list[str]:
    header = answer.headers.get("Warning")
    return re.findall(r'299 - "([^"]*)"', header) if header else []


@pytest.mark.parametrize("suffix", ["", ".json"])
def test_a_colour_below_aa_is_saved_with_a_warning(world, suffix):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}{suffix}",
        {"page": {"css_yellows": "#f1c40f", "css_greens": "#1e8449"}},
    )
    assert answer.status == 200, answer.text
    assert answer.json["css_yellows"] == "#f1c40f"  # the owner decides
    assert warnings_of(answer) == [YELLOW]
    assert "warnings" not in answer.json


def test_colours_that_pass_answer_without_a_warning(world):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}", {"page": {"css_link_color": "#0b5394", "name": "Renamed"}}
    )
    assert answer.status == 200, answer.text
    assert "Warning" not in answer.headers


def test_only_the_colours_a_body_sets_are_warned_of(world):
    world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"css_yellows": "#f1c40f"}})
    renamed = world.api.patch(f"/v1/pages/{world.page_id}", {"page": {"name": "Renamed"}})
    assert "Warning" not in renamed.headers
    graph = world.api.put(f"/v1/pages/{world.page_id}", {"page": {"css_graph_color": "#dddddd"}})
    assert warnings_of(graph) == [
        "css_graph_color #dddddd has a contrast of 1.35:1 on the background #ffffff; "
        "WCAG AA asks 3:1"
    ]


def test_a_new_background_is_weighed_against_every_colour(world):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}", {"page": {"css_body_background_color": "#202020"}}
    )
    assert answer.status == 200, answer.text
    warned = [message.split(" ")[0] for message in warnings_of(answer)]
    assert warned == [
        "css_font_color",
        "css_light_font_color",
        "css_link_color",
        "css_greens",
        "css_yellows",
        "css_oranges",
        "css_blues",
        "css_reds",
    ]  # the graph's blue is a graphic's 3:1 on it


def test_a_page_created_with_a_colour_below_aa_is_warned_of(world):
    answer = world.api.post(
        "/v1/pages", {"page": {"name": "Bright", "css_yellows": "#f1c40f", "css_blues": "#3498db"}}
    )
    assert answer.status == 201, answer.text
    assert warnings_of(answer) == [
        YELLOW,
        "css_blues #3498db has a contrast of 3.15:1 on the background #ffffff; WCAG AA asks 4.5:1",
    ]
    plain = world.api.post("/v1/pages", {"page": {"name": "Plain"}})
    assert plain.status == 201 and "Warning" not in plain.headers
