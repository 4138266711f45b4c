"""Bringing a page along across two real local stacks: one filled through its API is the
source (it speaks Statuspage's v1 API), the importer runs as a subprocess against it and
writes into the other, and the two are compared through their APIs, field by field."""

import copy
import json
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.stack import ROOT, LocalStack, wait_for
from tests.summary_source import SummarySource
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e
SUBSCRIBERS = 15
# The subscriber of a deleted incident: not imported (docs/import-export.md, "Not imported").
ORPHAN = "orphan@x.io"
# Points of a custom metric: three sent one by one, the rest in one batch, every 15 minutes
# over two weeks (more than one page of the data read, which gives 1,000 at most).
SINGLE_POINTS = 3
BATCH_POINTS = 1400


@pytest.fixture(scope="module")
def stacks(tmp_path_factory):
    """The source and the target, started side by side (a start is most of the wait). A
    failing webhook is retried after 0.2 and 0.5 s, not 2 and 5: its quarantine is only how
    the source gets a quarantined subscriber (the notifications' test waits the real pauses)."""
    both = [
        LocalStack(tmp_path_factory.mktemp(name), DELIVERY_RETRY_SECONDS="0.2,0.5")
        for name in ("source", "target")
    ]
    with ThreadPoolExecutor(2) as starting:
        list(starting.map(LocalStack.start, both))
    yield both
    for running in both:
        running.stop()


@pytest.fixture(scope="module")
def source(stacks):
    return stacks[0]


@pytest.fixture(scope="module")
def target(stacks):
    return stacks[1]


class Page:
    """A bootstrapped page of one stack, read and changed through the API as its owner."""

    def __init__(self, stack: LocalStack):
        self.stack = stack
        created = stack.admin("bootstrap")
        self.key, self.id = created["api_key"], created["page_id"]
        self.organization_id = created["organization_id"]

    def send(self, method: str, path: str, body: dict | None = None) -> dict:
        answer = self.stack.send(method, f"/v1/pages/{self.id}{path}", self.key, body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def get(self, path: str, **query):
        answer = self.stack.get(f"/v1/pages/{self.id}{path}", self.key, params=query)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def postmortem(self, incident_id: str) -> dict | None:
        path = f"/v1/pages/{self.id}/incidents/{incident_id}/postmortem"
        answer = self.stack.get(path, self.key)
        assert answer.status_code in (200, 404), answer.text
        return answer.json() if answer.status_code == 200 else None

    def everything(self) -> dict:
        """What the API shows of every imported resource."""
        incidents = self.get("/incidents")
        users = self.get("/page_access_users")
        return {
            "page": self.get(""),
            "status_embed_config": self.get("/status_embed_config"),
            "components": self.get("/components"),
            "component_groups": self.get("/component-groups"),
            "incidents": incidents,
            "postmortems": [self.postmortem(incident["id"]) for incident in incidents],
            "incident_subscribers": [
                self.get(f"/incidents/{incident['id']}/subscribers", state="all")
                for incident in incidents
            ],
            "incident_templates": self.get("/incident_templates"),
            "subscribers": self.get("/subscribers", state="all", limit=100),
            "unsubscribed": self.get("/subscribers/unsubscribed"),
            "histogram": self.get("/subscribers/histogram_by_state"),
            "count": self.get("/subscribers/count", state="all"),
            "metrics_providers": self.get("/metrics_providers"),
            "metrics": self.get("/metrics"),
            "metric_data": [self.points(metric["id"]) for metric in self.get("/metrics")],
            "page_access_groups": self.get("/page_access_groups"),
            "page_access_users": users,
            "granted": [self.get(f"/page_access_users/{user['id']}/components") for user in users],
            "granted_metrics": [
                self.get(f"/page_access_users/{user['id']}/metrics") for user in users
            ],
        }

    def points(self, metric_id: str) -> list[dict]:
        """Every point of the metric's last 28 days, page by page (the data read's cursor)."""
        found, query = [], {"limit": 1000}
        while True:
            batch = self.get(f"/metrics/{metric_id}/data", **query)["data"]
            found += batch
            if len(batch) < query["limit"]:
                return found
            query["after"] = batch[-1]["timestamp"]


def at(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def fill(page: Page, failing_endpoint: str) -> None:
    page.send(
        "PATCH",
        "",
        {
            "page": {
                "name": "Acme status",
                "headline": "All about Acme",
                "page_description": "Where Acme says how it is",
                "support_url": "https://acme.example/support",
                "time_zone": "Europe/Berlin",
                "css_greens": "#00aa00",
                "css_reds": "#aa0000",
                "branding": "premium",
                "notifications_email_footer": "Sent by Acme",
                "hero_cover_url": "https://images.acme.example/cover.png",
            }
        },
    )
    page.send(
        "PATCH",
        "/status_embed_config",
        {"status_embed_config": {"position": "top-left", "incident_text_color": "#000000"}},
    )
    # Subscribed first: the incidents below fail on it until it is quarantined.
    page.send(
        "POST", "/subscribers", {"subscriber": {"endpoint": failing_endpoint, "email": "q@x.io"}}
    )
    api = page.send("POST", "/components", {"component": {"name": "API", "description": "v1"}})
    web = page.send("POST", "/components", {"component": {"name": "Web"}})
    dns = page.send("POST", "/components", {"component": {"name": "DNS", "showcase": False}})
    page.send(
        "POST",
        "/component-groups",
        {"component_group": {"name": "Core", "components": [api["id"], web["id"]]}},
    )
    page.send("PATCH", f"/components/{dns['id']}", {"component": {"status": "partial_outage"}})
    outage = page.send(
        "POST",
        "/incidents",
        {
            "incident": {
                "name": "API errors",
                "body": "Looking",
                "components": {api["id"]: "major_outage"},
                "component_ids": [api["id"]],
                "impact_override": "critical",
                "metadata": {"jira": {"issue": "OPS-1"}},
            }
        },
    )
    for status, body in (("identified", "Found it"), ("monitoring", "Fixed"), ("resolved", "Ok")):
        page.send(
            "PATCH",
            f"/incidents/{outage['id']}",
            {
                "incident": {
                    "status": status,
                    "body": body,
                    "components": {api["id"]: "operational"},
                }
            },
        )
    page.send("PUT", f"/incidents/{outage['id']}/postmortem", {"postmortem": {"body": "Why"}})
    page.send("PUT", f"/incidents/{outage['id']}/postmortem/publish", {"postmortem": {}})
    cache = page.send(
        "POST", "/incidents", {"incident": {"name": "Cache misses", "status": "resolved"}}
    )
    draft = {"postmortem": {"body_draft": "Still *writing*"}}
    page.send("PUT", f"/incidents/{cache['id']}/postmortem", draft)
    page.send(
        "POST",
        "/incidents",
        {
            "incident": {
                "name": "Database upgrade",
                "status": "scheduled",
                "body": "Planned",
                "scheduled_for": at(3),
                "scheduled_until": at(3.1),
                "scheduled_remind_prior": True,
                "scheduled_auto_in_progress": True,
                "scheduled_auto_completed": True,
                "auto_transition_to_maintenance_state": False,
                "auto_transition_deliver_notifications_at_end": False,
                "component_ids": [web["id"]],
            }
        },
    )
    open_incident = page.send(
        "POST",
        "/incidents",
        {"incident": {"name": "Slow web", "body": "Slow", "status": "identified"}},
    )
    page.send(
        "POST",
        "/incident_templates",
        {
            "template": {
                "name": "Outage",
                "title": "Outage of API",
                "body": "We are on it",
                "update_status": "investigating",
                "component_ids": [api["id"]],
            }
        },
    )
    page.send("POST", "/subscribers", {"subscriber": {"email": "waiting@x.io"}})  # unconfirmed
    page.send(
        "POST",
        "/subscribers",
        {"subscriber": {"phone_country": "US", "phone_number": "4155550100"}},
    )
    page.send(
        "POST",
        "/subscribers",
        {
            "subscriber": {
                "email": "dns@x.io",
                "component_ids": [dns["id"]],
                "skip_confirmation_notification": True,
            }
        },
    )
    page.send(
        "POST",
        f"/incidents/{open_incident['id']}/subscribers",
        {"subscriber": {"email": "one@x.io", "skip_confirmation_notification": True}},
    )
    # Who left: of the page, and of an incident.
    left = page.send(
        "POST",
        "/subscribers",
        {"subscriber": {"email": "left@x.io", "skip_confirmation_notification": True}},
    )
    page.send("DELETE", f"/subscribers/{left['id']}")
    left = page.send(
        "POST",
        f"/incidents/{open_incident['id']}/subscribers",
        {"subscriber": {"email": "left-too@x.io", "skip_confirmation_notification": True}},
    )
    page.send("DELETE", f"/incidents/{open_incident['id']}/subscribers/{left['id']}")
    # A subscriber of an incident deleted since: imported, it would be a page subscriber.
    gone = page.send("POST", "/incidents", {"incident": {"name": "Spam", "status": "resolved"}})
    page.send(
        "POST",
        f"/incidents/{gone['id']}/subscribers",
        {"subscriber": {"email": ORPHAN, "skip_confirmation_notification": True}},
    )
    page.send("DELETE", f"/incidents/{gone['id']}")
    own = next(p for p in page.get("/metrics_providers") if p["type"] == "Self")
    latency = page.send(
        "POST",
        f"/metrics_providers/{own['id']}/metrics",
        {"metric": {"name": "Latency", "suffix": "ms", "y_axis_max": 500, "decimal_places": 1}},
    )
    now = int(datetime.now(UTC).timestamp())
    for minutes in (90, 60, 30):
        point = {"data": {"timestamp": now - minutes * 60, "value": minutes}}
        page.send("POST", f"/metrics/{latency['id']}/data", point)
    batch = [
        {"timestamp": now - 2 * 3600 - step * 900, "value": step % 50 + 0.5}
        for step in range(BATCH_POINTS)
    ]
    answer = page.stack.send(
        "POST", f"/v1/pages/{page.id}/metrics/data", page.key, {"data": {latency["id"]: batch}}
    )
    assert answer.status_code == 202, answer.text
    # The batch is written from the queue: the source is filled once it is all there.
    stored = lambda: len(page.points(latency["id"])) == SINGLE_POINTS + BATCH_POINTS  # noqa: E731
    assert wait_for(stored, timeout=60)
    team = page.send(
        "POST",
        "/page_access_groups",
        {"page_access_group": {"name": "Team", "component_ids": [web["id"]]}},
    )
    for email, extra in (
        ("ann@x.io", {"page_access_group_ids": [team["id"]], "component_ids": [dns["id"]]}),
        ("bob@x.io", {"metric_ids": [latency["id"]]}),
    ):
        page.send("POST", "/page_access_users", {"page_access_user": {"email": email, **extra}})
    for number in range(SUBSCRIBERS):
        page.send(
            "POST",
            "/subscribers",
            {"subscriber": {"email": f"p{number}@x.io", "skip_confirmation_notification": True}},
        )


def importer(page_from: Page, page_into: Page, *extra: str, into: bool = True) -> subprocess.Popen:
    """The importer into `page_into`, or (`into` false) into a page it makes for that page's
    organization."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chalicelib.admin",
            "import",
            "--from-url",
            page_from.stack.url,
            "--from-key",
            page_from.key,
            "--page",
            page_from.id,
            "--organization",
            page_into.organization_id,
            *(["--into", page_into.id] if into else []),
            "--rate",
            "50",
            *extra,
        ],
        cwd=ROOT,
        env=page_into.stack.environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_import(
    page_from: Page, page_into: Page, *extra: str, into: bool = True
) -> tuple[int, str, str]:
    process = importer(page_from, page_into, *extra, into=into)
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


# Fields that name where a page is served, not what it says.
SERVED_AT = {"id", "subdomain", "domain", "created_at", "updated_at", "url"}


def id_map(source: dict, copy: dict, source_page: Page, copy_page: Page) -> dict[str, str]:
    """Source ids and ours, paired by what each thing is called."""
    pairs = {source_page.id: copy_page.id}

    def pair(items_from, items_to, name):
        ours = {name(item): item for item in items_to}
        for item in items_from:
            twin = ours[name(item)]
            pairs[item["id"]] = twin["id"]
            if "incident_updates" in item:
                for one, other in zip(
                    item["incident_updates"], twin["incident_updates"], strict=True
                ):
                    pairs[one["id"]] = other["id"]

    pair(source["components"], copy["components"], lambda item: item["name"])
    pair(source["incidents"], copy["incidents"], lambda item: item["name"])
    pair(source["metrics_providers"], copy["metrics_providers"], lambda item: item["type"])
    pair(source["metrics"], copy["metrics"], lambda item: item["name"])
    pair(source["page_access_groups"], copy["page_access_groups"], lambda item: item["name"])
    pair(source["page_access_users"], copy["page_access_users"], lambda item: item["email"])
    pair(source["incident_templates"], copy["incident_templates"], lambda item: item["name"])
    for listed in ("subscribers", "unsubscribed"):
        pair(
            source[listed],
            copy[listed],
            lambda item: (item["mode"], item["email"], item["endpoint"], item["phone_number"]),
        )
    return pairs


# Where a host serves a thing; when a provider's metric was fetched (none are imported).
NOT_COPIED = {"shortlink", "automation_email", "last_fetched_at"}


def mapped(value, pairs: dict[str, str]):
    """`value` with every source id replaced by ours, and what names a host left out."""
    if isinstance(value, dict):
        return {key: mapped(item, pairs) for key, item in value.items() if key not in NOT_COPIED}
    if isinstance(value, list):
        return [mapped(item, pairs) for item in value]
    return pairs.get(value, value) if isinstance(value, str) else value


def without_orphans(source: dict) -> dict:
    """What the source shows but for the subscribers of deleted incidents, which an import
    leaves out (docs/import-export.md): out of its lists and counts."""
    orphans = [s for s in source["subscribers"] if s["email"] == ORPHAN]
    assert orphans and all(s["state"] == "active" and s["incident_id"] for s in orphans)
    source["subscribers"] = [s for s in source["subscribers"] if s not in orphans]
    for orphan in orphans:
        counts = source["histogram"][orphan["mode"]]
        counts[orphan["state"]] -= 1
        counts["total"] -= 1
        source["count"][orphan["mode"]] -= 1
    return source


def assert_same(source_page: Page, copy_page: Page) -> dict:
    source, copy = without_orphans(source_page.everything()), copy_page.everything()
    for side in (source, copy):
        for name in SERVED_AT:
            side["page"].pop(name, None)
    pairs = id_map(source, copy, source_page, copy_page)
    for side in (source, copy):
        side.pop("metrics_providers")  # each page's own, only there to pair ids
    expected = mapped(source, pairs)
    for kind in expected:
        assert mapped(copy[kind], {}) == expected[kind], kind
    return copy


def test_a_page_is_imported_whole_again_without_change_and_resumed(source, target):
    page_from = Page(source)
    with WebhookSink(status=503) as failing:
        fill(page_from, failing.url)
        # The incidents above reach the failing webhook, which ends quarantined.
        quarantined = lambda: page_from.get("/subscribers", state="quarantined")  # noqa: E731
        assert wait_for(quarantined, timeout=45)

    page_into = Page(target)
    code, out, err = run_import(page_from, page_into, "--dry-run")
    assert code == 0, err
    # Read: the 5 subscribers of `fill` and its 15 more, 2 who left, the orphan.
    assert '"incidents": 4' in out and f'"subscribers": {SUBSCRIBERS + 8}' in out
    assert f'"metric_data": {SINGLE_POINTS + BATCH_POINTS}' in out
    (orphan,) = [s for s in page_from.get("/subscribers") if s["email"] == ORPHAN]
    assert [s["id"] for s in json.loads(out)["would_skip"]] == [orphan["id"]]
    assert page_into.get("/components") == []  # a dry run writes nothing

    code, out, err = run_import(page_from, page_into)
    assert code == 0, err
    assert "about" in err and "read incidents: 4" in err
    assert page_from.key not in out + err
    assert f"subscribers {orphan['id']} skipped: its incident" in err
    summary = json.loads(out)
    assert [s["id"] for s in summary["skipped"]] == [orphan["id"]]
    assert summary["imported"]["subscribers"]["skipped"] == 1
    first = assert_same(page_from, page_into)
    drafts = [p for p in first["postmortems"] if p and not p["published_at"]]
    assert [p["body_draft"] for p in drafts] == ["Still *writing*"]
    assert {s["email"] for s in first["unsubscribed"]} == {"left@x.io", "left-too@x.io"}
    incident = next(i for i in first["incidents"] if i["name"] == "API errors")
    assert [u["body"] for u in incident["incident_updates"]] == [
        "Ok",
        "Fixed",
        "Found it",
        "Looking",
    ]
    assert incident["status"] == "postmortem" and incident["postmortem_body"] == "Why"
    (points,) = first["metric_data"]
    assert len(points) == SINGLE_POINTS + BATCH_POINTS
    assert points == sorted(points, key=lambda point: point["timestamp"])
    assert first["metrics"][0]["most_recent_data_at"] is not None

    before = page_into.everything()
    code, out, err = run_import(page_from, page_into)
    assert code == 0, err
    assert '"written": 0' in out and '"written": 1' not in out
    assert page_into.everything() == before

    # Killed once the components and incidents are written and the subscribers are not
    # yet, then run again: the same page as an uninterrupted import.
    # Into a new page of another organization this time: the importer makes it.
    team = Page(target)
    process = importer(page_from, team, into=False)
    for line in process.stderr:
        if line.startswith("writing subscribers"):
            process.send_signal(signal.SIGKILL)
            break
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    made = [p["id"] for p in target.get("/v1/pages", team.key).json() if p["id"] != team.id]
    assert len(made) == 1
    resumed = copy.copy(team)
    resumed.id = made[0]
    assert len(resumed.get("/incidents")) == 4
    assert len(resumed.get("/subscribers", state="all")) < SUBSCRIBERS
    code, out, err = run_import(page_from, team, into=False)
    assert code == 0, err
    assert json.loads(out)["page_id"] == resumed.id  # the page the first run made
    copied = assert_same(page_from, resumed)

    # Imported postmortems are whole: they are edited as any other.
    for incident, postmortem in zip(copied["incidents"], copied["postmortems"], strict=True):
        if postmortem:
            path = f"/incidents/{incident['id']}/postmortem"
            edited = resumed.send("PUT", path, {"postmortem": {"body_draft": "Edited here"}})
            assert edited["body_draft"] == "Edited here"
            assert edited["body"] == postmortem["body"]


def test_bad_input_is_refused_clearly(source, target):
    with ThreadPoolExecutor(3) as making:
        page_from, page_into, stranger = making.map(Page, (source, target, target))

    def refused(arguments: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "chalicelib.admin", "import", *arguments],
            cwd=ROOT,
            env=target.environment,
            capture_output=True,
            text=True,
            timeout=60,
        )

    common = ["--organization", page_into.organization_id, "--rate", "50"]
    url, page, key = ["--from-url", source.url], ["--page", page_from.id], page_from.key
    with SummarySource() as site:
        site.raw = b"<html><body>Welcome</body></html>"  # a web site, not an API
        cases = {
            "refused the key": [*url, "--from-key", "nope", *page, *common],
            "not found": [*url, "--from-key", key, "--page", "missing", *common],
            "Statuspage": ["--from-url", site.url.split("/api/")[0], "--from-key", key, *page],
            "another organization": [*url, "--from-key", key, *page, "--into", stranger.id],
        }
        cases["Statuspage"] += common
        cases["another organization"] += common
        with ThreadPoolExecutor(2) as running:
            answers = dict(zip(cases, running.map(refused, cases.values()), strict=True))
    for said, answer in answers.items():
        assert answer.returncode == 1 and said in answer.stderr, (said, answer.stderr)
