"""The public page in a real headless Chromium, served by the real local stack over HTTP."""

import re
import time

import pytest

from tests.e2e import chromium
from tests.e2e.chromium import ARTIFACTS
from tests.e2e.stack import LocalStack, wait_for
from tests.sent_mail import Mail, sent_mail_over_http

pytestmark = pytest.mark.e2e

XSS = "<img src=x onerror=alert(1)>"

chromium.skip_without_chromium()
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


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

    # The page's files are published within moments of the writes: a reader may look again.
    def published() -> bool:  # the last write's publish: the maintenance shows
        banner = visible_text(browser, "#status-banner")
        return banner == "Major System Outage" and "Database upgrade" in browser.page_source

    assert chromium.shows_soon(browser, admin.public_url, published, timeout=15)
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

    def published() -> bool:
        return bool(browser.find_elements(By.CSS_SELECTOR, ".component .name"))

    assert chromium.shows_soon(browser, admin.public_url, published, timeout=15)

    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 (reading it is the check)
    names = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".component .name")]
    assert names == [XSS]
    assert browser.find_elements(By.CSS_SELECTOR, "img[src='x']") == []


def mails_to(stack: LocalStack, address: str) -> list[Mail]:
    """The emails the stack sent to `address`, read back from the emulator."""
    sent = sent_mail_over_http(f"http://127.0.0.1:{stack.moto_port}")
    return [mail for mail in sent if mail.to == [address]]


def wait_for_mails(stack: LocalStack, address: str, count: int) -> list[Mail]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = mails_to(stack, address)
        if len(found) >= count:
            return found
        time.sleep(0.3)
    raise AssertionError(f"{count} mails to {address} never came: {mails_to(stack, address)}")


def shown_after_navigation(browser, css: str) -> str:
    """The text of `css` once the page a click led to has it (a click does not wait)."""
    element = WebDriverWait(browser, 30, poll_frequency=0.05).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
    )
    return element.text


def link_in(text: str, purpose: str) -> str:
    return re.search(rf"https?://\S+/subscriptions/\S+/{purpose}", text).group(0)


def test_a_reader_subscribes_confirms_and_leaves_through_the_manage_link(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API"})
    admin.create("components", "component", {"name": "Database"})
    address = f"reader-{admin.page_id}@example.com"

    browser.get(admin.public_url)
    browser.find_element(By.ID, "subscribe-button").click()
    shown_after_navigation(browser, "#subscribe-form")
    assert browser.current_url.endswith(f"/s/{admin.page_id}/subscribe")
    browser.find_element(By.NAME, "subscriber[email]").send_keys(address)
    browser.find_element(By.CSS_SELECTOR, f"input[value='{api['id']}']").click()
    browser.find_element(By.CSS_SELECTOR, "#subscribe-form button[type=submit]").click()
    assert "Check your email" in shown_after_navigation(browser, "#notice")

    (confirmation,) = wait_for_mails(stack, address, 1)
    # The link's page asks for one click (a mail scanner's visit confirms nothing).
    browser.get(link_in(confirmation.body, "confirm"))
    assert "Confirm your subscription" in visible_text(browser, "#notice")
    browser.find_element(By.CSS_SELECTOR, "#notice-form button").click()
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        expected_conditions.text_to_be_present_in_element(
            (By.CSS_SELECTOR, "#notice"), "Subscription confirmed"
        )
    )
    browser.find_element(By.ID, "notice-link").click()
    assert address in shown_after_navigation(browser, "#subscription-address")
    assert browser.find_element(By.CSS_SELECTOR, f"input[value='{api['id']}']").is_selected()
    subscribers = stack.get(f"/v1/pages/{admin.page_id}/subscribers", admin.key).json()
    assert [(s["email"], s["components"]) for s in subscribers] == [(address, [api["id"]])]

    # Every notification carries the manage link; out through it.
    admin.create(
        "incidents", "incident", {"name": "API down", "components": {api["id"]: "major_outage"}}
    )
    notification = wait_for_mails(stack, address, 2)[-1]
    assert "API down" in notification.subject
    browser.get(link_in(notification.body, "manage"))
    browser.find_element(By.ID, "unsubscribe").click()
    assert "Unsubscribed" in shown_after_navigation(browser, "#notice")
    assert stack.get(f"/v1/pages/{admin.page_id}/subscribers", admin.key).json() == []


def test_a_notification_email_reads_well_in_a_browser(stack, browser):
    admin = PageAdmin(stack)
    answer = stack.send(
        "PATCH",
        f"/v1/pages/{admin.page_id}",
        admin.key,
        {
            "page": {
                "name": "Acme Cloud",
                "time_zone": "Europe/Berlin",
                "css_link_color": "#0b5fff",
                "notifications_email_footer": "Acme Cloud GmbH, Hauptstr. 1, Berlin\n"
                "Questions? Write to support@acme.example",
            }
        },
    )
    assert answer.status_code == 200, answer.text
    api = admin.create("components", "component", {"name": "API"})
    dashboard = admin.create("components", "component", {"name": "Dashboard"})
    address = f"email-{admin.page_id}@example.com"
    admin.create(
        "subscribers", "subscriber", {"email": address, "skip_confirmation_notification": True}
    )
    incident = admin.create(
        "incidents",
        "incident",
        {
            "name": "Elevated API error rates " + XSS,
            "body": "Some requests to the API fail with **503** errors. We have found the cause "
            "and are rolling out a fix.\n\n- Retries succeed\n- The dashboard loads slowly\n\n"
            + XSS,
            "status": "identified",
            "components": {api["id"]: "partial_outage", dashboard["id"]: "degraded_performance"},
        },
    )
    (mail,) = wait_for_mails(stack, address, 1)
    ARTIFACTS.mkdir(exist_ok=True)
    page = ARTIFACTS / "notification_email.html"
    page.write_text(mail.html)

    browser.set_window_size(800, 1200)
    browser.get(page.as_uri())
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert  # noqa: B018 (reading it is the check)
    # The body's Markdown is sanitized (an image may stay, its handler may not).
    assert browser.find_elements(By.CSS_SELECTOR, "[onerror]") == []
    assert visible_text(browser, "#title") == "Elevated API error rates " + XSS
    assert visible_text(browser, "#status") == "Identified"
    assert visible_text(browser, "#masthead") == "Acme Cloud"
    components = visible_text(browser, "#components")
    assert "API\nPartial Outage" in components or "API Partial Outage" in components
    assert "Degraded Performance" in components
    assert re.search(r"Posted \w{3} \d+, \d{4} - \d\d:\d\d CES?T", visible_text(browser, "#when"))
    assert "Acme Cloud GmbH" in visible_text(browser, "#footer")
    unsubscribe = browser.find_element(By.ID, "unsubscribe").get_attribute("href")
    assert f"<{unsubscribe}>" in mail.header("List-Unsubscribe")
    assert (
        browser.find_element(By.ID, "button")
        .get_attribute("href")
        .endswith("/incidents/" + incident["id"])
    )
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(800, max(600, min(height + 40, 3000)))
    browser.save_screenshot(str(ARTIFACTS / "notification_email.png"))

    browser.set_window_size(390, 1400)  # a phone
    browser.get(page.as_uri())
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390  # nothing sideways to scroll
    browser.save_screenshot(str(ARTIFACTS / "notification_email_phone.png"))
    browser.set_window_size(1280, 2400)


# An audience-specific page: two viewers granted different components each see exactly
# theirs after signing in by the link emailed to them; an anonymous reader signs in first.


def component_names(browser) -> set[str]:
    return {element.text for element in browser.find_elements(By.CSS_SELECTOR, ".component .name")}


def sign_in_as(stack, browser, admin: PageAdmin, address: str) -> None:
    browser.delete_all_cookies()
    browser.get(admin.public_url)
    shown_after_navigation(browser, "#sign-in")
    browser.find_element(By.NAME, "email").send_keys(address)
    browser.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    assert "Check your email" in shown_after_navigation(browser, "#notice")
    (mail,) = wait_for_mails(stack, address, 1)
    browser.get(re.search(r"https?://\S+/sign-in/\S+", mail.body).group(0))
    browser.find_element(By.CSS_SELECTOR, "#notice-form button").click()  # the link's one button
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        lambda browser: "/sign-in/" not in browser.current_url
    )


def test_two_viewers_each_see_their_components_and_strangers_sign_in(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API"})
    database = admin.create("components", "component", {"name": "Database"})
    admin.create("components", "component", {"name": "Website"})
    admin.create(
        "incidents",
        "incident",
        {"name": "Database down", "components": {database["id"]: "major_outage"}},
    )
    alice, bob = f"alice-{admin.page_id}@example.com", f"bob-{admin.page_id}@example.com"
    admin.create("page_access_users", "page_access_user", {"email": alice})
    group = admin.create(
        "page_access_groups",
        "page_access_group",
        {"name": "Ops", "component_ids": [database["id"]]},
    )
    users = stack.get(f"/v1/pages/{admin.page_id}/page_access_users", admin.key).json()
    answer = stack.send(
        "POST",
        f"/v1/pages/{admin.page_id}/page_access_users/{users[0]['id']}/components",
        admin.key,
        {"component_ids": [api["id"]]},
    )
    assert answer.status_code == 201, answer.text
    admin.create(
        "page_access_users",
        "page_access_user",
        {"email": bob, "page_access_group_ids": [group["id"]]},
    )
    changed = stack.send(
        "PATCH", f"/v1/pages/{admin.page_id}", admin.key, {"page": {"audience_specific": True}}
    )
    assert changed.status_code == 200, changed.text

    # A stranger: the sign-in form, nothing of the status.
    browser.delete_all_cookies()
    browser.get(admin.public_url)
    assert "Sign in" in shown_after_navigation(browser, "#sign-in")
    assert component_names(browser) == set()
    assert "Database down" not in browser.page_source

    sign_in_as(stack, browser, admin, alice)
    assert shown_after_navigation(browser, "#status-banner") == "All Systems Operational"
    assert component_names(browser) == {"API"}
    assert "Database down" not in browser.page_source

    sign_in_as(stack, browser, admin, bob)
    assert shown_after_navigation(browser, "#status-banner") == "Major System Outage"
    assert component_names(browser) == {"Database"}
    assert "Database down" in browser.page_source

    browser.delete_all_cookies()
    browser.get(admin.public_url)
    shown_after_navigation(browser, "#sign-in")


def test_a_displayed_metric_is_charted_and_its_periods_switch_without_javascript(stack, browser):
    admin = PageAdmin(stack)
    providers = stack.get(f"/v1/pages/{admin.page_id}/metrics_providers", admin.key).json()
    (own,) = [provider for provider in providers if provider["type"] == "Self"]
    metric = admin.create(
        f"metrics_providers/{own['id']}/metrics",
        "metric",
        {"name": "API latency", "display": True, "suffix": " ms", "decimal_places": 0},
    )
    now = int(time.time())
    # Three points today, one three days ago: the day shows three columns, the week four.
    for offset, value in ((2 * 3600, 120), (4 * 3600, 80), (6 * 3600, 100), (3 * 86400, 300)):
        answer = stack.send(
            "POST",
            f"/v1/pages/{admin.page_id}/metrics/{metric['id']}/data",
            admin.key,
            {"data": {"timestamp": now - offset, "value": value}},
        )
        assert answer.status_code == 201, answer.text

    # The points are written by the queue's function, which publishes the page anew.
    def charted() -> bool:
        return len(browser.find_elements(By.CSS_SELECTOR, ".metric-data tbody tr")) == 3

    assert chromium.shows_soon(browser, admin.public_url, charted)  # a publish, loaded machine

    chart = browser.find_element(By.CSS_SELECTOR, f"[data-metric-id='{metric['id']}']")
    assert chart.find_element(By.CSS_SELECTOR, "h3").text == "API latency"
    assert chart.find_element(By.CSS_SELECTOR, "svg.metric-chart").is_displayed()
    # A line through the three points (each a dot), and the table of their values, which
    # test_public_page_widgets.py reads on hover and focus.
    assert len(chart.find_elements(By.CSS_SELECTOR, "circle.metric-point")) == 3
    assert chart.find_element(By.CSS_SELECTOR, "path.metric-line").get_attribute("d")
    values = [
        cell.get_attribute("textContent")
        for cell in chart.find_elements(By.CSS_SELECTOR, ".metric-data tbody td:last-child")
    ]
    assert values == ["100 ms", "80 ms", "120 ms"]
    assert chart.find_element(By.CSS_SELECTOR, ".metric-average").text == "Average 100 ms"
    current = browser.find_element(By.CSS_SELECTOR, ".metric-periods [aria-current='page']")
    assert current.text == "Day"
    ARTIFACTS.mkdir(exist_ok=True)
    browser.find_element(By.ID, "metrics").screenshot(str(ARTIFACTS / "metric_chart_day.png"))

    # The period links are plain links: following one loads the longer window, no script.
    browser.find_element(By.LINK_TEXT, "Week").click()
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        expected_conditions.url_contains("metric_period=week")
    )

    # The day's three may have been published before the point of three days ago: the
    # week's file shows it within a publish's delay.
    def week_charted() -> bool:
        rows = browser.find_elements(By.CSS_SELECTOR, ".metric-data tbody tr")
        if len(rows) != 4:
            browser.refresh()
        return len(rows) == 4

    assert wait_for(week_charted, timeout=30)  # the last point may come with a later publish
    current = browser.find_element(By.CSS_SELECTOR, ".metric-periods [aria-current='page']")
    assert current.text == "Week"
    browser.find_element(By.ID, "metrics").screenshot(str(ARTIFACTS / "metric_chart_week.png"))
    browser.find_element(By.LINK_TEXT, "Month").click()
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        expected_conditions.url_contains("metric_period=month")
    )
    current = browser.find_element(By.CSS_SELECTOR, ".metric-periods [aria-current='page']")
    assert current.text == "Month"
