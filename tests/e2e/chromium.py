"""Debian's headless Chromium under selenium, as the browser tests drive it."""

import os
from pathlib import Path

import pytest

from tests.e2e.stack import wait_for

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).parent / "artifacts"


def skip_without_chromium() -> None:
    """Skip the calling module where the browser is not installed (`make test` installs it)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (`make test` installs them)",
            allow_module_level=True,
        )
    pytest.importorskip("selenium.webdriver", reason="selenium is in requirements-dev.txt")


def shows_soon(browser, url: str, condition, timeout: float = 30) -> bool:
    """Whether the page at `url` comes to satisfy `condition()` within `timeout`, looked at as
    a reader waiting for news does: reloading it. The public page may be kept 10 s by the
    browser (`max-age`), so asking for the address again would show the same copy."""
    browser.get(url)

    def shown() -> bool:
        if condition():
            return True
        browser.refresh()
        return condition()

    return wait_for(shown, timeout=timeout)


def start(profile: Path, window: str = "1280,2400"):
    from selenium import webdriver

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
        f"--window-size={window}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver
