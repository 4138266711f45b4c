"""The public page's widgets in a real headless Chromium, served by the real local stack
(issue 32, items 7 to 10): an uptime bar's day card on hover, focus and tap; a metric chart's
values on hover and focus; the incident page's form to follow it; the history's pager and
component filter. The page's own script runs under its strict policy (its hash)."""

import time

import pytest

from tests.e2e import chromium
from tests.e2e.chromium import ARTIFACTS
from tests.e2e.stack import LocalStack, wait_for

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


@pytest.fixture(autouse=True)
def wide_window(browser):
    browser.set_window_size(1280, 2400)
    yield
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


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

    def url(self, suffix: str = "") -> str:
        return f"{self.stack.url}/s/{self.page_id}{suffix}"

    def charted_metric(self, **fields) -> dict:
        """A metric of the page's own (`Self`) provider, charted on the page."""
        path = f"/v1/pages/{self.page_id}/metrics_providers"
        providers = self.stack.get(path, self.key).json()
        (own,) = [provider for provider in providers if provider["type"] == "Self"]
        return self.create(f"metrics_providers/{own['id']}/metrics", "metric", fields)

    def add_points(self, metric: dict, points: list[tuple[int, float]]) -> None:
        """`points`: (Unix seconds, value) each."""
        for at, value in points:
            answer = self.stack.send(
                "POST",
                f"/v1/pages/{self.page_id}/metrics/{metric['id']}/data",
                self.key,
                {"data": {"timestamp": at, "value": value}},
            )
            assert answer.status_code == 201, answer.text


def published(browser, url: str, css: str, count: int = 1) -> bool:
    """Whether the page at `url` shows `count` elements `css` within a publish's delay."""

    return chromium.shows_soon(
        browser, url, lambda: len(browser.find_elements(By.CSS_SELECTOR, css)) >= count
    )


def navigated(browser, click, element) -> None:
    """`click()` on `element`, then wait until its page is gone and the next one loaded: a
    look before that may read the page being left (its cards, its links)."""
    from selenium.common.exceptions import StaleElementReferenceException

    def left() -> bool:
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        return False

    click()
    assert wait_for(left, timeout=30), browser.current_url
    complete = "return document.readyState === 'complete'"
    assert wait_for(lambda: browser.execute_script(complete), timeout=30)


def script_errors(browser) -> list[str]:
    """What the browser logged as severe: a script the policy refused, an error thrown."""
    try:
        logs = browser.get_log("browser")
    except Exception:  # noqa: BLE001 (a driver without logs: nothing to report)
        return []
    return [entry["message"] for entry in logs if entry["level"] == "SEVERE"]


def card_of(bar):
    return bar.find_element(By.XPATH, "following-sibling::div[@class='uptime-card']")


def tap(browser, element) -> None:
    """A finger's tap on `element`, as a phone's touch screen sends it."""
    box = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.left + r.width / 2, r.top + r.height / 2];",
        element,
    )
    point = [{"x": box[0], "y": box[1]}]
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    browser.execute_cdp_cmd(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point}
    )
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_days_card_shows_on_hover_focus_and_tap(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API", "showcase": True})
    admin.create(
        "incidents",
        "incident",
        {"name": "API unavailable", "components": {api["id"]: "major_outage"}},
    )
    assert published(browser, admin.url(), ".bar.level-critical")
    assert script_errors(browser) == []
    bars = browser.find_elements(By.CSS_SELECTOR, ".bars .bar")
    assert len(bars) == 90
    today = bars[-1]
    assert not card_of(today).is_displayed()

    # Hover: the card names the day's outage minutes and its incident.
    ActionChains(browser).move_to_element(today).perform()
    card = card_of(today)
    assert wait_for(card.is_displayed, timeout=5)
    assert "major outage" in card.text and "API unavailable" in card.text
    # It stays while the pointer crosses to it (to follow the incident's link).
    ActionChains(browser).move_to_element(card).perform()
    assert card.is_displayed()
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()
    assert wait_for(lambda: not card.is_displayed(), timeout=5)

    # The keyboard: the row is one stop of the tab order (today), the arrows move along it.
    assert [bar.get_attribute("tabindex") for bar in bars].count("0") == 1
    assert today.get_attribute("tabindex") == "0"
    browser.execute_script("document.activeElement.blur()")
    ActionChains(browser).send_keys(Keys.TAB).perform()
    for _ in range(20):  # the bars come after the masthead's links
        if browser.switch_to.active_element == today:
            break
        ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.switch_to.active_element == today
    assert card_of(today).is_displayed()
    description = browser.execute_script(
        "return document.getElementById(arguments[0].getAttribute('aria-describedby')).textContent",
        today,
    )
    assert "major outage" in description and "API unavailable" in description
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    yesterday = bars[-2]
    assert browser.switch_to.active_element == yesterday
    assert card_of(yesterday).is_displayed() and not card_of(today).is_displayed()
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    assert not card_of(yesterday).is_displayed()  # dismissed, the focus kept
    assert browser.switch_to.active_element == yesterday

    # A tap, as on a phone.
    browser.execute_script("document.activeElement.blur()")
    assert not card_of(today).is_displayed()
    tap(browser, today)
    assert wait_for(lambda: card_of(today).is_displayed(), timeout=5)
    assert "API unavailable" in card_of(today).text
    ARTIFACTS.mkdir(exist_ok=True)
    browser.find_element(By.ID, "components").screenshot(str(ARTIFACTS / "uptime_card.png"))


def test_a_phone_shows_thirty_days_and_groups_show_their_marker_and_count(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API", "showcase": True})
    web = admin.create("components", "component", {"name": "Web", "showcase": True})
    admin.create(
        "component-groups",
        "component_group",
        {"name": "Core", "components": [api["id"], web["id"]]},
    )
    assert published(browser, admin.url(), "details.group")
    summary = browser.find_element(By.CSS_SELECTOR, "details.group > summary")
    assert "Core" in summary.text and "2 components" in summary.text
    marker = browser.find_element(By.CSS_SELECTOR, "details.group .disclosure")
    before = "return getComputedStyle(arguments[0], '::before').content"
    assert browser.execute_script(before, marker) == '"\u25be"'  # open
    summary.click()
    assert browser.execute_script(before, marker) == '"\u25b8"'  # closed
    summary.click()

    browser.set_window_size(390, 1600)
    browser.get(admin.url())
    legend = browser.find_element(By.CSS_SELECTOR, ".bars-legend")
    assert "30 days ago" in legend.text and "90 days ago" not in legend.text
    row = browser.find_element(By.CSS_SELECTOR, ".bars")
    shown = [bar for bar in row.find_elements(By.CSS_SELECTOR, ".bar") if bar.is_displayed()]
    assert len(shown) == 30
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
    tap(browser, shown[0])
    card = card_of(shown[0])
    assert wait_for(card.is_displayed, timeout=5)
    box = browser.execute_script("return arguments[0].getBoundingClientRect().right", card)
    assert box <= 390  # the card stays on the screen
    browser.save_screenshot(str(ARTIFACTS / "uptime_phone.png"))


def test_a_chart_reads_its_values_on_hover_and_focus(stack, browser):
    admin = PageAdmin(stack)
    metric = admin.charted_metric(name="API latency", display=True, suffix=" ms", decimal_places=0)
    now = int(time.time())
    admin.add_points(
        metric,
        [
            (now - offset, value)
            for offset, value in ((6 * 3600, 100), (4 * 3600, 80), (2 * 3600, 120))
        ],
    )
    assert published(browser, admin.url(), ".metric-data tbody tr", 3)
    assert script_errors(browser) == []
    chart = browser.find_element(By.CSS_SELECTOR, f"[data-metric-id='{metric['id']}']")
    # The ticks of the window slid on to now (the others are hidden: `metric-later`).
    labels = chart.find_elements(By.CSS_SELECTOR, ".metric-tick-label")
    ticks = [tick.text for tick in labels if tick.is_displayed()]
    assert len(ticks) >= 5 and all(len(tick) == 5 and tick[2] == ":" for tick in ticks)
    plot = chart.find_element(By.CSS_SELECTOR, ".metric-plot")
    tip = chart.find_element(By.CSS_SELECTOR, ".metric-tip")
    assert not tip.is_displayed()

    # Hover: the value nearest the pointer.
    rows = chart.find_elements(By.CSS_SELECTOR, ".metric-data tbody tr")
    width = plot.size["width"]
    for row, value in zip(rows, ("100 ms", "80 ms", "120 ms"), strict=True):
        x = float(row.get_attribute("data-x"))
        ActionChains(browser).move_to_element_with_offset(
            plot, int((x / 100 - 0.5) * width), 0
        ).perform()
        assert wait_for(tip.is_displayed, timeout=5)
        assert tip.text.endswith(": " + value)
    ActionChains(browser).move_to_element(chart.find_element(By.TAG_NAME, "h3")).perform()
    assert wait_for(lambda: not tip.is_displayed(), timeout=5)

    # Focus: the newest value, then the arrows move; a screen reader hears each.
    assert plot.get_attribute("tabindex") == "0" and plot.get_attribute("role") == "group"
    browser.execute_script("arguments[0].focus()", plot)
    assert tip.is_displayed() and tip.text.endswith(": 120 ms")
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    assert tip.text.endswith(": 80 ms")
    live = chart.find_element(By.CSS_SELECTOR, ".metric-live")
    assert live.get_attribute("textContent").endswith(": 80 ms")
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert tip.text.endswith(": 100 ms")
    chart.screenshot(str(ARTIFACTS / "metric_chart_focus.png"))

    # The table: every value, for whoever reads numbers rather than lines.
    details = chart.find_element(By.CSS_SELECTOR, "details.metric-data")
    details.find_element(By.TAG_NAME, "summary").click()
    cells = [row.text.split("\n")[-1] for row in rows]
    assert [row.find_elements(By.TAG_NAME, "td")[1].text for row in rows] == [
        "100 ms",
        "80 ms",
        "120 ms",
    ], cells


def test_an_open_incident_page_offers_to_follow_it(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API"})
    incident = admin.create(
        "incidents",
        "incident",
        {"name": "API slow", "body": "Looking", "components": {api["id"]: "degraded_performance"}},
    )
    path = f"/v1/pages/{admin.page_id}/incidents/{incident['id']}"
    for body in ("Found it", "Fixing it"):
        changed = stack.send("PATCH", path, admin.key, {"incident": {"body": body}})
        assert changed.status_code == 200, changed.text
    url = admin.url(f"/incidents/{incident['id']}")
    assert published(browser, url, ".timeline .update", 3)
    article = browser.find_element(By.ID, "incident")
    assert "This incident affects: API" in article.text
    update = browser.find_element(By.CSS_SELECTOR, ".timeline .update")
    assert browser.execute_script(
        "return getComputedStyle(arguments[0]).listStyleType", update
    ) == ("none")
    assert not any(line.strip()[:2] in ("1.", "2.", "3.") for line in article.text.splitlines())

    address = f"follower-{admin.page_id}@example.com"
    form = browser.find_element(By.ID, "incident-subscribe-email")
    form.find_element(By.NAME, "subscriber[email]").send_keys(address)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for(lambda: "Check your email" in browser.page_source, timeout=30)
    listed = stack.get(f"{path}/subscribers?state=all", admin.key).json()
    assert [subscriber["email"] for subscriber in listed] == [address]


def test_the_history_pages_and_filters_by_component(stack, browser):
    admin = PageAdmin(stack)
    api = admin.create("components", "component", {"name": "API"})
    web = admin.create("components", "component", {"name": "Website"})
    admin.create(
        "incidents",
        "incident",
        {"name": "API down", "status": "resolved", "components": {api["id"]: "major_outage"}},
    )
    admin.create(
        "incidents",
        "incident",
        {"name": "Website slow", "status": "resolved", "component_ids": [web["id"]]},
    )
    assert published(browser, admin.url("/history"), "#history .incident", 2)
    assert script_errors(browser) == []

    def shown() -> set[str]:
        return {
            card.find_element(By.TAG_NAME, "h3").text
            for card in browser.find_elements(By.CSS_SELECTOR, "#history .incident")
            if card.is_displayed()
        }

    assert shown() == {"API down", "Website slow"}
    select = browser.find_element(By.ID, "history-component")
    assert select.is_displayed()  # the script showed the filter
    select.find_element(By.CSS_SELECTOR, f"option[value='{web['id']}']").click()
    assert shown() == {"Website slow"}
    assert browser.current_url.endswith(f"component={web['id']}")

    # The pager: the quarter before (the filter kept), and back.
    previous = browser.find_element(By.ID, "history-previous")
    assert f"component={web['id']}" in previous.get_attribute("href")
    navigated(browser, previous.click, previous)
    assert "quarter=" in browser.current_url
    assert browser.find_element(By.ID, "history-component").get_attribute("value") == web["id"]
    assert shown() == set()
    # The pager's links get the filter from the page's script once it has run (the select may
    # show the choice before, as the server rendered it): a click before that went unfiltered.
    following = browser.find_element(By.ID, "history-next")
    assert wait_for(lambda: f"component={web['id']}" in following.get_attribute("href"))
    navigated(browser, following.click, following)
    assert wait_for(lambda: len(shown()) == 1, timeout=30), (browser.current_url, shown())
    assert shown() == {"Website slow"}
    browser.find_element(By.CSS_SELECTOR, "#history-component option[value='']").click()
    assert shown() == {"API down", "Website slow"}
