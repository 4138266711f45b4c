"""Notifications at scale: recipients by audience, batches claimed once, sends that do not
wait for each other."""

import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chalicelib import clock, config, ids
from chalicelib.domain import subscribers
from chalicelib.notify import claims, deliver, lanes, webhook
from chalicelib.store.deliveries import DeliveryClaim
from chalicelib.store.subscribers import Recipient, Subscriber
from tests.api.test_notifications import webhook_subscriber
from tests.dynamodb_calls import recording
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.usefixtures("quick_retries")


def incident(world, **fields):
    return world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Down", **fields}}
    ).json


def make_components(world, count: int) -> list[str]:
    path = f"/v1/pages/{world.page_id}/components"
    return [world.api.post(path, {"component": {"name": f"C{n}"}}).json["id"] for n in range(count)]


def test_a_subscriber_of_50_components_is_found_by_one_lookup(world):
    components = make_components(world, 50)
    follower = webhook_subscriber(world, "http://127.0.0.1:9/hook", component_ids=components)
    one = webhook_subscriber(world, "http://127.0.0.1:9/one", component_ids=[components[37]])
    with recording() as calls:
        found = list(
            subscribers.recipients(
                world.page_id,
                component_ids=[components[37]],
                incident_id=None,
                since=None,
                kind="webhook",
            )
        )
    # One Query of the page's subscribers, one of the touched component's, each one page.
    assert calls.summary() == {"Query": 2}
    assert calls.items_read() == 2
    assert sorted(r.subscriber_id for r in found) == sorted([follower["id"], one["id"]])
    # Several touched components: each subscriber once.
    both = subscribers.recipients(
        world.page_id, component_ids=components[:3], incident_id=None, since=None
    )
    assert [r.subscriber_id for r in both] == [follower["id"]]


def test_recipient_items_follow_the_subscriber_state(world):
    components = make_components(world, 2)
    created = webhook_subscriber(world, "http://127.0.0.1:9/hook", component_ids=components)
    path = f"/v1/pages/{world.page_id}/subscribers/{created['id']}"

    def audiences():
        member = f"webhook#{created['id']}"
        return sorted(
            name
            for name in (
                f"page#{world.page_id}",
                *(f"component#{c}" for c in components),
            )
            if Recipient.count(name, Recipient.member == member)
        )

    assert audiences() == sorted(f"component#{c}" for c in components)
    world.api.patch(path, {"subscriber": {"component_ids": [components[0]]}})
    assert audiences() == [f"component#{components[0]}"]
    subscribers.quarantine_by_id(world.page_id, created["id"])
    assert audiences() == []
    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers/reactivate", {"subscribers": [created["id"]]}
    )
    assert audiences() == [f"component#{components[0]}"]
    world.api.delete(path)
    assert audiences() == []


def test_subscribers_stored_before_recipient_items_are_indexed(world, drain):
    with WebhookSink() as sink:
        moment = clock.now()
        old = Subscriber(
            world.page_id,
            ids.new_id(),
            kind="webhook",
            email="old@example.com",
            endpoint=sink.url,
            component_ids=[],
            state="active",
            created_at=moment,
            updated_at=moment,
        )
        old.save()  # as the earlier layout stored it: no recipient items
        incident(world)
        drain()
        assert sink.received == []
        assert subscribers.index_recipients(iter([old])) == 1
        assert subscribers.recipient_items_are_current()
        incident(world)
        drain()
        assert len(sink.received) == 1


def test_a_redelivered_batch_sends_nothing_twice(world, drain):
    with WebhookSink() as sink:
        for n in range(5):
            webhook_subscriber(world, f"{sink.url}/{n}")
        world.api.post(
            f"/v1/pages/{world.page_id}/subscribers",
            {"subscriber": {"email": "m@example.com", "skip_confirmation_notification": True}},
        )
        incident(world)
        messages = drain()
        assert len(sink.received) == 5
        with recording() as calls:
            assert deliver.deliver_all(messages * 2) == 0
        assert len(sink.received) == 5
        # One transaction claims a batch, one more finds who was claimed: nothing per recipient.
        assert calls.summary()["TransactWriteItems"] <= 2 * len(messages) * 2
        assert "PutItem" not in calls.summary()


def test_a_claim_left_by_a_dead_delivery_is_taken_over_once_its_lease_ran_out(world, drain):
    with WebhookSink() as sink:
        webhook_subscriber(world, sink.url)
        live = webhook_subscriber(world, sink.url + "/live")
        incident(world)
        messages = drain()
        assert len(sink.received) == 2
        sink.received.clear()
        message = messages[0]
        ids_ = [r["id"] for r in message["recipients"]]
        # As if the delivery died after claiming, before sending: one lease ran out, one not.
        lease_length = timedelta(seconds=config.delivery_lease_seconds())
        past = clock.now() - lease_length - timedelta(seconds=1)
        for subscriber_id in ids_:
            lease = past if subscriber_id != live["id"] else clock.now()
            DeliveryClaim(
                f"{message['event_id']}#{subscriber_id}",
                outcome=claims.SENDING,
                lease_until=int((lease + lease_length).timestamp()) - 1,
                expires_at=clock.now() + claims.KEPT_FOR,
            ).save()
        with pytest.raises(deliver.DeliveriesElsewhere):
            deliver.deliver(message)
        assert [d["path"] for d in sink.received] == ["/hook"]
        # The message comes back: the live claim still holds, the other is settled.
        with pytest.raises(deliver.DeliveriesElsewhere):
            deliver.deliver(message)
        assert [d["path"] for d in sink.received] == ["/hook"]


class HangingSink:
    """Accepts connections and never answers."""

    def __init__(self):
        self.stop = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(handler):
                self.stop.wait(30)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        serving = {"poll_interval": 0.05}  # a quick shutdown
        threading.Thread(target=self.server.serve_forever, kwargs=serving, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


class TimedSink(WebhookSink):
    """Notes when each POST arrived."""

    def __init__(self):
        super().__init__()
        self.times: list[float] = []
        handler = self.server.RequestHandlerClass
        original = handler.do_POST
        sink = self

        def do_post(handler_self):
            original(handler_self)
            sink.times.append(time.monotonic())

        handler.do_POST = do_post


def test_a_hanging_endpoint_does_not_hold_the_others(world, drain, monkeypatch):
    monkeypatch.setattr(webhook, "TIMEOUT_SECONDS", 1)
    monkeypatch.setattr(lanes, "BACKOFF_SECONDS", (0.5, 0.5))
    hanging = HangingSink()
    try:
        with TimedSink() as sink:
            stuck = [webhook_subscriber(world, hanging.url + f"/{n}") for n in range(12)]
            for n in range(30):
                webhook_subscriber(world, f"{sink.url}/{n}")
            incident(world)
            started = time.monotonic()
            drain()
            finished = time.monotonic() - started
            assert len(sink.times) == 30
            # Everyone else together, within the timeout of one attempt, not after the hanging
            # retries (measured from the first arrival: the fan-out before it is not at stake).
            assert max(sink.times) - min(sink.times) < webhook.TIMEOUT_SECONDS
            # The hanging ones cost their own three attempts, in parallel, then quarantine.
            assert finished < 3 * webhook.TIMEOUT_SECONDS + 1 + 5
            state = world.api.get(f"/v1/pages/{world.page_id}/subscribers/{stuck[0]['id']}")
            assert state.json["state"] == "quarantined"
    finally:
        hanging.close()


def test_recipients_are_read_page_after_page_to_the_last(world, monkeypatch):
    monkeypatch.setattr(subscribers, "FIRST_READ", 7)
    monkeypatch.setattr(subscribers, "RECIPIENTS_PER_READ", 20)
    moment = clock.now()
    written = sorted(ids.new_id() for _ in range(130))
    with Recipient.batch_write() as items:
        for subscriber_id in written:
            items.save(
                Recipient(
                    f"page#{world.page_id}",
                    f"email#{subscriber_id}",
                    page_id=world.page_id,
                    subscriber_id=subscriber_id,
                    kind="email",
                    address=f"{subscriber_id}@example.com",
                    created_at=moment,
                )
            )
    with recording() as calls:
        found = [
            r.subscriber_id
            for r in subscribers.recipients(
                world.page_id, component_ids=[], incident_id=None, since=None
            )
        ]
    assert found == written
    assert calls.count("Query") == 1 + 7  # 7 first, then 123 more at 20 a read
