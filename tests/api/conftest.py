"""API tests: the Chalice test client over moto's in-process DynamoDB (`aws`, in
tests/conftest.py, shared with the public page's and the console's tests).

Tables are made once from the models; each test makes its own organization, so tests never
see each other's data. Every request of every test is recorded, and a Scan fails the test.
"""

import json
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlencode

import pytest
from chalice.test import Client

from tests.dynamodb_calls import recording


@pytest.fixture
def dynamodb_calls(aws):
    with recording() as log:
        yield log
    assert log.count("Scan") == 0, "a request path made a Scan"


@dataclass
class Answer:
    status: int
    headers: dict
    text: str

    @property
    def json(self):
        return json.loads(self.text) if self.text else None


class Api:
    """An HTTP client of the app that speaks as one API key."""

    def __init__(self, client: Client, api_key: str | None):
        self.client = client
        self.api_key = api_key

    def as_key(self, api_key: str | None) -> "Api":
        return Api(self.client, api_key)

    # Set by the public page's tests: a reader's request, answered as the published site
    # answers it (None: the app answers).
    published_site = None

    def request(self, method: str, path: str, body=None, *, form: bool = False, headers=None):
        if self.published_site is not None and method in ("GET", "HEAD") and not self.api_key:
            answer = self.published_site(method, path, headers or {})
            if answer is not None:
                return answer
        sent = {}
        if self.api_key:
            sent["Authorization"] = f"OAuth {self.api_key}"
        payload = b""
        if body is not None:
            if form:
                sent["Content-Type"] = "application/x-www-form-urlencoded"
                payload = urlencode(body if isinstance(body, list) else form_pairs(body)).encode()
            elif isinstance(body, (bytes, str)):
                payload = body if isinstance(body, bytes) else body.encode()
                sent["Content-Type"] = "application/json"
            else:
                sent["Content-Type"] = "application/json"
                payload = json.dumps(body).encode()
        sent.update(headers or {})
        with recording() as calls:
            response = self.client.http.request(method, path, headers=sent, body=payload)
        # Every request path reads by key or query; a Scan anywhere fails the suite.
        assert calls.count("Scan") == 0, f"{method} {path} made a Scan"
        assert response.status_code < 500, f"{method} {path} answered {response.status_code}"
        return Answer(response.status_code, dict(response.headers), response.body.decode())

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request("PATCH", path, body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request("PUT", path, body, **kwargs)

    def delete(self, path, body=None, **kwargs):
        return self.request("DELETE", path, body, **kwargs)


def form_pairs(body: dict, prefix: str = "") -> list[tuple[str, str]]:
    """A nested dict as Rails-style bracketed form pairs."""
    pairs = []
    for key, value in body.items():
        name = f"{prefix}[{key}]" if prefix else key
        if isinstance(value, dict):
            pairs.extend(form_pairs(value, name))
        elif isinstance(value, list):
            pairs.extend((f"{name}[]", str(item)) for item in value)
        elif isinstance(value, bool):
            pairs.append((name, "true" if value else "false"))
        else:
            pairs.append((name, "" if value is None else str(value)))
    return pairs


@dataclass
class World:
    """An organization with its owner, the owner's key, one page, and a client as the owner."""

    organization_id: str
    user_id: str
    api_key: str
    page_id: str
    api: Api


@pytest.fixture
def freeze_clock():
    """`freeze_clock(moment)` sets the service's clock (and returns the moment); the real
    clock is back after the test."""
    from chalicelib import clock

    def at(moment):
        clock.freeze(moment)
        return moment

    yield at
    clock.freeze(None)


@pytest.fixture(autouse=True)
def empty_queues(aws):
    """Every test starts with the app's queues empty, a module's shared page too: what earlier
    tests left grows the queues to thousands, and moto reads a whole queue on every send (to
    answer its attributes), 8% of a run of the null-field tests."""
    from chalicelib.notify import queues

    for short_name in queues.ALL:
        _purge(short_name)


@pytest.fixture
def http(chalice_app):
    _forget_queued_work()
    with Client(chalice_app) as client:
        yield client


@lru_cache(maxsize=1)
def _sqs():
    # One client for every test: making one costs tens of milliseconds.
    import boto3

    return boto3.client("sqs", region_name="us-east-1")


@lru_cache(maxsize=8)
def _queue_url(short_name: str) -> str:
    from chalicelib import config

    return _sqs().get_queue_url(QueueName=config.queue_name(short_name))["QueueUrl"]


def _purge(short_name: str) -> None:
    """Empty the queue as PurgeQueue does, by moto's own purge: the API call around it cost
    ~1 ms of signing, serializing and routing, three times per test."""
    from moto.sqs.models import sqs_backends

    account_id, queue_name = _queue_url(short_name).rsplit("/", 2)[-2:]
    sqs_backends[account_id][_sqs().meta.region_name].purge_queue(queue_name)


def _forget_queued_work() -> None:
    """What earlier tests of this process left is theirs: beside empty queues
    (`empty_queues`), a test starts with no pending outbox event (each tick's sweep would send
    them all again) and no page whose files are due (each tick would ask for all their
    publishes again)."""
    from chalicelib.notify import outbox
    from chalicelib.store.outbox import PENDING, OutboxEvent
    from chalicelib.store.snapshots import DUE, PageSnapshot

    for event in OutboxEvent.pending_index.query(PENDING):
        outbox.received(event)
    for page in PageSnapshot.publishes_due.query(DUE):
        page.update(actions=[PageSnapshot.publish_queue.remove()])


@pytest.fixture
def make_world(http):
    from chalicelib.domain import organizations, pages

    def make(page_name: str = "Acme") -> World:
        organization = organizations.create_organization("Acme Inc")
        owner = organizations.create_user(organization.id, "owner@example.com", owner=True)
        api_key = organizations.create_api_key(owner)
        page = pages.create_page(organization.id, pages.PageInput(name=page_name))
        return World(organization.id, owner.id, api_key, page.id, Api(http, api_key))

    return make


@pytest.fixture
def world(make_world) -> World:
    return make_world()


@pytest.fixture
def drain(http):
    """Run the app's SQS functions until both queues are empty; returns delivery messages seen."""
    from chalicelib import config
    from chalicelib.notify import queues

    sqs = _sqs()

    def receive(short_name):
        url = _queue_url(short_name)
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        return [message["Body"] for message in messages]

    def run():
        seen = []
        while True:
            notifications = receive(queues.NOTIFICATIONS)
            if notifications:
                event = http.events.generate_sqs_event(
                    queue_name=config.queue_name(queues.NOTIFICATIONS), message_bodies=notifications
                )
                http.lambda_.invoke("fan_out_notifications", event)
            deliveries = receive(queues.DELIVERIES)
            for body in deliveries:
                seen.append(json.loads(body))
                event = http.events.generate_sqs_event(
                    queue_name=config.queue_name(queues.DELIVERIES), message_bodies=[body]
                )
                http.lambda_.invoke("deliver_notifications", event)
            if not notifications and not deliveries:
                return seen

    return run


@pytest.fixture
def quick_retries(monkeypatch):
    # The retry pauses are real seconds; the end-to-end test keeps them.
    from chalicelib.notify import lanes

    monkeypatch.setattr(lanes, "BACKOFF_SECONDS", (0, 0))
