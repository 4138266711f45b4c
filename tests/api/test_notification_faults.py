"""Faults in the notification pipeline, through the app's own queue functions over moto:
queue messages redelivered and out of order, endpoints that reset, redirect or fail, and
DynamoDB answering with throttling errors. Every subscriber hears of every update, once."""

import json
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import pytest
from botocore.retries.standard import ExponentialBackoff
from moto.dynamodb.exceptions import DynamodbException
from moto.dynamodb.responses import DynamoHandler

from chalicelib import config
from chalicelib.notify import queues
from tests.api.test_notifications import webhook_subscriber
from tests.webhook_sink import WebhookSink

# The retry pauses are real seconds; these tests need none.
pytestmark = pytest.mark.usefixtures("quick_retries")


def taken(short_name: str) -> list[str]:
    """Every message waiting on the queue, taken off it."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.get_queue_url(QueueName=config.queue_name(short_name))["QueueUrl"]
    bodies = []
    while True:
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return bodies
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            bodies.append(message["Body"])


def invoke(http, function: str, short_name: str, bodies: list[str]):
    event = http.events.generate_sqs_event(
        queue_name=config.queue_name(short_name), message_bodies=bodies
    )
    return http.lambda_.invoke(function, event)


def received_by_subscriber(sink: WebhookSink) -> dict[str, list[str]]:
    """Each endpoint path's update ids, in the order they came."""
    found: dict[str, list[str]] = {}
    for post in sink.received:
        updates = post["json"]["incident"]["incident_updates"]
        found.setdefault(post["path"], []).append(updates[0]["id"])
    return found


def test_events_and_batches_out_of_order_and_twice_reach_everyone_once(world, http, drain):
    drain()  # what earlier tests left
    with WebhookSink() as sink:
        for n in range(3):
            webhook_subscriber(world, f"{sink.url}/{n}")
        path = f"/v1/pages/{world.page_id}/incidents"
        incident = world.api.post(path, {"incident": {"name": "Down", "body": "Looking"}}).json
        for status in ("identified", "resolved"):
            world.api.patch(
                f"{path}/{incident['id']}", {"incident": {"status": status, "body": status}}
            )
        events = taken(queues.NOTIFICATIONS)
        assert len(events) == 3
        # The second update's event first, and each event twice.
        for body in [*reversed(events), *events]:
            invoke(http, "fan_out_notifications", queues.NOTIFICATIONS, [body])
        batches = taken(queues.DELIVERIES)
        for body in [*reversed(batches), *batches]:
            invoke(http, "deliver_notifications", queues.DELIVERIES, [body])
        drain()
    update_ids = {
        update["id"]
        for update in world.api.get(f"{path}/{incident['id']}").json["incident_updates"]
    }
    got = received_by_subscriber(sink)
    assert sorted(got) == [f"/hook/{n}" for n in range(3)]
    for ids_received in got.values():
        assert sorted(ids_received) == sorted(update_ids)  # every update, each once
    # Fanned out after the incident was resolved, each still tells of its own update.
    for post in sink.received:
        told = post["json"]["incident"]
        assert told["status"] == told["incident_updates"][0]["status"]
        assert (told["resolved_at"] is not None) == (told["status"] == "resolved")


class _Misbehaving(ThreadingHTTPServer):
    """An endpoint that resets the connection, or redirects elsewhere."""

    def __init__(self, behaviour: str, target: str = ""):
        self.behaviour, self.target, self.hits = behaviour, target, 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                server.hits += 1
                if server.behaviour == "reset":
                    # SO_LINGER 0: close with a TCP reset, before any answer.
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.connection.close()
                    return
                self.send_response(302)
                self.send_header("Location", server.target)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        serving = {"poll_interval": 0.05}  # a quick shutdown
        threading.Thread(target=self.serve_forever, kwargs=serving, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"


@pytest.mark.parametrize("behaviour", ["reset", "redirect"])
def test_an_endpoint_that_resets_or_redirects_is_quarantined_and_the_others_hear_once(
    world,
    drain,
    behaviour,
):
    with WebhookSink() as sink:
        bad = _Misbehaving(behaviour, target=f"{sink.url}/followed")
        try:
            good = webhook_subscriber(world, f"{sink.url}/good")
            failing = webhook_subscriber(world, bad.url)
            world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}})
            drain()
        finally:
            bad.shutdown()
            bad.server_close()
    assert [post["path"] for post in sink.received] == ["/hook/good"]  # no redirect followed
    assert bad.hits == 3  # tried three times
    subscribers_path = f"/v1/pages/{world.page_id}/subscribers"
    assert world.api.get(f"{subscribers_path}/{failing['id']}").json["state"] == "quarantined"
    assert world.api.get(f"{subscribers_path}/{good['id']}").json["state"] == "active"


@pytest.fixture
def throttled(monkeypatch):
    """`throttled(n)`: the emulator answers the next `n` TransactWriteItems calls with
    DynamoDB's throttling error; returns how many it has answered so."""
    moto_transact = DynamoHandler.transact_write_items
    left = {"count": 0, "answered": 0}

    def transact_write_items(self):
        if left["count"] > 0:
            left["count"] -= 1
            left["answered"] += 1
            raise DynamodbException(
                "com.amazonaws.dynamodb.v20120810#ThrottlingException", "Rate of requests exceeds"
            )
        return moto_transact(self)

    monkeypatch.setattr(DynamoHandler, "transact_write_items", transact_write_items)
    # The SDK's own pauses between its retries (up to seconds under throttling) are time the
    # test would only wait: it counts the retries.
    monkeypatch.setattr(ExponentialBackoff, "delay_amount", lambda self, context: 0)

    def throttle(count: int) -> dict:
        left["count"] = count
        return left

    return throttle


def test_throttled_claims_are_retried_and_each_subscriber_hears_once(world, http, drain, throttled):
    drain()
    with WebhookSink() as sink:
        for n in range(4):
            webhook_subscriber(world, f"{sink.url}/{n}")
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x"}})
        for body in taken(queues.NOTIFICATIONS):
            invoke(http, "fan_out_notifications", queues.NOTIFICATIONS, [body])
        batches = taken(queues.DELIVERIES)
        # A short burst: the SDK's own retries ride it out.
        state = throttled(2)
        for body in batches:
            invoke(http, "deliver_notifications", queues.DELIVERIES, [body])
        assert state["answered"] == 2
        assert len(sink.received) == 4
        # A long one: the delivery fails, the queue hands the message over again, and the
        # second run sends what the first could not claim, once.
        world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "y"}})
        for body in taken(queues.NOTIFICATIONS):
            invoke(http, "fan_out_notifications", queues.NOTIFICATIONS, [body])
        batches = taken(queues.DELIVERIES)
        state = throttled(1000)
        for body in batches:
            with pytest.raises(Exception):  # noqa: B017 - the function fails as Lambda would see
                invoke(http, "deliver_notifications", queues.DELIVERIES, [body])
        assert state["answered"] > 0
        assert len(sink.received) == 4
        throttled(0)
        for body in batches:
            invoke(http, "deliver_notifications", queues.DELIVERIES, [body])
        assert len(sink.received) == 8
    per_subscriber = {}
    for post in sink.received:
        per_subscriber[post["path"]] = per_subscriber.get(post["path"], 0) + 1
    assert per_subscriber == {f"/hook/{n}": 2 for n in range(4)}
    assert all(json.loads(post["raw"])["incident"] for post in sink.received)
