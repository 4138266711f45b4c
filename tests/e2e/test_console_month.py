"""A page owner's month, by clicks only, in a real headless Chromium against the real local
stack (issue 33): a new page, branded with an uploaded logo; components and a group; 50
subscribers imported from CSV (3 rows refused), one unsubscribed after its confirmation; the
overview's group showing its worst member; an incident on two components while another
incident holds a third (nothing taken over), updated, edited, resolved, with a published
postmortem (edited after its draft was saved: the edit is published); a maintenance refused
in its form (the end before the start), then scheduled, moved (its subscribers emailed the new
window) and cancelled in the page's time zone; a metric
and its data; a page access user; a user with one role, who then sees no control for what
that role does not allow. The API is used only to read results back (and to open the other
incident). Every screen is held to axe and photographed at 1280 and 390 px (`month_*`)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.e2e import chromium
from tests.e2e.chromium import ARTIFACTS

pytestmark = pytest.mark.e2e

chromium.skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402

from tests.e2e.console_driver import (  # noqa: E402
    button,
    choose_password,
    first_start_of,
    look,
    png,
    public_text_once,
    sign_in,
    sign_in_owner,
    submit,
    texts,
)
from tests.e2e.stack import wait_for  # noqa: E402
from tests.sent_mail import Mail, sent_mail_over_http  # noqa: E402

PAGE_NAME = "Acme Cloud"
ZONE = "America/New_York"
# 2099-01-15 is in winter: New York is at UTC-5 (EST).
SCHEDULED = ("2099-01-15T02:00", "2099-01-15T04:00")
MOVED = ("2099-01-15T03:00", "2099-01-15T05:00")


@pytest.fixture
def browser(tmp_path):
    driver = chromium.start(tmp_path / "profile", "1280,1000")
    yield driver
    driver.quit()


def subscribers_csv() -> str:
    """50 rows under a header: 47 good, 3 refused (not an email, a duplicate, an unknown
    component)."""
    rows = ["email,components"]
    rows += [f"reader{n}@example.com" for n in range(1, 46)]
    rows.append("reader46@example.com,Website")
    rows.append("not an email")
    rows.append("reader3@example.com")
    rows.append("reader47@example.com,Mainframe")
    rows.append("reader48@example.com,Website;Dashboard")
    assert len(rows) == 51
    return "\n".join(rows) + "\n"


def utc(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def type_time(browser, element_id: str, value: str) -> None:
    """Type a local date and time (`YYYY-MM-DDTHH:MM`) into a `datetime-local` field as a
    person does in Chromium's en-US field: month, day, year, then hour, minute, AM/PM."""
    day, time = value.split("T")
    year, month, date = day.split("-")
    hour, minute = (int(part) for part in time.split(":"))
    field = browser.find_element(By.ID, element_id)
    half = "AM" if hour < 12 else "PM"  # typing starts at the field's first part, the month
    field.send_keys(f"{month}{date}{year}", Keys.TAB, f"{hour % 12 or 12:02d}{minute:02d}{half}")
    assert field.get_attribute("value") == value, field.get_attribute("value")


def moved_mail(stack, address: str) -> Mail:
    """The email telling `address` of the maintenance's move, once the stack has sent it."""

    def found() -> list[Mail]:
        sent = sent_mail_over_http(f"http://127.0.0.1:{stack.moto_port}")
        return [m for m in sent if m.to == [address] and "rescheduled" in m.body]

    assert wait_for(found), f"no email of the move to {address}"
    return found()[-1]


def test_a_page_owners_month_by_clicks(stack, browser, axe_script, tmp_path):
    for earlier in ARTIFACTS.glob("month_*.png"):
        earlier.unlink()  # the screenshots looked at are this run's, numbered in its order
    first_start = first_start_of(stack)
    key = first_start["api_key"]
    step = iter(range(1, 100))

    def seen(name: str) -> None:
        look(browser, axe_script, f"{next(step):02d}_{name}", prefix="month")

    def go(text: str, name: str) -> None:
        submit(browser, button(browser, text))
        seen(name)

    def section(text: str, name: str) -> None:
        submit(
            browser,
            browser.find_element(By.CSS_SELECTOR, "nav.sections").find_element(By.LINK_TEXT, text),
        )
        seen(name)

    def notice() -> str:
        return browser.find_element(By.CSS_SELECTOR, "p.notice").text

    def api(path: str):
        answer = stack.get(path, key)
        assert answer.status_code == 200, answer.text
        return answer.json()

    # Sign in with the one-time password `make run` printed; choose one's own.
    browser.get(f"{stack.url}/manage/sign-in")
    seen("sign_in")
    sign_in_owner(browser, stack, first_start, seen)
    seen("first_page")

    # A new page, from the console's new-page screen; the owner lands on it.
    go("Create another page", "page_new")
    browser.find_element(By.ID, "page-name").send_keys(PAGE_NAME)
    go("Create the page", "page_created")
    page_id = browser.current_url.rsplit("/", 1)[-1].split("?")[0]
    assert browser.find_element(By.TAG_NAME, "h1").text == PAGE_NAME
    assert notice() == "Page created"
    assert api(f"/v1/pages/{page_id}")["name"] == PAGE_NAME

    # Its settings: the time zone the owner works in (times are typed in it below).
    go("Settings and branding", "settings")
    Select(browser.find_element(By.ID, "page-time_zone")).select_by_visible_text(ZONE)
    go("Save settings", "settings_saved")
    assert "Settings saved" in notice()
    assert api(f"/v1/pages/{page_id}")["time_zone"] == ZONE

    # Branding: a logo uploaded as a file.
    logo = tmp_path / "logo.png"
    logo.write_bytes(png())
    go("Logo and images", "branding")
    browser.find_element(By.ID, "branding-transactional_logo").send_keys(str(logo))
    go("Upload", "branding_saved")
    assert "New logo saved" in notice()
    current = browser.find_element(By.CSS_SELECTOR, "img[alt='The current logo']")
    assert browser.execute_script("return arguments[0].naturalWidth", current) == 120
    assert "/branding/" in api(f"/v1/pages/{page_id}")["transactional_logo"]

    # Components, and a group of two of them.
    section("Components", "components")
    for name in ("Website", "Dashboard", "REST API", "Webhooks"):
        browser.find_element(By.ID, "component-name").send_keys(name)
        submit(browser, button(browser, "Add the component"))
    seen("components_added")
    browser.find_element(By.ID, "group-name").send_keys("Platform")
    for name in ("REST API", "Webhooks"):
        browser.find_element(By.XPATH, f"//fieldset//label[contains(., '{name}')]/input").click()
    go("Add the group", "group_added")
    listed = api(f"/v1/pages/{page_id}/components")
    made = {component["name"]: component for component in listed}
    assert set(made) == {"Website", "Dashboard", "REST API", "Webhooks", "Platform"}
    group_id = made["Platform"]["id"]
    assert made["REST API"]["group_id"] == made["Webhooks"]["group_id"] == group_id
    ids = {name: component["id"] for name, component in made.items()}

    # Website's past uptime: a day's minutes of major outage set by hand (the first day it
    # may be: the component's own, today), which the uptime API then counts.
    submit(browser, browser.find_element(By.LINK_TEXT, "Website"))
    seen("component_edit")
    submit(browser, browser.find_element(By.LINK_TEXT, "Edit past uptime"))
    seen("component_uptime")
    browser.find_element(By.ID, "major_outage").send_keys("30")
    go("Save the day", "component_uptime_saved")
    assert notice() == "Day saved"
    assert api(f"/v1/pages/{page_id}/components/{ids['Website']}/uptime")["major_outage"] == 1800

    # 50 subscribers from a CSV file: the preview shows 47 to add and the 3 refused rows.
    csv_file = tmp_path / "subscribers.csv"
    csv_file.write_text(subscribers_csv())
    section("Subscribers", "subscribers")
    go("Import from CSV", "import")
    browser.find_element(By.ID, "import-file").send_keys(str(csv_file))
    browser.find_element(By.XPATH, "//label[contains(., 'Active at once')]/input").click()
    go("Preview the import", "import_preview")
    assert browser.find_element(By.ID, "adding").text == "47 to add"
    assert browser.find_element(By.ID, "refused").text == "3 not added"
    refused = browser.find_elements(By.CSS_SELECTOR, "tr.refused")
    assert [row.find_element(By.TAG_NAME, "td").text for row in refused] == [
        "Row 48",
        "Row 49",
        "Row 50",
    ]
    why = " ".join(row.text for row in refused)
    for reason in ("is not an email address", "duplicate of row 4", "Mainframe"):
        assert reason in why, why
    go("Add 47 subscribers", "imported")
    assert notice() == "Imported 47 subscribers"
    emails = api(f"/v1/pages/{page_id}/subscribers?type=email&state=active&limit=100")
    assert len(emails) == 47
    website_only = next(s for s in emails if s["email"] == "reader46@example.com")
    assert website_only["components"] == [ids["Website"]]

    # One unsubscribed: the row's button asks first, naming the address; only then it goes.
    go("Unsubscribe reader45@example.com", "unsubscribe_confirm")
    question = browser.find_element(By.TAG_NAME, "h1").text
    assert question == f"Unsubscribe reader45@example.com from {PAGE_NAME}'s notifications?"
    assert len(api(f"/v1/pages/{page_id}/subscribers?type=email&state=active&limit=100")) == 47
    go("Unsubscribe reader45@example.com", "unsubscribed")
    assert notice() == "Unsubscribed reader45@example.com"
    assert len(api(f"/v1/pages/{page_id}/subscribers?type=email&state=active&limit=100")) == 46

    # Another incident holds Webhooks (set up through the API, as another team member would).
    other = stack.send(
        "POST",
        f"/v1/pages/{page_id}/incidents",
        key,
        {
            "incident": {
                "name": "Elevated webhook failures",
                "status": "identified",
                "body": "Deliveries to some endpoints fail.",
                "components": {ids["Webhooks"]: "partial_outage"},
                "deliver_notifications": False,
            }
        },
    )
    assert other.status_code == 201, other.text
    other_id = other.json()["id"]

    # An incident on Website and Dashboard: nothing is pre-selected, Webhooks shows its holder.
    section("Overview", "overview_held")
    # The group shows its worst member, as the public page does: Webhooks' partial outage.
    platform = browser.find_element(
        By.XPATH, "//table[@class='components']//tr[td[contains(., 'Platform')]]"
    )
    assert "Partial Outage" in platform.text, platform.text
    go("Open an incident", "incident_new")
    for name in ids:
        if name != "Platform":
            selected = Select(browser.find_element(By.ID, f"component-{ids[name]}"))
            assert selected.first_selected_option.get_attribute("value") == "", name
    held = browser.find_element(By.ID, f"component-{ids['Webhooks']}-held").text
    assert "Elevated webhook failures" in held
    browser.find_element(By.ID, "name").send_keys("Login failures")
    browser.find_element(By.ID, "body").send_keys("Some people cannot sign in.")
    Select(browser.find_element(By.ID, f"component-{ids['Website']}")).select_by_visible_text(
        "Major Outage"
    )
    Select(browser.find_element(By.ID, f"component-{ids['Dashboard']}")).select_by_visible_text(
        "Degraded Performance"
    )
    go("Open the incident", "incident_opened")
    incident_url = browser.current_url.split("?")[0]
    incident_id = incident_url.rsplit("/", 1)[-1]
    opened = api(f"/v1/pages/{page_id}/incidents/{incident_id}")
    assert sorted(c["name"] for c in opened["components"]) == ["Dashboard", "Website"]
    statuses = {c["name"]: c["status"] for c in api(f"/v1/pages/{page_id}/components")}
    assert statuses["Webhooks"] == "partial_outage"  # still the other incident's
    assert statuses["REST API"] == "operational"
    assert statuses["Website"] == "major_outage"
    held_by_other = api(f"/v1/pages/{page_id}/incidents/{other_id}")
    assert [c["name"] for c in held_by_other["components"]] == ["Webhooks"]

    # An update.
    browser.find_element(By.CSS_SELECTOR, "input[value=identified]").click()
    browser.find_element(By.ID, "update-body").send_keys("A bad certificate; replacing it.")
    go("Post the update", "incident_updated")
    timeline = browser.find_element(By.ID, "timeline").find_element(By.XPATH, "..").text
    assert "A bad certificate; replacing it." in timeline

    # An edit: its name and impact, and the text of its first update.
    go("Edit or delete", "incident_edit")
    name_field = browser.find_element(By.ID, "name")
    name_field.clear()
    name_field.send_keys("Login failures for some accounts")
    Select(browser.find_element(By.ID, "impact")).select_by_value("critical")
    go("Save the changes", "incident_edited")
    go("Edit or delete", "incident_edit_again")
    first_update = browser.find_elements(By.CSS_SELECTOR, "textarea[id^=update-]")[-1]
    assert first_update.text == "Some people cannot sign in."
    first_update.clear()
    first_update.send_keys("Some people cannot sign in with a password.")
    submit(browser, browser.find_elements(By.XPATH, "//button[text()='Save this text']")[-1])
    seen("update_text_saved")
    edited = api(f"/v1/pages/{page_id}/incidents/{incident_id}")
    assert edited["name"] == "Login failures for some accounts"
    assert edited["impact"] == "critical"
    bodies = [update["body"] for update in edited["incident_updates"]]
    assert "Some people cannot sign in with a password." in bodies
    assert "Some people cannot sign in." not in bodies

    # Resolved: its own two components come back; Webhooks stays with the other incident.
    browser.get(incident_url)
    seen("incident_before_resolve")
    restorable = browser.find_elements(
        By.CSS_SELECTOR, "#resolve ~ form input[type=checkbox][name^='incident[components]']"
    )
    assert len(restorable) == 2
    go("Resolve the incident", "incident_resolved")
    assert api(f"/v1/pages/{page_id}/incidents/{incident_id}")["status"] == "resolved"
    statuses = {c["name"]: c["status"] for c in api(f"/v1/pages/{page_id}/components")}
    assert statuses["Website"] == statuses["Dashboard"] == "operational"
    assert statuses["Webhooks"] == "partial_outage"

    # Its postmortem: written, saved as a draft, edited, published (the edit is what shows).
    go("Write the postmortem", "postmortem")
    browser.find_element(By.ID, "body_draft").send_keys("## Cause\n\nAn *expired* cert.")
    go("Save draft", "postmortem_draft")
    draft = browser.find_element(By.ID, "body_draft")
    draft.clear()
    draft.send_keys("## Cause\n\nAn *expired* certificate.")
    go("Publish this text", "postmortem_published")
    assert "Published" in texts(browser)
    shown = public_text_once(
        browser,
        stack,
        page_id,
        lambda text: "expired certificate" in text,
        f"/incidents/{incident_id}",
    )
    assert "Login failures for some accounts" in shown
    seen("public_postmortem")

    # A maintenance scheduled in the page's zone (New York), moved, then cancelled.
    browser.get(f"{stack.url}/manage/pages/{page_id}")
    section("Maintenances", "maintenances")
    go("Schedule a maintenance", "maintenance_new")
    assert "EST" in browser.find_element(By.CSS_SELECTOR, "label[for=scheduled_for]").text
    browser.find_element(By.ID, "name").send_keys("Database upgrade")
    # First with the end before the start: the form again, as typed, the problem beside it.
    type_time(browser, "scheduled_for", SCHEDULED[1])
    type_time(browser, "scheduled_until", SCHEDULED[0])
    browser.find_element(By.ID, "body").send_keys("About two hours of read-only mode.")
    browser.find_element(By.XPATH, "//label[contains(., 'REST API')]/input").click()
    go("Schedule the maintenance", "maintenance_refused")
    problem = browser.find_element(By.ID, "scheduled_until-problem").text
    assert problem == "The end must be after the start"
    assert browser.find_element(By.ID, "name").get_attribute("value") == "Database upgrade"
    assert browser.find_element(By.XPATH, "//label[contains(., 'REST API')]/input").is_selected()
    type_time(browser, "scheduled_for", SCHEDULED[0])
    type_time(browser, "scheduled_until", SCHEDULED[1])
    go("Schedule the maintenance", "maintenance_scheduled")
    maintenance_id = browser.current_url.split("?")[0].rsplit("/", 1)[-1]
    scheduled = api(f"/v1/pages/{page_id}/incidents/{maintenance_id}")
    assert utc(scheduled["scheduled_for"]) == datetime(2099, 1, 15, 7, tzinfo=UTC)
    assert utc(scheduled["scheduled_until"]) == datetime(2099, 1, 15, 9, tzinfo=UTC)
    assert "02:00 EST" in texts(browser)
    go("Edit or delete", "maintenance_edit")
    type_time(browser, "scheduled_for", MOVED[0])
    type_time(browser, "scheduled_until", MOVED[1])
    notify = browser.find_element(
        By.XPATH, "//label[contains(., 'Notify subscribers of the new window')]/input"
    )
    assert notify.is_selected()  # ticked at first
    go("Save the changes", "maintenance_moved")
    moved = api(f"/v1/pages/{page_id}/incidents/{maintenance_id}")
    assert utc(moved["scheduled_for"]) == datetime(2099, 1, 15, 8, tzinfo=UTC)
    assert utc(moved["scheduled_until"]) == datetime(2099, 1, 15, 10, tzinfo=UTC)
    assert moved["incident_updates"][0]["body"] == "This maintenance has been rescheduled."
    # A page subscriber's email of the move, read back from the stack's sends: the new window.
    told = moved_mail(stack, "reader1@example.com")
    assert told.subject == f"[{PAGE_NAME}] Database upgrade - scheduled"
    assert "Scheduled: Jan 15, 2099 - 03:00 EST until Jan 15, 2099 - 05:00 EST" in told.body
    go("Edit or delete", "maintenance_edit_again")
    go("Cancel the maintenance", "maintenance_cancelled")
    assert api(f"/v1/pages/{page_id}/incidents/{maintenance_id}")["status"] == "completed"
    section("Overview", "overview_after_maintenance")
    assert (
        "Database upgrade"
        not in browser.find_element(By.ID, "maintenances").find_element(By.XPATH, "..").text
    )

    # A past incident backfilled with its impact; "Count it in the uptime bars" ticked at first.
    section("Incidents", "incidents_list")
    submit(browser, browser.find_element(By.LINK_TEXT, "Backfill a past incident"))
    seen("backfill")
    assert browser.find_element(By.XPATH, "//label[contains(., 'uptime bars')]/input").is_selected()
    browser.find_element(By.ID, "name").send_keys("Dashboard outage last week")
    Select(browser.find_element(By.ID, "impact")).select_by_value("critical")
    last_week = (datetime.now(ZoneInfo(ZONE)) - timedelta(days=7)).strftime("%Y-%m-%d")
    type_time(browser, "began", f"{last_week}T09:00")
    type_time(browser, "resolved_at", f"{last_week}T10:30")
    browser.find_element(By.ID, "body").send_keys("The dashboard did not load.")
    go("Add the past incident", "backfilled")
    past_id = browser.current_url.split("?")[0].rsplit("/", 1)[-1]
    past = api(f"/v1/pages/{page_id}/incidents/{past_id}")
    assert (past["impact"], past["status"]) == ("critical", "resolved")

    # A metric, and a value entered for it.
    section("Metrics", "metrics")
    browser.find_element(By.ID, "metric-name").send_keys("Sign-in latency")
    browser.find_element(By.ID, "metric-suffix").send_keys("ms")
    browser.find_element(By.XPATH, "//label[contains(., 'Show its chart')]/input").click()
    go("Add the metric", "metric_added")
    assert notice() == "Metric added"
    metric = next(m for m in api(f"/v1/pages/{page_id}/metrics") if m["name"] == "Sign-in latency")
    browser.find_element(By.ID, "data-value").send_keys("182")
    go("Add the value", "metric_value_added")
    assert notice() == "Value added"
    # Earlier values pasted as CSV, times in the page's zone: one row is refused.
    local = datetime.now(ZoneInfo(ZONE))
    rows = [
        f"{(local - timedelta(hours=h)):%Y-%m-%d %H:%M},{v}"
        for h, v in ((3, 150), (2, "fast"), (1, 171))
    ]
    browser.find_element(By.ID, "csv-text").send_keys("timestamp,value\n" + "\n".join(rows))
    go("Preview the values", "metric_upload_preview")
    assert (
        "the value is not a number"
        in browser.find_element(By.ID, "refused").find_element(By.XPATH, "..").text
    )
    go("Add 2 values", "metric_values_added")
    assert notice() == "2 values added"
    data = api(f"/v1/pages/{page_id}/metrics/{metric['id']}/data")["data"]
    assert [point["value"] for point in data] == [150, 171, 182]

    # A page access user who sees Website.
    section("Page access", "access")
    browser.find_element(By.ID, "new-user-email").send_keys("partner@example.com")
    browser.find_element(
        By.XPATH,
        "//fieldset[legend[contains(., 'Components they see')]]//label[contains(., 'Website')]/input",
    ).click()
    go("Add the user", "access_user_added")
    assert (
        "partner@example.com"
        in browser.find_element(By.ID, "users").find_element(By.XPATH, "..").text
    )
    access_users = api(f"/v1/pages/{page_id}/page_access_users")
    partner = next(u for u in access_users if u["email"] == "partner@example.com")
    granted = api(f"/v1/pages/{page_id}/page_access_users/{partner['id']}/components")
    assert [component["id"] for component in granted] == [ids["Website"]]

    # A team member with one role, maintenances, who signs in and sees nothing else to do.
    section("Team", "team")
    browser.find_element(By.ID, "user-email").send_keys("maintainer@example.com")
    browser.find_element(By.ID, "user-first-name").send_keys("Mai")
    browser.find_element(By.ID, "user-last-name").send_keys("Ntainer")
    browser.find_element(
        By.XPATH, "//section[.//h2[@id='add-user']]//label[contains(., 'Maintenances')]/input"
    ).click()
    go("Add the user", "team_user_added")
    one_time = browser.find_element(By.ID, "new-password").get_attribute("value")
    assert one_time
    go("Sign out", "signed_out")
    sign_in(browser, stack, "maintainer@example.com", one_time)
    choose_password(browser, "the maintainer's own password", seen)
    seen("maintainer_overview")
    assert browser.current_url.split("?")[0].endswith(f"/manage/pages/{page_id}")
    shown = texts(browser)
    assert "Schedule a maintenance" in shown
    for control in ("Open an incident", "Components and groups", "Settings and branding"):
        assert control not in shown, control
    assert not browser.find_elements(By.CSS_SELECTOR, "select[id^=status-]")
    browser.get(f"{stack.url}/manage/pages/{page_id}/incidents/{other_id}")
    seen("maintainer_incident")
    shown = texts(browser)
    for control in ("Post an update", "Resolve", "Edit or delete"):
        assert control not in shown, control

    # Each of the page's sections: no form that changes anything, no way to an incident,
    # and none that refuses them (the role does not open it) is offered.
    sections = [
        (link.text, link.get_attribute("href"))
        for link in browser.find_elements(By.CSS_SELECTOR, "nav.sections a")
    ]
    refused, changes, incident_links = [], {}, {}
    for text, href in sections:
        browser.get(href)
        seen(f"maintainer_{text.lower().replace(' ', '_')}")
        if "You may not do this" in browser.find_element(By.TAG_NAME, "h1").text:
            refused.append(text)
        forms = browser.find_elements(By.CSS_SELECTOR, "main form[method=post]")
        changes[text] = [form.get_attribute("action") for form in forms]
        links = browser.find_elements(By.CSS_SELECTOR, "main a[href*='/incidents/']")
        incident_links[text] = [
            link.text
            for link in links
            if link.get_attribute("href").endswith(("/new", "/backfill"))
        ]
    offered = {
        "forms that change something": {k: v for k, v in changes.items() if v},
        "ways to open an incident": {k: v for k, v in incident_links.items() if v},
        "sections that refuse them": refused,
    }
    assert not any(offered.values()), f"a maintenance manager is offered {offered}"
