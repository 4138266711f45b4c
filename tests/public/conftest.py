"""The public page's tests reuse the API tests' world: the app over moto, an organization,
its owner's key and a page; components and incidents are made through the API."""

from dataclasses import dataclass

import pytest

from tests.api.conftest import *  # noqa: F403 (the app over moto, `world`, `dynamodb_calls`)
from tests.api.conftest import Answer, Api, _queue_url, _sqs


@dataclass
class Visitor:
    """Someone without a key looking at a page's public paths."""

    api: Api
    page_id: str

    def get(self, suffix: str = "", **kwargs) -> Answer:
        return self.api.get(f"/s/{self.page_id}{suffix}", **kwargs)


@pytest.fixture(autouse=True)
def published_site(drain_publishes, monkeypatch):
    """Readers get the published site, as under `make run`: what the writes so far asked the
    publish function for is published first, then the request is answered from the files,
    or by the app where the files say it answers (the API, dynamic pages, older periods)."""
    from chalicelib.local.site_files import SiteFiles
    from chalicelib.sitestore import site_dir

    files = SiteFiles(site_dir(), recheck_seconds=0)

    def read(method: str, path: str, headers: dict) -> Answer | None:
        drain_publishes()
        host = next((v for k, v in headers.items() if k.lower() == "host"), None)
        answer = files.answer(method, host, path, headers)
        if answer is None:
            return None
        return Answer(answer.status, dict(answer.headers), answer.body.decode())

    monkeypatch.setattr(Api, "published_site", staticmethod(read))


@pytest.fixture
def app_views(published_site, monkeypatch):
    """Readers answered by the app's own views, as audience-specific pages (and paths the
    files do not hold) are: for the tests of what those views cost."""
    monkeypatch.setattr(Api, "published_site", None)


@pytest.fixture
def visitor(world) -> Visitor:
    return Visitor(world.api.as_key(None), world.page_id)


def publish(world) -> None:
    """Rebuild the page's snapshot and publish its files now, whether or not a write asked
    for it (as after a change of the settings, which `make run` republishes at its start)."""
    from chalicelib.public import publish as site_publish
    from chalicelib.views import snapshot as page_snapshot

    page_snapshot.refresh(world.page_id)
    if Api.published_site is not None:  # not for the tests of the app's own views
        site_publish.publish_page(world.page_id, force=True)


def make_component(world, name: str, **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def make_group(world, name: str, component_ids: list[str]) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": name, "components": component_ids}},
    )
    assert answer.status == 201, answer.text
    return answer.json


# A maintenance window well in the future: upcoming whenever a test runs.
MAINTENANCE_WINDOW = {
    "scheduled_for": "2099-01-01T00:00:00Z",
    "scheduled_until": "2099-01-01T02:00:00Z",
}


def make_incident(world, name: str, **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def update_page(world, **fields) -> dict:
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": fields})
    assert answer.status == 200, answer.text
    return answer.json


@pytest.fixture
def drain_publishes(http, empty_queues):
    """Run the publish function on every message of its queue, as the queue would; returns
    how many messages there were (the queue starts empty: `empty_queues`)."""
    import json

    from chalicelib import config
    from chalicelib.notify import queues

    sqs = _sqs()
    url = _queue_url(queues.PUBLISH)

    def publish(bodies: list[str]) -> None:
        event = http.events.generate_sqs_event(
            queue_name=config.queue_name(queues.PUBLISH), message_bodies=bodies
        )
        http.lambda_.invoke("publish_pages", event)

    def run() -> int:
        handled = 0
        while True:
            messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
            if not messages:
                return handled
            publish([message["Body"] for message in messages])
            for message in messages:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            handled += len(messages)
            assert all(json.loads(m["Body"])["page_id"] for m in messages)

    return run


@pytest.fixture
def tick(http):
    """The app's scheduled function, as EventBridge invokes it."""

    def run() -> None:
        event = http.events.generate_cw_event(
            source="aws.events", detail_type="Scheduled Event", detail={}, resources=[]
        )
        http.lambda_.invoke("every_minute", event)

    return run


def published_file(page_id: str, key: str = "", mount: str | None = None) -> tuple[dict, bytes]:
    """The manifest entry and the bytes of one published public path of a page."""
    import json

    from chalicelib.sitestore import site_dir

    folder = site_dir() / (mount or f"s/{page_id}")
    entry = json.loads((folder / "site.json").read_text())["files"][key]
    return entry, (folder / entry["file"]).read_bytes()
