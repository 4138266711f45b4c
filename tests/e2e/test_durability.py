"""No acknowledged write is lost, however the stack is stopped.

Each test writes a data set that touches every table through the API (and a second
organization through `make bootstrap`'s CLI), reads everything back, stops the stack one way,
starts it again and reads everything back once more: field by field, the same.
"""

import json
import os
import re
import signal
import time

import pytest

from tests.e2e.stack import LocalStack
from tests.webhook_sink import WebhookSink

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def check(answer, status: int = 200) -> dict | list | str:
    assert answer.status_code == status, f"{answer.request.method} {answer.url}: {answer.text}"
    is_json = answer.headers.get("Content-Type", "").startswith("application/json")
    return answer.json() if is_json else answer.text


def first_start_credentials(stack: LocalStack) -> dict:
    """The key `make run` printed on its first start: the JSON block before the ready line."""
    text = "".join(stack.output)
    return json.loads(text[text.index("{") : text.index("}") + 1])


def write_every_kind(stack: LocalStack, owner: dict, sink_url: str) -> tuple[list[str], dict]:
    """Writes of every kind; returns the paths whose reads must survive the stop."""
    key, page = owner["api_key"], owner["page_id"]
    pages = f"/v1/pages/{page}"

    check(
        stack.send(
            "PATCH",
            pages,
            key,
            {"page": {"subdomain": "durable", "time_zone": "Europe/Paris", "headline": "Hi"}},
        )
    )
    database = check(
        stack.send("POST", f"{pages}/components", key, {"component": {"name": "Database"}}), 201
    )
    api = check(
        stack.send(
            "POST",
            f"{pages}/components",
            key,
            {"component": {"name": "API", "description": "REST", "showcase": True}},
        ),
        201,
    )
    group = check(
        stack.send(
            "POST",
            f"{pages}/component-groups",
            key,
            {"component_group": {"name": "Backend", "components": [database["id"]]}},
        ),
        201,
    )
    check(
        stack.send(
            "PATCH",
            f"{pages}/components/{api['id']}",
            key,
            {"component": {"status": "degraded_performance"}},
        )
    )
    incident = check(
        stack.send(
            "POST",
            f"{pages}/incidents",
            key,
            {
                "incident": {
                    "name": "Database slow",
                    "status": "investigating",
                    "body": "Looking into it",
                    "impact_override": "minor",
                    "components": {database["id"]: "partial_outage"},
                    "metadata": {"ticket": {"id": 42, "urgent": True, "tags": ["db", "eu"]}},
                }
            },
        ),
        201,
    )
    check(
        stack.send(
            "PATCH",
            f"{pages}/incidents/{incident['id']}",
            key,
            {
                "incident": {
                    "status": "resolved",
                    "body": "Fixed",
                    "components": {database["id"]: "operational"},
                }
            },
        )
    )
    check(
        stack.send(
            "PUT",
            f"{pages}/incidents/{incident['id']}/postmortem",
            key,
            {"postmortem": {"body_draft": "# What happened\n\nA *slow* disk."}},
        )
    )
    check(
        stack.send(
            "PUT",
            f"{pages}/incidents/{incident['id']}/postmortem/publish",
            key,
            {"postmortem": {"notify_subscribers": False}},
        )
    )
    maintenance = check(
        stack.send(
            "POST",
            f"{pages}/incidents",
            key,
            {
                "incident": {
                    "name": "Upgrade",
                    "status": "scheduled",
                    "scheduled_for": "2031-01-01T10:00:00Z",
                    "scheduled_until": "2031-01-01T11:00:00Z",
                    "scheduled_remind_prior": True,
                    "scheduled_auto_in_progress": True,
                    "component_ids": [api["id"]],
                }
            },
        ),
        201,
    )
    check(
        stack.send(
            "POST",
            f"{pages}/incident_templates",
            key,
            {"template": {"name": "DB", "title": "Database degraded", "body": "Looking"}},
        ),
        201,
    )
    email = check(
        stack.send(
            "POST",
            f"{pages}/subscribers",
            key,
            {"subscriber": {"email": "reader@example.com", "skip_confirmation_notification": True}},
        ),
        201,
    )
    webhook = check(
        stack.send(
            "POST",
            f"{pages}/subscribers",
            key,
            {
                "subscriber": {
                    "endpoint": sink_url,
                    "email": "hooks@example.com",
                    "component_ids": [api["id"]],
                }
            },
        ),
        201,
    )
    user = check(
        stack.send(
            "POST",
            f"/v1/organizations/{owner['organization_id']}/users",
            key,
            {
                "user": {
                    "email": "sre@example.com",
                    "first_name": "Ada",
                    "last_name": "Lovelace",
                    "password": "correct horse battery",
                }
            },
        ),
        201,
    )
    # Public views store the page's snapshot (a binary attribute).
    check(stack.get(f"/s/{page}"))
    check(stack.get("/s/durable/api/v2/summary.json"))

    other = stack.admin(
        "bootstrap", "--organization-name", "Other org", "--page-name", "Other page"
    )
    check(
        stack.send(
            "POST",
            f"/v1/pages/{other['page_id']}/components",
            other["api_key"],
            {"component": {"name": "Other component"}},
        ),
        201,
    )
    return [
        "/v1/pages",
        pages,
        f"{pages}/components",
        f"{pages}/components/{api['id']}",
        f"{pages}/component-groups/{group['id']}",
        f"{pages}/incidents",
        f"{pages}/incidents/{incident['id']}",
        f"{pages}/incidents/{incident['id']}/postmortem",
        f"{pages}/incidents/{maintenance['id']}",
        f"{pages}/incident_templates",
        f"{pages}/subscribers",
        f"{pages}/subscribers/{email['id']}",
        f"{pages}/subscribers/{webhook['id']}",
        f"/v1/organizations/{owner['organization_id']}/users",
        f"/v1/organizations/{owner['organization_id']}/permissions/{user['id']}",
        f"{pages}/status_embed_config",
        f"{pages}/webhook_secret",
        f"/s/{page}/api/v2/summary.json",
        f"/s/{page}/incidents/{incident['id']}",
        "/s/durable",
    ], other


def _without_uptime_figures(page: str) -> str:
    """Uptime is worked out against the clock at each view: the rest of the page is data."""
    return re.sub(r"\d+(\.\d+)? ?%", "N %", page)


def read_everything(stack: LocalStack, key: str, paths: list[str], other: dict) -> dict:
    reads = {}
    for path in paths:
        read = check(stack.get(path, key))
        reads[path] = _without_uptime_figures(read) if isinstance(read, str) else read
    reads["other organization"] = check(
        stack.get(f"/v1/pages/{other['page_id']}/components", other["api_key"])
    )
    return reads


def kill_group(stack: LocalStack, *signals_and_pauses) -> None:
    for step in signals_and_pauses:
        if isinstance(step, float):
            time.sleep(step)
        else:
            try:
                os.killpg(stack.process.pid, step)
            except ProcessLookupError:
                pass
    stack.process.wait(timeout=20)


STOPS = {
    "ctrl-c": lambda stack: kill_group(stack, signal.SIGINT),
    "sigterm": lambda stack: kill_group(stack, signal.SIGTERM),
    "sigkill right after the last answer": lambda stack: kill_group(stack, signal.SIGKILL),
    "sigint then sigkill after 1 s": lambda stack: kill_group(
        stack, signal.SIGINT, 1.0, signal.SIGKILL
    ),
}


@pytest.mark.parametrize("stop", STOPS)
def test_every_acknowledged_write_survives(tmp_path, stop):
    stack = LocalStack(tmp_path / "data", RATE_LIMIT_PER_MINUTE="100000")
    with WebhookSink() as sink:
        try:
            stack.start()
            owner = first_start_credentials(stack)
            paths, other = write_every_kind(stack, owner, sink.url)
            before = read_everything(stack, owner["api_key"], paths, other)
            # The stop comes right after the answer to one more write.
            last = check(
                stack.send(
                    "POST",
                    f"/v1/pages/{other['page_id']}/incidents",
                    other["api_key"],
                    {"incident": {"name": "The last write", "status": "identified"}},
                ),
                201,
            )
            STOPS[stop](stack)
            stack.start()
            after = read_everything(stack, owner["api_key"], paths, other)
            last_after = check(
                stack.get(f"/v1/pages/{other['page_id']}/incidents/{last['id']}", other["api_key"])
            )
        finally:
            stack.stop()
    for path in before:
        assert after[path] == before[path], path
    assert last_after == last
