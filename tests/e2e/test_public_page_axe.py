"""axe-core on the public pages in a real headless Chromium, in light and in dark (issue 32,
item 5): the home page with every status colour on it, an incident's page, the history and
the subscribe form, with the default palette, have no serious or critical violation.

axe-core is installed and run as `tests/e2e/axe.py` says.
"""

import time

import pytest

from tests.e2e import axe, chromium
from tests.e2e.chromium import ARTIFACTS
from tests.e2e.stack import LocalStack

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402

# What a reader must not meet: axe's two upper impacts.
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")


class ShowcasePage:
    """A bootstrapped page showing every colour the palette has: components in each status
    (one in a group), an open incident of each impact, a maintenance in progress and one to
    come, a resolved incident among the past ones, and a charted metric."""

    def __init__(self, stack: LocalStack):
        self.stack = stack
        created = stack.admin("bootstrap")
        self.key, self.page_id = created["api_key"], created["page_id"]
        statuses = (
            "operational",
            "degraded_performance",
            "partial_outage",
            "major_outage",
            "under_maintenance",
        )
        made = {status: self.create_component(status) for status in statuses}
        self.create(
            "component-groups",
            "component_group",
            {"name": "Core", "components": [made["operational"]["id"]]},
        )
        self.incidents = {
            impact: self.create(
                "incidents",
                "incident",
                {
                    "name": f"A {impact} incident",
                    "body": "We are looking into it.",
                    "impact_override": impact,
                },
            )
            for impact in ("minor", "major", "critical")
        }
        resolved = self.create(
            "incidents",
            "incident",
            {"name": "A resolved incident", "status": "resolved", "body": "It is fixed."},
        )
        self.incidents["resolved"] = resolved
        self.create(
            "incidents",
            "incident",
            {
                "name": "A maintenance to come",
                "status": "scheduled",
                "scheduled_for": "2099-01-01T02:00:00Z",
                "scheduled_until": "2099-01-01T04:00:00Z",
                "body": "The database moves to new hardware.",
            },
        )
        self.chart_a_metric()

    def create(self, resource: str, wrapper: str, fields: dict) -> dict:
        answer = self.stack.send(
            "POST", f"/v1/pages/{self.page_id}/{resource}", self.key, {wrapper: fields}
        )
        assert answer.status_code == 201, answer.text
        return answer.json()

    def create_component(self, status: str) -> dict:
        name = status.replace("_", " ").capitalize()
        fields = {"name": name, "status": status, "showcase": True}
        return self.create("components", "component", fields)

    def chart_a_metric(self) -> None:
        providers = self.stack.get(f"/v1/pages/{self.page_id}/metrics_providers", self.key)
        (own,) = [provider for provider in providers.json() if provider["type"] == "Self"]
        metric = self.create(
            f"metrics_providers/{own['id']}/metrics",
            "metric",
            {"name": "API latency", "display": True, "suffix": " ms", "decimal_places": 0},
        )
        now = int(time.time())
        for offset, value in ((2 * 3600, 120), (4 * 3600, 80)):
            answer = self.stack.send(
                "POST",
                f"/v1/pages/{self.page_id}/metrics/{metric['id']}/data",
                self.key,
                {"data": {"timestamp": now - offset, "value": value}},
            )
            assert answer.status_code == 201, answer.text

    def url(self, suffix: str = "") -> str:
        return f"{self.stack.url}/s/{self.page_id}{suffix}"


@pytest.fixture(scope="module")
def showcase(stack, browser) -> ShowcasePage:
    page = ShowcasePage(stack)

    def published() -> bool:  # the last writes' publish: the maintenance, the chart's points
        points = browser.find_elements(By.CSS_SELECTOR, "circle.metric-point")
        return "A maintenance to come" in browser.page_source and len(points) == 2

    assert chromium.shows_soon(browser, page.url(), published)  # a publish, on a loaded machine
    return page


def blocking_violations(browser, axe_script: str, url: str, scheme: str) -> list[str]:
    """What axe finds serious or critical on `url` shown in `scheme`, a line each."""
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )
    browser.get(url)
    dark = browser.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
    assert dark == (scheme == "dark")
    return axe.violations(browser, axe_script, BLOCKING)


def page_paths(showcase: ShowcasePage) -> dict[str, str]:
    return {
        "home": "",
        "incident": f"/incidents/{showcase.incidents['minor']['id']}",
        "incident not found": "/incidents/nosuchincident01",
        "history": "/history",
        "subscribe": "/subscribe",
        "subscribe by text message": "/subscribe?via=sms",
        "subscribe by webhook": "/subscribe?via=webhook",
    }


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", ["home", "incident", "history", "subscribe"])
def test_the_public_pages_have_no_serious_axe_violation(
    showcase, browser, axe_script, name, scheme
):
    paths = page_paths(showcase)
    wanted = [key for key in paths if key == name or key.startswith(name + " ")]
    found = []
    for key in wanted:
        lines = blocking_violations(browser, axe_script, showcase.url(paths[key]), scheme)
        found += [f"{key}: {line}" for line in lines]
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / f"axe_{key.replace(' ', '_')}_{scheme}.png"))
    assert not found, "\n".join(found)


def test_the_selected_metric_period_reads_in_dark_mode(showcase, browser):
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"media": "", "features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    browser.get(showcase.url())
    current = browser.find_element(By.CSS_SELECTOR, ".metric-periods [aria-current='page']")
    assert current.text == "Day"
    ratio = browser.execute_script(CONTRAST_OF_ELEMENT, current)
    assert ratio >= 4.5


# The WCAG contrast of an element's text colour against the page's background.
CONTRAST_OF_ELEMENT = """
const channel = v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
const luminance = css => {
  const [r, g, b] = css.match(/[\\d.]+/g).map(Number);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};
const text = luminance(getComputedStyle(arguments[0]).color);
const ground = luminance(getComputedStyle(document.body).backgroundColor);
const [high, low] = text > ground ? [text, ground] : [ground, text];
return (high + 0.05) / (low + 0.05);
"""


@pytest.fixture(scope="module")
def busy_page(stack, browser) -> ShowcasePage:
    """A page with more incidents today than its home page lists and its history's first page
    holds: the "More incidents" link and the history's pager show."""
    created = stack.admin("bootstrap")
    page = ShowcasePage.__new__(ShowcasePage)
    page.stack, page.key, page.page_id = stack, created["api_key"], created["page_id"]
    for number in range(BUSY_INCIDENTS):
        fields = {"name": f"Blip {number}", "status": "resolved", "body": "Gone."}
        page.create("incidents", "incident", fields)

    def published() -> bool:
        return f"Blip {BUSY_INCIDENTS - 1}" in browser.page_source

    assert chromium.shows_soon(browser, page.url(), published)
    return page


BUSY_INCIDENTS = 55


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_busy_days_links_and_the_history_pager_have_no_serious_axe_violation(
    busy_page, browser, axe_script, scheme
):
    """The home page lists a day's newest 10 and links to the rest; the history's first page
    holds 50 and links to the older ones (a page of the app): each reads, and leads on."""
    found = blocking_violations(browser, axe_script, busy_page.url(), scheme)
    more = browser.find_element(By.CSS_SELECTOR, ".more-incidents a")
    assert more.text.startswith("More incidents on")
    listed = browser.find_elements(By.PARTIAL_LINK_TEXT, "Blip ")
    assert len(listed) == 10
    found += blocking_violations(browser, axe_script, more.get_attribute("href"), scheme)
    assert f"Blip {BUSY_INCIDENTS - 11}" in browser.page_source  # the first not on the home page

    found += blocking_violations(browser, axe_script, busy_page.url("/history"), scheme)
    older = browser.find_element(By.ID, "history-more")
    assert older.text.startswith("Older incidents of")
    found += blocking_violations(browser, axe_script, older.get_attribute("href"), scheme)
    shown = {link.text for link in browser.find_elements(By.PARTIAL_LINK_TEXT, "Blip ")}
    assert shown == {f"Blip {number}" for number in range(BUSY_INCIDENTS - 50)}
    assert not found, "\n".join(found)
