"""Notifications at scale, on the real local stack: 10,000 webhook subscribers told of one
incident (seconds from the write's answer to the first and the last delivery, deliveries per
second, next to the same sink's bare sequential POST rate), and the fan-out's peak memory
for 100,000 subscribers."""

import http.client
import json
import multiprocessing
import subprocess
import sys
import time
import tracemalloc
from urllib.parse import urlsplit

import pytest

from chalicelib import clock
from chalicelib.notify import fanout
from chalicelib.store.outbox import OutboxEvent
from chalicelib.store.subscribers import Recipient
from tests.e2e.stack import ROOT, LocalStack

pytestmark = pytest.mark.bench
SUBSCRIBERS = 10_000
FAN_OUT_SUBSCRIBERS = 100_000


def _serve(port_value, count_value, first_value, last_value):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            now = time.time()
            with count_value.get_lock():
                count_value.value += 1
                if not first_value.value:
                    first_value.value = now
                last_value.value = now
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    ThreadingHTTPServer.request_queue_size = 1024
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_value.value = server.server_address[1]
    server.serve_forever()


class ProcessSink:
    """A webhook sink in its own process, so it does not share the GIL with the sender; it
    notes when the first and the last POST arrived (wall clock, shared with this process)."""

    def __enter__(self):
        self.port = multiprocessing.Value("i", 0)
        self.count = multiprocessing.Value("i", 0)
        self.first = multiprocessing.Value("d", 0.0)
        self.last = multiprocessing.Value("d", 0.0)
        self.process = multiprocessing.Process(
            target=_serve, args=(self.port, self.count, self.first, self.last), daemon=True
        )
        self.process.start()
        while not self.port.value:
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port.value}/hook"
        return self

    def reset(self) -> None:
        with self.count.get_lock():
            self.count.value, self.first.value, self.last.value = 0, 0.0, 0.0

    def __exit__(self, *exc):
        self.process.terminate()


def bare_loop(url: str, count: int, body: bytes) -> float:
    parts = urlsplit(url)
    started = time.perf_counter()
    for _ in range(count):
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        connection.request(
            "POST", parts.path, body=body, headers={"Content-Type": "application/json"}
        )
        connection.getresponse().read()
        connection.close()
    return count / (time.perf_counter() - started)


SEED = """
import sys
from chalicelib.environment import use_local_emulator_if_local
use_local_emulator_if_local()
from chalicelib import clock, ids
from chalicelib.domain import subscribers
from chalicelib.store.subscribers import Recipient, Subscriber
page_id, url, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
moment = clock.now()
with Subscriber.batch_write() as people, Recipient.batch_write() as items:
    for _ in range(count):
        subscriber = Subscriber(
            page_id, ids.new_id(), kind="webhook", email="o@example.com", endpoint=url,
            component_ids=[], state="active", created_at=moment, updated_at=moment,
        )
        people.save(subscriber)
        for item in subscribers.recipient_items(subscriber):
            items.save(item)
"""


def seed(stack: LocalStack, page_id: str, url: str, count: int) -> None:
    """Subscribers written straight into the stack's tables, as the API would write them
    (10,000 creates through the API would time the API instead)."""
    subprocess.run(
        [sys.executable, "-c", SEED, page_id, url, str(count)],
        cwd=ROOT,
        env=stack.environment,
        check=True,
        timeout=600,
    )


def test_webhook_deliveries_on_the_local_stack(tmp_path):
    stack = LocalStack(tmp_path / "data").start()
    try:
        with ProcessSink() as sink:
            page = stack.admin("bootstrap")
            key, page_id = page["api_key"], page["page_id"]
            started = time.perf_counter()
            seed(stack, page_id, sink.url, SUBSCRIBERS)
            print(
                f"\nseeded {SUBSCRIBERS} webhook subscribers in {time.perf_counter() - started:.1f} s"
            )
            answer = stack.send(
                "POST",
                f"/v1/pages/{page_id}/incidents",
                key,
                {"incident": {"name": "Bench", "body": "Everything is on fire"}},
            )
            answered = time.time()
            assert answer.status_code == 201, answer.text
            deadline = time.monotonic() + 300
            while sink.count.value < SUBSCRIBERS and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2)  # anything sent twice would arrive now
            delivered, first, last = sink.count.value, sink.first.value, sink.last.value
            sink.reset()
            body = json.dumps({"meta": {}, "incident": answer.json()}).encode()
            bare_rate = bare_loop(sink.url, 2_000, body)
    finally:
        stack.stop()
    print(
        f"{delivered} webhook deliveries on the local stack: first {first - answered:.2f} s "
        f"and last {last - answered:.2f} s after the create's answer; "
        f"{delivered / (last - answered):.0f} deliveries/s "
        f"({delivered / max(last - first, 1e-9):.0f}/s first to last); "
        f"bare sequential POST loop to the same sink {bare_rate:.0f}/s"
    )
    assert delivered == SUBSCRIBERS


class StoredRecipients:
    """`Recipient.query` over a page audience of `count` subscribers, made up as they are read
    (each deserialized from a DynamoDB item as a real answer is): moto reads its whole table
    for every page of a Query, which for 100,000 items times moto, not the fan-out."""

    def __init__(self, page_id: str, count: int):
        self.page_id, self.count = page_id, count
        self.moment = clock.iso(clock.now())

    def item(self, number: int) -> Recipient:
        subscriber_id = f"{number:012d}"
        return Recipient.from_raw_data(
            {
                "audience": {"S": f"page#{self.page_id}"},
                "member": {"S": f"webhook#{subscriber_id}"},
                "page_id": {"S": self.page_id},
                "subscriber_id": {"S": subscriber_id},
                "kind": {"S": "webhook"},
                "address": {"S": "https://hooks.example.com/status/" + subscriber_id},
                "created_at": {"S": self.moment.replace("Z", "000+0000")},
            }
        )

    def query(self, audience, condition=None, *, limit=None, page_size=None, **kwargs):
        start = int((kwargs.get("last_evaluated_key") or {}).get("n", 0))
        count = self.count if audience == f"page#{self.page_id}" else 0
        end = count if limit is None else min(count, start + limit)
        return _Pages(self, start, end, count)


class _Pages:
    def __init__(self, stored, start, end, count):
        self.stored, self.start, self.end, self.count = stored, start, end, count
        self.last_evaluated_key = None

    def __iter__(self):
        for number in range(self.start, self.end):
            yield self.stored.item(number)
        if self.end < self.count:
            self.last_evaluated_key = {"n": self.end}


def test_fan_out_memory_for_100000_subscribers(world, monkeypatch):
    stored = StoredRecipients(world.page_id, FAN_OUT_SUBSCRIBERS)
    monkeypatch.setattr(Recipient, "query", stored.query)
    sent = []
    monkeypatch.setattr(
        fanout.queues,
        "send_batch",
        lambda name, messages: sent.append(sum(len(m["recipients"]) for m in messages)),
    )
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Bench", "deliver_notifications": False}},
    ).json
    world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}", {"incident": {"body": "go"}}
    )
    event = next(
        e
        for e in OutboxEvent.scan()
        if e.kind == "incident_update" and e.payload["incident_id"] == incident["id"]
    )
    tracemalloc.start()
    started = time.perf_counter()
    count = fanout.fan_out(event.id)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"\nfan-out of {count} recipients: {seconds:.1f} s under tracemalloc, peak memory "
        f"{peak / 2**20:.1f} MB, {len(sent)} SQS sends"
    )
    assert count == FAN_OUT_SUBSCRIBERS == sum(sent)
    assert peak < 200 * 2**20
