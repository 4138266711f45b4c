"""An audience-specific page in a real headless Chromium, on the real local stack: two
viewers granted different components each see exactly theirs after signing in by the link
emailed to them (read back from the emulator); an anonymous reader sees the sign-in page."""

import re

import pytest

from tests.e2e.test_public_page_browser import (  # noqa: F401 (fixtures)
    PageAdmin,
    browser,
    shown_after_navigation,
    stack,
    wait_for_mails,
)

pytestmark = pytest.mark.e2e

from selenium.webdriver.common.by import By  # noqa: E402


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
    browser.get(re.search(r"https?://\S+/sign-in/\S+", mail["body"]).group(0))


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
