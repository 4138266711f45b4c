"""The public page in a real headless Chromium, served by the real local stack over HTTP."""

import os
from pathlib import Path

import pytest

from tests.e2e.stack import LocalStack

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).parent / "artifacts"
XSS = "<img src=x onerror=alert(1)>"

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed (`make test` installs them)",
        allow_module_level=True,
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in requirements-dev.txt")
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = LocalStack(tmp_path_factory.mktemp("data")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,2400",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class PageAdmin:
    """One bootstrapped page of the stack, changed through the API as its owner."""

    def __init__(self, stack: LocalStack):
        self.stack = stack
        created = stack.admin("bootstrap")
        self.key, self.page_id = created["api_key"], created["page_id"]

    def create(self, resource: str, wrapper: str, fields: dict) -> dict:
        answer = self.stack.send(
            "POST", f"/v1/pages/{self.page_id}/{resource}", self.key, {wrapper: fields}
        )
        assert answer.status_code == 201, answer.text
        return answer.json()

    @property
    def public_url(self) -> str:
        return f"{self.stack.url}/s/{self.page_id}"


def visible_text(browser, css: str) -> str:
    return browser.find_element(By.CSS_SELECTOR, css).text


def test_visitor_sees_status_components_incident_and_maintenance(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API"})
    database = admin.create("components", "component", {"name": "Database"})
    admin.create("components", "component", {"name": "Website"})
    admin.create(
        "component-groups",
        "component_group",
        {"name": "Core", "components": [api["id"], database["id"]]},
    )
    admin.create(
        "incidents",
        "incident",
        {
            "name": "API unavailable",
            "body": "Requests to the API are failing; we are investigating.",
            "components": {api["id"]: "major_outage"},
        },
    )
    admin.create(
        "incidents",
        "incident",
        {
            "name": "Database upgrade",
            "status": "scheduled",
            "scheduled_for": "2099-01-01T02:00:00Z",
            "scheduled_until": "2099-01-01T04:00:00Z",
            "body": "The database moves to new hardware.",
        },
    )

    browser.get(admin.public_url)

    # The first view after the writes rebuilds the page snapshot.
    assert visible_text(browser, "#status-banner") == "Major System Outage"
    components = visible_text(browser, "#components")
    for line in ("Core", "API", "Database", "Website", "Major Outage", "Operational"):
        assert line in components
    rows = {
        row.find_element(By.CSS_SELECTOR, ".name").text: row.find_element(
            By.CSS_SELECTOR, ".status"
        ).text
        for row in browser.find_elements(By.CSS_SELECTOR, ".component")
    }
    assert rows == {"API": "Major Outage", "Database": "Operational", "Website": "Operational"}
    incidents = visible_text(browser, "#open-incidents")
    assert "API unavailable" in incidents
    assert "Requests to the API are failing; we are investigating." in incidents
    assert "This incident affects: API" in incidents
    maintenance = visible_text(browser, "#upcoming-maintenances")
    assert "Database upgrade" in maintenance
    assert "Jan 1, 2099 - 02:00 UTC" in maintenance
    assert browser.find_elements(By.CSS_SELECTOR, ".bar")  # the uptime bars are drawn
    ARTIFACTS.mkdir(exist_ok=True)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, max(900, min(height, 6000)))
    browser.save_screenshot(str(ARTIFACTS / "public_page.png"))

    browser.set_window_size(390, 1600)  # a phone
    browser.get(admin.public_url)
    assert visible_text(browser, "#status-banner") == "Major System Outage"
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390  # nothing sideways to scroll
    browser.save_screenshot(str(ARTIFACTS / "public_page_phone.png"))
    browser.set_window_size(1280, 2400)


def test_a_component_named_like_markup_renders_as_text(stack, browser):
    admin = PageAdmin(stack)
    admin.create("components", "component", {"name": XSS})

    browser.get(admin.public_url)

    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 (reading it is the check)
    names = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".component .name")]
    assert names == [XSS]
    assert browser.find_elements(By.CSS_SELECTOR, "img[src='x']") == []
