"""Times on the public page in a real headless Chromium, served by the real local stack
(issue 50, item 16; issue 49, part 2): with its script the page says how long ago a moment was
and tells it in the reader's own time zone too; without script it shows the absolute time in
the page's zone. Both come from the same published file."""

import re
import time

import pytest

from tests.e2e import chromium
from tests.e2e.stack import wait_for
from tests.e2e.test_public_page_widgets import PageAdmin, published, script_errors

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402

PAGE_ZONE = "America/New_York"
READER_ZONE = "Asia/Tokyo"  # never the same clock as New York's


@pytest.fixture
def reader_in_tokyo(browser):
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": READER_ZONE})
    yield
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_times_are_relative_and_in_the_readers_zone_with_script_absolute_without(
    stack, browser, reader_in_tokyo
):
    admin = PageAdmin(stack)
    answer = stack.send(
        "PATCH", f"/v1/pages/{admin.page_id}", admin.key, {"page": {"time_zone": PAGE_ZONE}}
    )
    assert answer.status_code == 200, answer.text
    admin.create("components", "component", {"name": "API", "showcase": True})
    incident = admin.create("incidents", "incident", {"name": "Slow API", "body": "Looking."})
    admin.create(
        "incidents",
        "incident",
        {
            "name": "Database upgrade",
            "status": "scheduled",
            "scheduled_for": "2099-01-01T00:00:00Z",
            "scheduled_until": "2099-01-01T02:00:00Z",
        },
    )
    assert published(browser, admin.url(), "#upcoming-maintenances")

    # With script: how long ago, and the reader's own clock beside the page's.
    updated = browser.find_element(By.ID, "last-updated")
    assert wait_for(lambda: "your time" in updated.text, timeout=5), updated.text
    assert re.search(r"\((just now|\d+ minutes? ago); .+ GMT\+9 your time\)", updated.text), (
        updated.text
    )
    assert re.search(r" E[SD]T ", updated.text)  # the page's own zone stays
    update = browser.find_element(By.CSS_SELECTOR, "#open-incidents .update small")
    assert "ago" in update.text or "just now" in update.text, update.text
    countdown = browser.find_element(By.CSS_SELECTOR, "#upcoming-maintenances .countdown")
    assert countdown.is_displayed() and re.search(r"Starts in \d+ years", countdown.text)
    footer = browser.find_element(By.ID, "time-zone").text
    assert f"Times are shown in {PAGE_ZONE}." in footer and READER_ZONE in footer
    assert script_errors(browser) == []

    browser.get(admin.url(f"/incidents/{incident['id']}"))
    posted = browser.find_element(By.CSS_SELECTOR, ".timeline .update small")
    assert wait_for(lambda: "your time" in posted.text, timeout=5), posted.text
    assert "ago" in posted.text or "just now" in posted.text
    assert "Last updated" in browser.find_element(By.ID, "last-updated").text

    # Without script: the absolute time in the page's zone, and nothing else.
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    browser.get(admin.url())
    updated = browser.find_element(By.ID, "last-updated").text
    assert re.fullmatch(r"Last updated \w{3} \d{1,2}, \d{4} - \d\d:\d\d E[SD]T", updated), updated
    countdown = browser.find_element(By.CSS_SELECTOR, "#upcoming-maintenances .countdown")
    assert not countdown.is_displayed()
    assert browser.find_element(By.ID, "time-zone").text == f"Times are shown in {PAGE_ZONE}."


def test_a_chart_slides_its_window_on_to_the_readers_clock(stack, browser, reader_in_tokyo):
    """The published chart ends with its newest value's bucket (two hours ago here), so the file
    stays as it is while no data arrives; the page's script slides it on to now: the value of
    25 hours ago leaves the window, the table and the average."""
    admin = PageAdmin(stack)
    metric = admin.charted_metric(name="API latency", display=True, suffix=" ms", decimal_places=1)
    now = int(time.time())
    admin.add_points(metric, [(now - 25 * 3600, 10), (now - 2 * 3600, 30)])
    css = ".metric-data tbody tr"
    assert published(browser, admin.url(), css, 2)
    chart = browser.find_element(By.CSS_SELECTOR, f"[data-metric-id='{metric['id']}']")
    rows = chart.find_elements(By.CSS_SELECTOR, css)
    assert chart.find_element(By.CSS_SELECTOR, ".metric-average").text == "Average 30.0 ms"
    assert [row.get_attribute("hidden") is not None for row in rows] == [True, False]
    newest = float(rows[1].get_attribute("data-x"))
    assert 90 < newest < 93  # two hours before the end of a day's window
    line = chart.find_element(By.CSS_SELECTOR, ".metric-line").get_attribute("d")
    assert line == ""  # one value left: no line
    ticks = chart.find_elements(By.CSS_SELECTOR, ".metric-tick-label")
    shown = [float(tick.get_attribute("x").rstrip("%")) for tick in ticks if tick.is_displayed()]
    assert len(shown) >= 5 and all(0 <= x <= 100 for x in shown)
    assert script_errors(browser) == []

    # Without script: the chart as published, its window ending at the newest value.
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    browser.get(admin.url())
    chart = browser.find_element(By.CSS_SELECTOR, f"[data-metric-id='{metric['id']}']")
    assert chart.find_element(By.CSS_SELECTOR, ".metric-average").text == "Average 20.0 ms"
