"""Driving the console in a real headless Chromium as a person does: sign in, click, wait for
the next screen, look at it at desktop and phone widths, and read the public page after."""

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.e2e.chromium import ARTIFACTS
from tests.e2e.stack import wait_for


def screenshot(browser, name: str) -> None:
    """The screen at desktop width (whole height) and at a phone's, which must not scroll
    sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    browser.execute_script("window.scrollTo(0, 0)")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, max(800, min(height + 120, 5000)))
    browser.save_screenshot(str(ARTIFACTS / f"console_{name}.png"))
    browser.set_window_size(390, 844)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(390, max(844, min(height + 120, 6000)))
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
    browser.save_screenshot(str(ARTIFACTS / f"console_{name}_phone.png"))
    browser.set_window_size(1280, 1000)


def submit(browser, button) -> None:
    """Click a form's button (or a link) and wait for the page it leads to."""
    old = browser.find_element(By.TAG_NAME, "html")
    button.click()
    WebDriverWait(browser, 15).until(lambda _: left_behind(old))


def left_behind(element) -> bool:
    """Whether `element`'s document is gone. Asked while the next page replaces it, Chromium
    may answer that the node is no longer in the document instead of that it is stale."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise
    return False


def sign_in(browser, stack, email: str, password: str) -> None:
    browser.get(f"{stack.url}/manage")
    assert "/manage/sign-in" in browser.current_url
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(password)
    submit(browser, browser.find_element(By.CSS_SELECTOR, "main button[type=submit]"))


def sign_in_owner(browser, stack, first_start: dict) -> None:
    """The owner signs in: the first time with the one-time password `make run` printed,
    choosing their own at once (the console asks before anything else); with that after."""
    sign_in(browser, stack, "owner@example.com", first_start["password"])
    if browser.current_url.endswith("/manage/password"):
        assert "handed to you once" in browser.find_element(By.TAG_NAME, "main").text
        screenshot(browser, "password")
        first_start["password"] = "the owner's own password"
        for field in ("new-password", "confirmation"):
            browser.find_element(By.ID, field).send_keys(first_start["password"])
        submit(browser, browser.find_element(By.XPATH, "//button[text()='Save the password']"))


def public_text_once(browser, stack, page_id: str, check, path: str = "") -> str:
    """The public page's text as soon as `check` holds for it. A view during a rebuild that
    outlasts its wait (a busy machine) is shown the page a rebuild behind: look again."""
    seen = [""]

    def shows() -> bool:
        seen[0] = public_text(browser, stack, page_id, path)
        return check(seen[0])

    assert wait_for(shows, timeout=15), seen[0]
    return seen[0]


def public_text(browser, stack, page_id: str, path: str = "") -> str:
    browser.get(f"{stack.url}/s/{page_id}{path}")
    browser.refresh()  # the public page may be cached a minute: ask again, as a reader would
    return browser.find_element(By.TAG_NAME, "body").text
