"""What publishing one incident update costs, at 20, 200 and 2,000 incidents in the period.

On a local stack of its own, incidents are created back to back through the API on one page,
all on one day (resolved, as an integration or an import makes them), the stack's own
publisher running. At 20 incidents, at 200 and at 2,000, once its queues are idle, a few
incident updates are sent through the API one at a time; each publish's metric line in the
stack's log says what it cost (its seconds, the files it rendered, its requests to the site
store). The medians are printed side by side, with the ratio of 2,000 to 20 against the
target (growth at most 1.3x), and the sizes of the published home page and history.

The assertions only check what does not depend on the machine's load: every update was
published, and the files rendered and the store requests did not grow beyond the target.
"""

import json
import statistics
import time
from functools import partial
from pathlib import Path

import pytest
import requests

from tests.e2e.stack import LocalStack, wait_for

pytestmark = pytest.mark.bench
# The incidents of the day at each measure: the caps (50 newest listed, 10 a day shown, 50 a
# history page) are reached between the first two, so the last two should cost the same.
COUNTS = (20, 200, 2000)
UPDATES = 7
GROWTH_TARGET = 1.3
FIGURES = {
    "seconds": "publish time (s)",
    "rendered": "files rendered",
    "store_reads": "store reads",
    "store_writes": "store writes",
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    running = LocalStack(data, log=data / "stack.log").start()
    yield running
    running.stop()


class Page:
    def __init__(self, stack: LocalStack):
        self.stack = stack
        created = stack.admin("bootstrap")
        self.key, self.page_id = created["api_key"], created["page_id"]
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"OAuth {self.key}"
        self.incidents: list[str] = []
        self.component = self.send("POST", "components", {"component": {"name": "API"}})["id"]

    def send(self, method: str, path: str, body: dict, status: int = 201) -> dict:
        url = f"{self.stack.url}/v1/pages/{self.page_id}/{path}"
        answer = self.session.request(method, url, json=body, timeout=60)
        assert answer.status_code == status, answer.text
        return answer.json()

    def create_until(self, count: int) -> float:
        """Incidents created back to back until the page has `count`; the seconds it took."""
        began = time.monotonic()
        while len(self.incidents) < count:
            number = len(self.incidents)
            incident = {
                "name": f"Webhook deliveries delayed {number}",
                "status": "resolved",
                "body": "Deliveries were delayed for a few minutes; all were sent.",
                "components": {self.component: "operational"},
                "deliver_notifications": False,
            }
            self.incidents.append(self.send("POST", "incidents", {"incident": incident})["id"])
        return time.monotonic() - began

    def public_size(self, suffix: str) -> int:
        answer = requests.get(f"{self.stack.url}/s/{self.page_id}{suffix}", timeout=30)
        assert answer.status_code == 200, answer.text
        return len(answer.content)


def publish_lines(log: Path, offset: int, page_id: str) -> list[dict]:
    """The publish metric lines of the page written to the stack's log after `offset`."""
    with log.open("rb") as handle:
        handle.seek(offset)
        text = handle.read().decode(errors="replace")
    found = []
    for line in text.splitlines():
        if '"PublishDelay"' not in line or page_id not in line:
            continue
        try:
            document = json.loads(line)
        except ValueError:
            continue
        if document.get("page_id") == page_id and "rendered" in document:
            found.append(document)
    return found


def update_costs(stack: LocalStack, page: Page) -> list[dict]:
    """Each of `UPDATES` incident updates, sent once the stack is idle: its publish's cost."""
    costs = []
    for number in range(UPDATES):
        assert wait_for(stack.queues_idle, timeout=600), "the stack never went idle"
        time.sleep(1.0)  # a publish that took the last message may still be writing
        offset = stack.log.stat().st_size
        incident = page.incidents[-1 - number]
        body = {"incident": {"status": "resolved", "body": f"Postscript {number}: all sent."}}
        page.send("PATCH", f"incidents/{incident}", body, 200)
        published = partial(publish_lines, stack.log, offset, page.page_id)
        assert wait_for(published, timeout=60), "the update was never published"
        costs.append(publish_lines(stack.log, offset, page.page_id)[0])
    return costs


def median(costs: list[dict], name: str) -> float:
    return statistics.median(float(cost[name]) for cost in costs)


def test_publishing_one_incident_update_costs_the_same_at_20_and_2000_incidents(stack):
    page = Page(stack)
    costs, sizes, seconds = {}, {}, 0.0
    for count in COUNTS:
        seconds += page.create_until(count)
        costs[count] = update_costs(stack, page)
        sizes[count] = (page.public_size(""), page.public_size("/history"))

    first, last = COUNTS[0], COUNTS[-1]
    print(f"\npublishing one incident update ({UPDATES} each, medians), incidents of one day")
    print(f"  {last} incidents created back to back through the API in {seconds:.0f} s")
    print(f"  {'':20}" + "".join(f"{'at ' + str(count):>10}" for count in COUNTS) + "   ratio")
    ratios = {}
    for name, label in FIGURES.items():
        figures = [median(costs[count], name) for count in COUNTS]
        ratios[name] = figures[-1] / figures[0] if figures[0] else float("inf")
        met = "met" if ratios[name] <= GROWTH_TARGET else "NOT MET"
        print(
            f"  {label:20}"
            + "".join(f"{figure:>10.3f}" for figure in figures)
            + f"  {ratios[name]:>5.2f}x ({last} / {first}; <= {GROWTH_TARGET}x: {met})"
        )
    for label, index in (("home page (KB)", 0), ("history (KB)", 1)):
        print(f"  {label:20}" + "".join(f"{sizes[c][index] / 1024:>10.1f}" for c in COUNTS))

    for name in ("rendered", "store_reads", "store_writes"):
        assert ratios[name] <= GROWTH_TARGET, (name, costs)
