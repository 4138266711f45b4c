"""The page as a reader sees it: text visible on its background, a group's status telling,
and uptime bars whose color, hover text and dates agree."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from chalicelib import clock
from chalicelib.public import html
from chalicelib.web.labels import LEVELS
from tests.public.conftest import make_component, make_group, publish

STYLESHEET = (Path(html.__file__).parent / "static" / "status.css").read_text()


def declared(classes: set[str], prop: str) -> str | None:
    """The value of `prop` the stylesheet gives an element with `classes` (class selectors
    only, which is all status.css styles these elements with): the most specific matching
    rule wins, the later one on a tie."""
    best = None
    for order, (selectors, body) in enumerate(re.findall(r"([^{}]+)\{([^}]*)\}", STYLESHEET)):
        values = dict(
            (name.strip(), value.strip())
            for name, _, value in (part.partition(":") for part in body.split(";"))
            if value
        )
        if prop not in values:
            continue
        for selector in selectors.split(","):
            wanted = set(re.findall(r"\.([\w-]+)", selector))
            if re.fullmatch(r"(\.[\w-]+)+", selector.strip()) and wanted <= classes:
                rank = (len(wanted), order)
                if best is None or rank >= best[0]:
                    best = (rank, values[prop])
    return best[1] if best else None


BANNER_COLORS = {
    "up": "greens",
    "minor": "yellows",
    "major": "oranges",
    "critical": "reds",
    "maintenance": "blues",
}


@pytest.mark.parametrize("level", sorted(set(LEVELS.values()) | {"up"}))
def test_banner_text_is_never_the_color_of_its_banner(level):
    """The banner is filled with the page's colour of its level, and written in the black or
    white that contrasts most with it (`--on-*`, chalicelib/public/theme.py)."""
    classes = {"banner", f"level-{level}"}
    assert declared(classes, "color") != declared(classes, "background")
    assert declared(classes, "background") == f"var(--{BANNER_COLORS[level]}-fill)"
    assert declared(classes, "color") == f"var(--on-{BANNER_COLORS[level]})"


def test_all_systems_operational_is_written_in_white_on_green(world, visitor):
    publish(world)
    page = visitor.get("").text
    assert 'class="banner level-up"' in page
    assert "All Systems Operational" in page


def shown_status(page: str, name: str) -> str:
    found = re.search(
        rf'<span class="name">{re.escape(name)}</span>(?:<span class="member-count">[^<]*</span>'
        rf'</span>)?<span class="status level-[\w-]+">([^<]+)<',
        page,
    )
    assert found, f"{name} is not on the page"
    return found.group(1)


def test_a_group_with_a_member_under_maintenance_shows_maintenance(world, visitor):
    api, web = make_component(world, "API"), make_component(world, "Web")
    make_group(world, "Core", [api["id"], web["id"]])
    path = f"/v1/pages/{world.page_id}/components/{web['id']}"
    world.api.patch(path, {"component": {"status": "under_maintenance"}})
    publish(world)
    assert shown_status(visitor.get("").text, "Core") == "Under Maintenance"
    world.api.patch(
        f"/v1/pages/{world.page_id}/components/{api['id']}",
        {"component": {"status": "partial_outage"}},
    )
    publish(world)
    assert shown_status(visitor.get("").text, "Core") == "Partial Outage"  # outage first


def bars(page: str) -> list[tuple[str, str]]:
    """Each bar's level, and its day and what its card says of it."""
    found = re.findall(
        r'<button type="button" class="bar level-([\w-]+)" aria-label="([^"]*)"[^>]*></button>'
        r'<div class="uptime-card"><strong>[^<]*</strong><div id="[^"]*">'
        r'<p class="uptime-outage">([^<]*)</p>',
        page,
    )
    return [(level, f"{day}: {summary}") for level, day, summary in found]


@pytest.fixture
def in_major_outage_for_ten_minutes(world):
    start = datetime(2031, 5, 20, 12, 0, tzinfo=UTC)
    clock.freeze(start - timedelta(days=3))
    component = make_component(world, "API")
    clock.freeze(start)
    world.api.patch(
        f"/v1/pages/{world.page_id}/components/{component['id']}",
        {"component": {"status": "major_outage"}},
    )
    clock.freeze(start + timedelta(minutes=10))
    yield
    clock.freeze(None)


def test_todays_bar_of_a_component_in_major_outage_is_red_and_says_so(
    world, visitor, in_major_outage_for_ten_minutes
):
    publish(world)
    level, title = bars(visitor.get("").text)[-1]
    assert level == "critical"
    assert title == "May 20, 2031: 10 min major outage"


def test_every_bar_writes_its_day_the_same_way(world, visitor, in_major_outage_for_ten_minutes):
    publish(world)
    titles = [title for _, title in bars(visitor.get("").text)]
    assert titles[0] == "Feb 20, 2031: No data"
    assert titles[-2] == "May 19, 2031: No downtime recorded"
    assert all(re.match(r"[A-Z][a-z]{2} \d{1,2}, \d{4}: ", title) for title in titles)
