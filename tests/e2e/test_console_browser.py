"""The management console in a real headless Chromium, served by the real local stack: the
owner signs in with the one-time password `make run` printed, runs an incident from open to
resolved, and each step shows on the public page and reaches a webhook subscriber; a user
with only `maintenance_manager` schedules a maintenance but may not open an incident."""

import pytest

from tests.e2e import chromium
from tests.e2e.stack import wait_for
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402

from tests.e2e.console_driver import (  # noqa: E402
    first_start_of,
    public_text,
    public_text_once,
    screenshot,
    sign_in,
    sign_in_owner,
    submit,
)


@pytest.fixture(scope="module")
def first_start(stack) -> dict:
    """What the first start printed: the owner's key, page and one-time console password."""
    return first_start_of(stack)


@pytest.fixture(scope="module")
def module_browser(tmp_path_factory):
    driver = chromium.start(tmp_path_factory.mktemp("profile"), "1280,1000")
    yield driver
    driver.quit()


@pytest.fixture
def browser(module_browser, stack):
    """The module's Chromium, left as a new one after each test: no cookie (so no session), no
    stored data and no cached page of the test before (a start of its own cost ~1.5 s)."""
    yield module_browser
    module_browser.get("about:blank")
    module_browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    module_browser.execute_cdp_cmd("Network.clearBrowserCache", {})
    module_browser.execute_cdp_cmd(
        "Storage.clearDataForOrigin", {"origin": stack.url, "storageTypes": "all"}
    )


def test_an_incident_run_from_the_console(stack, first_start, browser):
    key, page_id = first_start["api_key"], first_start["page_id"]
    made = {}
    for name in ("API", "Database", "Website"):
        answer = stack.send(
            "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": name}}
        )
        assert answer.status_code == 201, answer.text
        made[name] = answer.json()["id"]
    with WebhookSink() as sink:
        answer = stack.send(
            "POST",
            f"/v1/pages/{page_id}/subscribers",
            key,
            {"subscriber": {"endpoint": sink.url, "email": "ops@example.com"}},
        )
        assert answer.status_code == 201, answer.text

        browser.get(f"{stack.url}/manage/sign-in")
        screenshot(browser, "sign_in")
        sign_in_owner(browser, stack, first_start)
        assert browser.current_url.endswith(f"/manage/pages/{page_id}")
        screenshot(browser, "page")

        submit(browser, browser.find_element(By.LINK_TEXT, "Open an incident"))
        browser.find_element(By.ID, "name").send_keys("Checkout <b>errors</b>")
        browser.find_element(By.ID, "body").send_keys("Payments fail for some customers.")
        Select(browser.find_element(By.ID, f"component-{made['API']}")).select_by_visible_text(
            "Major Outage"
        )
        Select(browser.find_element(By.ID, f"component-{made['Database']}")).select_by_visible_text(
            "Degraded Performance"
        )
        screenshot(browser, "incident_new")
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Open the incident']"))
        incident_url = browser.current_url
        incident_id = incident_url.rsplit("/", 1)[-1]
        assert "Checkout <b>errors</b>" in browser.find_element(By.TAG_NAME, "h1").text

        shown = public_text_once(
            browser, stack, page_id, lambda shown: "Checkout <b>errors</b>" in shown
        )
        assert "Payments fail" in shown
        assert "Major Outage" in shown and "Degraded Performance" in shown

        browser.get(incident_url)
        browser.find_element(By.CSS_SELECTOR, "input[value=identified]").click()
        browser.find_element(By.ID, "update-body").send_keys("A bad deploy; rolling back.")
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Post the update']"))
        assert (
            "A bad deploy; rolling back."
            in browser.find_element(By.ID, "timeline").find_element(By.XPATH, "..").text
        )
        screenshot(browser, "incident")
        public_text_once(
            browser,
            stack,
            page_id,
            lambda shown: "Identified" in shown,
            f"/incidents/{incident_id}",
        )

        browser.get(incident_url)
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Resolve the incident']"))
        assert (
            "Resolved" in browser.find_element(By.ID, "timeline").find_element(By.XPATH, "..").text
        )
        public_text_once(browser, stack, page_id, lambda shown: "Major Outage" not in shown)
        detail = public_text(browser, stack, page_id, f"/incidents/{incident_id}")
        for text in ("Resolved", "A bad deploy; rolling back.", "Payments fail"):
            assert text in detail

        browser.get(incident_url)
        submit(browser, browser.find_element(By.LINK_TEXT, "Write the postmortem"))
        browser.find_element(By.ID, "body_draft").send_keys("## Cause\n\nA *bad* deploy.")
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Preview']"))
        preview = browser.find_element(By.ID, "preview").find_element(By.XPATH, "..")
        assert preview.find_element(By.TAG_NAME, "em").text == "bad"
        screenshot(browser, "postmortem")
        browser.get(f"{stack.url}/manage/pages/{page_id}/subscribers")
        assert sink.url in browser.find_element(By.ID, "list").find_element(By.XPATH, "..").text
        screenshot(browser, "subscribers")
        browser.get(f"{stack.url}/manage/pages/{page_id}/team")
        assert "owner@example.com" in browser.find_element(By.TAG_NAME, "main").text
        screenshot(browser, "team")

        def incident_statuses() -> list[str]:
            return [
                delivery["json"]["incident"]["status"]
                for delivery in sink.received
                if "incident" in delivery["json"]
            ]

        assert wait_for(lambda: len(incident_statuses()) == 3, timeout=20), sink.received
        assert sorted(incident_statuses()) == ["identified", "investigating", "resolved"]
        names = {d["json"]["incident"]["name"] for d in sink.received if "incident" in d["json"]}
        assert names == {"Checkout <b>errors</b>"}
        changed = {
            d["json"]["component"]["name"] for d in sink.received if "component_update" in d["json"]
        }
        assert changed == {"API", "Database"}


def test_a_maintenance_manager_schedules_but_opens_no_incident(stack, first_start, browser):
    key, page_id = first_start["api_key"], first_start["page_id"]
    user = stack.admin(
        "create-user",
        "--organization",
        first_start["organization_id"],
        "--email",
        "maintainer@example.com",
        "--password",
        "maintenance only",
    )
    answer = stack.send(
        "PUT",
        f"/v1/organizations/{first_start['organization_id']}/permissions/{user['user_id']}",
        key,
        {"pages": {page_id: {"maintenance_manager": True}}},
    )
    assert answer.status_code == 200, answer.text

    sign_in(browser, stack, "maintainer@example.com", "maintenance only")
    assert browser.current_url.endswith(f"/manage/pages/{page_id}")
    assert not browser.find_elements(By.LINK_TEXT, "Open an incident")
    submit(browser, browser.find_element(By.LINK_TEXT, "Schedule a maintenance"))
    browser.find_element(By.ID, "name").send_keys("Database upgrade")
    for field, value in (
        ("scheduled_for", "2099-01-01T02:00"),
        ("scheduled_until", "2099-01-01T04:00"),
    ):
        # A date-time input takes what its locale shows; set its value as a browser would send it.
        browser.execute_script(
            "arguments[0].value = arguments[1]", browser.find_element(By.ID, field), value
        )
    browser.find_element(By.ID, "body").send_keys("About two hours of read-only mode.")
    browser.find_element(By.XPATH, "//label[contains(., 'Database')]/input").click()
    browser.find_element(By.XPATH, "//label[contains(., 'Remind subscribers')]/input").click()
    screenshot(browser, "maintenance_new")
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Schedule the maintenance']"))
    assert "Database upgrade" in browser.find_element(By.TAG_NAME, "h1").text
    maintenance_id = browser.current_url.rsplit("/", 1)[-1]
    shown = stack.get(f"/v1/pages/{page_id}/incidents/{maintenance_id}", key).json()
    assert shown["scheduled_remind_prior"] is True
    assert shown["scheduled_auto_in_progress"] and shown["scheduled_auto_completed"]
    assert [c["name"] for c in shown["components"]] == ["Database"]
    assert "Database upgrade" in public_text_once(
        browser, stack, page_id, lambda text: "Database upgrade" in text
    )

    browser.get(f"{stack.url}/manage/pages/{page_id}/incidents/new")
    assert "You may not do this" in browser.find_element(By.TAG_NAME, "h1").text
    screenshot(browser, "forbidden")


def test_settings_preview_live_and_components_reordered(stack, first_start, browser):
    """With JavaScript on, the settings preview follows the typing (nothing saved until
    "Save settings"); the Markdown of a new incident previews as it is typed; a status chosen
    on the overview is saved at once; components move up and down with their buttons."""
    key, page_id = first_start["api_key"], first_start["page_id"]
    for name in ("Search", "Billing"):
        answer = stack.send(
            "POST", f"/v1/pages/{page_id}/components", key, {"component": {"name": name}}
        )
        assert answer.status_code == 201, answer.text
    sign_in_owner(browser, stack, first_start)
    submit(browser, browser.find_element(By.LINK_TEXT, "Settings and branding"))

    def preview_text() -> str:
        try:
            browser.switch_to.frame(browser.find_element(By.ID, "preview-frame"))
            return browser.find_element(By.TAG_NAME, "body").text
        except (StaleElementReferenceException, NoSuchElementException):
            return ""  # the frame is loading the next preview: look again
        finally:
            browser.switch_to.default_content()

    name = browser.find_element(By.ID, "page-name")
    saved_name = name.get_attribute("value")
    assert wait_for(lambda: saved_name in preview_text(), timeout=10)
    name.clear()
    name.send_keys("Live <Preview> Co")
    browser.find_element(By.ID, "page-headline").send_keys("Typed, not saved")
    assert wait_for(lambda: "Typed, not saved" in preview_text(), timeout=10), preview_text()
    assert "Live <Preview> Co" in preview_text()
    screenshot(browser, "settings")
    assert stack.get(f"/v1/pages/{page_id}", key).json()["name"] == saved_name
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Save settings']"))
    assert "Settings saved" in browser.find_element(By.TAG_NAME, "main").text
    public_text_once(browser, stack, page_id, lambda shown: "Typed, not saved" in shown)

    browser.get(f"{stack.url}/manage/pages/{page_id}/incidents/new")
    browser.find_element(By.ID, "body").send_keys("Checkout is **slow**")
    assert wait_for(
        lambda: browser.find_elements(By.CSS_SELECTOR, "#body-preview strong"), timeout=10
    )
    assert browser.find_element(By.CSS_SELECTOR, "#body-preview strong").text == "slow"

    def order() -> list[str]:
        listed = stack.get(f"/v1/pages/{page_id}/components", key).json()
        return [component["name"] for component in listed]

    # The overview's statuses save as soon as one is chosen, without leaving the page.
    browser.get(f"{stack.url}/manage/pages/{page_id}")
    browser.execute_script("window.stayedOnPage = true")
    search_id = order_id(stack, key, page_id, "Search")
    Select(browser.find_element(By.ID, f"status-{search_id}")).select_by_value("major_outage")
    assert wait_for(
        lambda: "1 component status changed" in browser.find_element(By.TAG_NAME, "main").text,
        timeout=10,
    )
    assert browser.execute_script("return window.stayedOnPage === true")
    statuses = {
        c["id"]: c["status"] for c in stack.get(f"/v1/pages/{page_id}/components", key).json()
    }
    assert statuses[search_id] == "major_outage"
    selected = Select(browser.find_element(By.ID, f"status-{search_id}"))
    assert selected.first_selected_option.get_attribute("value") == "major_outage"

    browser.get(f"{stack.url}/manage/pages/{page_id}/components")
    before = order()
    assert before[-2:] == ["Search", "Billing"]
    submit(browser, browser.find_element(By.XPATH, "//button[.='Move up Billing']"))
    assert order() == before[:-2] + ["Billing", "Search"]
    assert browser.current_url.endswith("#entry-" + order_id(stack, key, page_id, "Billing"))
    submit(browser, browser.find_element(By.XPATH, "//button[.='Move down Billing']"))
    assert order() == before
    browser.find_element(By.ID, "group-name").send_keys("Payments")
    browser.find_element(By.XPATH, "//fieldset//label[contains(., 'Billing')]/input").click()
    submit(browser, browser.find_element(By.XPATH, "//button[text()='Add the group']"))
    group = browser.find_element(By.ID, "entry-" + order_id(stack, key, page_id, "Payments"))
    assert "Billing" in group.find_element(By.TAG_NAME, "ol").text
    screenshot(browser, "components")
    submit(browser, browser.find_element(By.LINK_TEXT, "Billing"))
    screenshot(browser, "component")
    browser.get(f"{stack.url}/manage/pages/{page_id}/team")
    screenshot(browser, "team_add_user")


def order_id(stack, key: str, page_id: str, name: str) -> str:
    listed = stack.get(f"/v1/pages/{page_id}/components", key).json()
    return next(component["id"] for component in listed if component["name"] == name)
