"""What a page owner and a reader saw in month two, measured in a real headless Chromium
(issue 50, items 7, 14, 15 and the axe sweep): a page of 12 components in 3 groups, open and
past incidents, a maintenance to come and a logo of dark text.

- the logo stands left of the page's name; in dark mode it is on a light plate, or the
  dark-mode logo the owner uploaded is shown instead;
- the incident list's search is a full-width field; on a phone the console's header leaves
  the screen to its content, and the history's period links wrap at most once;
- checking a group's "whole group" checks its members (console and public forms), and a
  group's status select sets its members';
- every console screen looked at has no axe violation, light and dark, and the public pages
  with the logo have none either.

With `SCREENS_DIR=/some/folder`, the home page, an incident and the console overview are
saved there at 1280 and 390 px, light and dark (`{name}_{width}_{scheme}.png`)."""

import os
from pathlib import Path

import pytest

from tests.e2e import axe, chromium

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402

from tests.e2e.console_driver import (  # noqa: E402
    button,
    first_start_of,
    png,
    sign_in_owner,
    submit,
    width_at,
)

GROUPS = {
    "Core": ("API", "Database", "Queue", "Search"),
    "Web": ("Website", "Dashboard", "Docs", "Checkout"),
    "Edge": ("CDN", "DNS", "Email", "Webhooks"),
}
SCREENS_DIR = os.environ.get("SCREENS_DIR")


class MonthTwoPage:
    """The owner's first page, filled through the API as the month left it."""

    def __init__(self, stack):
        self.stack = stack
        self.first_start = first_start_of(stack)
        self.key, self.page_id = self.first_start["api_key"], self.first_start["page_id"]
        self.ids: dict[str, str] = {}
        for group, members in GROUPS.items():
            for name in members:
                self.ids[name] = self.create("components", "component", {"name": name})["id"]
            fields = {"name": group, "components": [self.ids[name] for name in members]}
            self.ids[group] = self.create("component-groups", "component_group", fields)["id"]
        self.incident = self.create(
            "incidents",
            "incident",
            {
                "name": "Checkout errors for some customers",
                "body": "We are looking into it.",
                "components": {self.ids["Checkout"]: "partial_outage"},
            },
        )
        self.create(
            "incidents",
            "incident",
            {"name": "Slow search", "body": "Looking.", "impact_override": "minor"},
        )
        for number in range(3):
            self.create(
                "incidents",
                "incident",
                {"name": f"A past outage {number}", "status": "resolved", "body": "Fixed."},
            )
        self.create(
            "incidents",
            "incident",
            {
                "name": "Database upgrade",
                "status": "scheduled",
                "scheduled_for": "2099-01-15T02:00:00Z",
                "scheduled_until": "2099-01-15T04:00:00Z",
                "body": "The database moves to new hardware.",
            },
        )

    def create(self, resource: str, wrapper: str, fields: dict) -> dict:
        answer = self.stack.send(
            "POST", f"/v1/pages/{self.page_id}/{resource}", self.key, {wrapper: fields}
        )
        assert answer.status_code == 201, answer.text
        return answer.json()

    def public(self, suffix: str = "") -> str:
        return f"{self.stack.url}/s/{self.page_id}{suffix}"

    def console(self, suffix: str = "") -> str:
        return f"{self.stack.url}/manage/pages/{self.page_id}{suffix}"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium.start(tmp_path_factory.mktemp("profile"), "1280,1000")
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def month(stack, browser, tmp_path_factory) -> MonthTwoPage:
    """The page, its owner signed in, with a logo of dark text uploaded in the console."""
    page = MonthTwoPage(stack)
    sign_in_owner(browser, stack, page.first_start)
    logo = tmp_path_factory.mktemp("logo") / "logo.png"
    logo.write_bytes(png(b"\x1d\x24\x30"))
    browser.get(page.console("/settings/branding"))
    browser.find_element(By.ID, "branding-transactional_logo").send_keys(str(logo))
    submit(browser, button(browser, "Upload"))
    assert "New logo saved" in browser.find_element(By.CSS_SELECTOR, "p.notice").text
    assert chromium.shows_soon(browser, page.public(), lambda: _logo(browser) is not None)
    return page


def _logo(browser):
    found = browser.find_elements(By.CSS_SELECTOR, ".masthead img")
    return found[0] if found else None


def scheme(browser, name: str) -> None:
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"media": "", "features": [{"name": "prefers-color-scheme", "value": name}]},
    )


def phone(browser, width: int = 390, height: int = 844) -> None:
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def desktop(browser) -> None:
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.fixture(autouse=True)
def light_desktop(browser):
    """Each test starts and ends at desktop width in light mode."""
    desktop(browser)
    scheme(browser, "light")
    yield
    desktop(browser)
    scheme(browser, "light")


def rect(browser, element) -> dict:
    return browser.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return {left: r.left, right: r.right, top: r.top + scrollY,"
        " bottom: r.bottom + scrollY, width: r.width, height: r.height};",
        element,
    )


def lines_of(browser, element) -> float:
    """How many lines an element's text takes."""
    return browser.execute_script(
        "const e = arguments[0], style = getComputedStyle(e);"
        "const line = parseFloat(style.lineHeight) || 1.5 * parseFloat(style.fontSize);"
        "return e.getBoundingClientRect().height / line;",
        element,
    )


def test_the_logo_stands_left_of_the_name(month, browser):
    browser.get(month.public())
    logo, name = _logo(browser), browser.find_element(By.CSS_SELECTOR, ".masthead h1")
    seen, named = rect(browser, logo), rect(browser, name)
    assert seen["right"] <= named["left"], (seen, named)  # beside, not above
    assert seen["top"] < named["bottom"] and seen["bottom"] > named["top"], (seen, named)
    phone(browser)
    browser.get(month.public())
    seen = rect(browser, _logo(browser))
    named = rect(browser, browser.find_element(By.CSS_SELECTOR, ".masthead h1"))
    assert seen["right"] <= named["left"], (seen, named)  # a phone has room for both
    assert width_at(browser, 390) <= 390


@pytest.mark.skipif(not SCREENS_DIR, reason="SCREENS_DIR names where screenshots go")
def test_screenshots_of_the_home_page_an_incident_and_the_overview(month, browser):
    """Taken before the dark-mode logo is uploaded: dark mode shows the logo on its plate."""
    folder = Path(SCREENS_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    shots = {
        "home": month.public(),
        "incident": month.public(f"/incidents/{month.incident['id']}"),
        "console_overview": month.console(),
    }
    for name, url in shots.items():
        for width in (1280, 390):
            for mode in ("light", "dark"):
                scheme(browser, mode)
                phone(browser, width, 900)
                browser.get(url)
                height = browser.execute_script("return document.documentElement.scrollHeight")
                phone(browser, width, min(height, 6000))
                browser.save_screenshot(str(folder / f"{name}_{width}_{mode}.png"))


def test_in_dark_mode_the_logo_is_on_a_light_plate_or_the_dark_logo_is_shown(
    month, browser, tmp_path
):
    scheme(browser, "dark")
    browser.get(month.public())
    logo = _logo(browser)
    assert logo.value_of_css_property("background-color") == "rgba(255, 255, 255, 1)"
    assert float(logo.value_of_css_property("padding-left").removesuffix("px")) > 0
    light_url = logo.get_attribute("src")

    dark = tmp_path / "dark.png"
    dark.write_bytes(png(b"\xf0\xf0\xf0"))
    scheme(browser, "light")
    browser.get(month.console("/settings/branding"))
    browser.find_element(By.ID, "branding-dark_logo").send_keys(str(dark))
    submit(browser, button(browser, "Upload"))
    assert "New dark-mode logo saved" in browser.find_element(By.CSS_SELECTOR, "p.notice").text

    scheme(browser, "dark")

    def dark_logo_shown() -> bool:
        shown = _logo(browser)
        return shown is not None and shown.get_property("currentSrc") not in ("", light_url)

    assert chromium.shows_soon(browser, month.public(), dark_logo_shown)
    assert _logo(browser).value_of_css_property("background-color") == "rgba(0, 0, 0, 0)"
    scheme(browser, "light")
    browser.get(month.public())
    assert _logo(browser).get_property("currentSrc") == light_url


def test_the_incident_search_is_a_full_width_field(month, browser):
    browser.get(month.console("/incidents"))
    field = rect(browser, browser.find_element(By.ID, "q"))
    form = rect(browser, browser.find_element(By.CSS_SELECTOR, "form[role=search]"))
    # The whole of its card but the card's padding and border (17 px a side).
    assert field["width"] >= form["width"] - 2 * 17 - 1, (field, form)
    assert field["height"] >= 44, field
    phone(browser)
    browser.get(month.console("/incidents"))
    field = rect(browser, browser.find_element(By.ID, "q"))
    form = rect(browser, browser.find_element(By.CSS_SELECTOR, "form[role=search]"))
    assert field["width"] >= form["width"] - 2 * 17 - 1, (field, form)


def test_on_a_phone_the_console_header_leaves_the_screen_to_its_content(month, browser):
    phone(browser)
    browser.get(month.console())
    top = rect(browser, browser.find_element(By.TAG_NAME, "main"))["top"]
    assert top <= 120, f"the header takes {top} px before the content"
    sections = browser.find_element(By.CSS_SELECTOR, "nav.sections")
    assert rect(browser, sections)["height"] <= 60  # one row, scrolled sideways
    # Every section is still there, reached by scrolling the row.
    assert len(sections.find_elements(By.TAG_NAME, "a")) == 11
    assert width_at(browser, 390) <= 390


def test_on_a_phone_the_history_period_links_wrap_at_most_once(month, browser):
    phone(browser)
    browser.get(month.public("/history"))
    links = browser.find_elements(By.CSS_SELECTOR, "#history-pager a")
    assert links
    for link in links:
        assert lines_of(browser, link) <= 2.05, link.text
    current = browser.find_element(By.CSS_SELECTOR, "#history-pager .pager-current")
    assert lines_of(browser, current) <= 1.05, current.text


def _checks(browser, ids: list[str]) -> list[bool]:
    return [
        browser.find_element(By.CSS_SELECTOR, f"input[type=checkbox][value='{i}']").is_selected()
        for i in ids
    ]


def test_a_whole_group_checks_its_members(month, browser):
    members = [month.ids[name] for name in GROUPS["Edge"]]
    whole = f"input[data-whole-group][value='{month.ids['Edge']}']"
    browser.get(month.console("/maintenances/new"))
    browser.find_element(By.CSS_SELECTOR, whole).click()
    assert _checks(browser, members) == [True] * 4
    browser.find_element(By.CSS_SELECTOR, f"input[value='{members[0]}']").click()
    assert not browser.find_element(By.CSS_SELECTOR, whole).is_selected()

    browser.get(month.console("/incidents/new"))
    Select(browser.find_element(By.ID, f"group-{month.ids['Core']}")).select_by_visible_text(
        "Partial Outage"
    )
    statuses = [
        browser.find_element(By.ID, f"component-{month.ids[name]}").get_attribute("value")
        for name in GROUPS["Core"]
    ]
    assert statuses == ["partial_outage"] * 4

    browser.get(month.public("/subscribe"))
    browser.find_element(By.CSS_SELECTOR, whole).click()
    assert _checks(browser, members) == [True] * 4


CONSOLE_SCREENS = (
    "",
    "/incidents",
    "/incidents/new",
    "/maintenances",
    "/maintenances/new",
    "/components",
    "/subscribers/new",
    "/settings",
    "/settings/branding",
)


@pytest.mark.parametrize("name", ["light", "dark"])
def test_console_and_public_screens_have_no_axe_violation(month, browser, axe_script, name):
    scheme(browser, name)
    found = []
    paths = [month.console(path) for path in CONSOLE_SCREENS]
    paths += [month.console(f"/incidents/{month.incident['id']}")]
    paths += [month.public(), month.public(f"/incidents/{month.incident['id']}")]
    paths += [month.public("/subscribe"), month.public("/history")]
    for url in paths:
        browser.get(url)
        found += [f"{url}: {line}" for line in axe.violations(browser, axe_script)]
    assert not found, "\n".join(found)
