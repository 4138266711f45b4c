"""Driving the console in a real headless Chromium as a person does: sign in, click, wait for
the next screen, look at it at desktop and phone widths, and read the public page after."""

import os
import re
import struct
import zlib

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.e2e import axe
from tests.e2e.chromium import ARTIFACTS
from tests.e2e.stack import wait_for


def first_start_of(stack) -> dict:
    """What the stack's first start printed: the owner's key, page and one-time password."""
    printed = "".join(stack.output)
    found = {
        name: re.search(rf'"{name}": "([^"]+)"', printed).group(1)
        for name in ("organization_id", "user_id", "api_key", "page_id")
    }
    found["password"] = re.search(r"one-time password (\S+)", printed).group(1)
    assert f"{stack.url}/manage" in printed
    return found


# Whether a page looks any different in dark mode: a style rule for it, or a `color-scheme`
# that lets the browser darken its controls.
HAS_DARK_MODE = """
const rules = sheet => { try { return [...sheet.cssRules]; } catch (e) { return []; } };
return !!document.querySelector('meta[name=color-scheme]') || [...document.styleSheets].some(
  sheet => rules(sheet).some(rule => (rule.media && rule.media.mediaText || '')
    .includes('prefers-color-scheme: dark')));
"""


def look(browser, axe_script: str, name: str, prefix: str = "console") -> None:
    """A screen is held to axe (no violation of any impact) in light and, if it has a dark
    mode, in dark (a screen without one is drawn alike, and axe's pass costs half a second),
    and fits both widths."""
    dark = browser.execute_script(HAS_DARK_MODE)
    for scheme in ("dark", "light") if dark else ("light",):  # left in light, as it started
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]},
        )
        found = axe.violations(browser, axe_script)
        assert not found, f"{name} in {scheme} ({browser.current_url}):\n" + "\n".join(found)
    screenshot(browser, name, prefix)


# Screenshots of every screen are for a person to look at (`SCREENSHOTS=1 make test`); the
# width check runs either way.
SCREENSHOTS = os.environ.get("SCREENSHOTS") == "1"


def screenshot(browser, name: str, prefix: str = "console") -> None:
    """The screen at a phone's width must not scroll sideways; with `SCREENSHOTS=1`, it is
    saved at desktop width (whole height) and at the phone's: `{prefix}_{name}.png` and
    `{prefix}_{name}_phone.png`."""
    if SCREENSHOTS:
        ARTIFACTS.mkdir(exist_ok=True)
        browser.execute_script("window.scrollTo(0, 0)")
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1280, max(800, min(height + 120, 5000)))
        browser.save_screenshot(str(ARTIFACTS / f"{prefix}_{name}.png"))
        browser.set_window_size(390, 844)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(390, max(844, min(height + 120, 6000)))
        browser.save_screenshot(str(ARTIFACTS / f"{prefix}_{name}_phone.png"))
        browser.set_window_size(1280, 1000)
    wide = width_at(browser, 390)
    assert wide <= 390, f"{name} scrolls sideways at 390 px ({wide} px wide)"


def width_at(browser, width: int) -> int:
    """How wide the page lays out in a viewport `width` px wide (a phone's, 844 px tall):
    the viewport is set as the DevTools' device toolbar sets it, which lays the page out
    again as a window of that size would, at a third less of the browser's time."""
    metrics = {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        return browser.execute_script("return document.documentElement.scrollWidth")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def submit(browser, button) -> None:
    """Click a form's button (or a link) and wait for the page it leads to."""
    old = browser.find_element(By.TAG_NAME, "html")
    button.click()
    # Looked at every 50 ms: selenium's default 0.5 s was most of a screen's wait.
    WebDriverWait(browser, 15, poll_frequency=0.05).until(lambda _: left_behind(old))


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


def sign_in_owner(browser, stack, first_start: dict, seen=None) -> None:
    """The owner signs in: the first time with the one-time password `make run` printed,
    choosing their own at once (the console asks before anything else); with that after.
    `seen(name)` is called on each screen shown (by default, a screenshot)."""
    sign_in(browser, stack, "owner@example.com", first_start["password"])
    if browser.current_url.endswith("/manage/password"):
        first_start["password"] = "the owner's own password"
        choose_password(browser, first_start["password"], seen)


def choose_password(browser, password: str, seen=None) -> None:
    """On the screen a one-time password leads to, choose one's own."""
    assert "handed to you once" in browser.find_element(By.TAG_NAME, "main").text
    (seen or (lambda name: screenshot(browser, name)))("password")
    for field in ("new-password", "confirmation"):
        browser.find_element(By.ID, field).send_keys(password)
    submit(browser, button(browser, "Save the password"))


def button(browser, text: str):
    """The button (or link styled as one) whose text is `text`."""
    return browser.find_element(
        By.XPATH, f"//*[self::button or self::a][normalize-space(.)='{text}']"
    )


def texts(browser, tag: str = "main") -> str:
    return browser.find_element(By.TAG_NAME, tag).text


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


def png(rgb: bytes = b"\x1f\x4e\xd0", width: int = 120, height: int = 40) -> bytes:
    """A small real PNG of one colour (by default blue), as a logo uploaded in the console."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + rgb * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
