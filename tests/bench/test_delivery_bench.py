"""Deliveries per second for 10,000 webhook subscribers, next to a bare loop of POSTs."""

import http.client
import json
import multiprocessing
import time
from urllib.parse import urlsplit

import pytest

from chalicelib import clock, ids
from chalicelib.notify import deliver, fanout
from chalicelib.store.outbox import OutboxEvent
from chalicelib.store.subscribers import Subscriber

pytestmark = pytest.mark.bench
SUBSCRIBERS = 10_000


def _serve(port_value, count_value):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with count_value.get_lock():
                count_value.value += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_value.value = server.server_address[1]
    server.serve_forever()


class ProcessSink:
    """A webhook sink in its own process, so it does not share the GIL with the sender."""

    def __enter__(self):
        self.port, self.count = multiprocessing.Value("i", 0), multiprocessing.Value("i", 0)
        self.process = multiprocessing.Process(
            target=_serve, args=(self.port, self.count), daemon=True
        )
        self.process.start()
        while not self.port.value:
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port.value}/hook"
        return self

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


def test_webhook_deliveries_per_second(world, monkeypatch):
    with ProcessSink() as sink:
        moment = clock.now()
        with Subscriber.batch_write() as batch:
            for _ in range(SUBSCRIBERS):
                batch.save(
                    Subscriber(
                        world.page_id,
                        ids.new_id(),
                        kind="webhook",
                        email="o@example.com",
                        endpoint=sink.url,
                        component_ids=[],
                        state="active",
                        created_at=moment,
                        updated_at=moment,
                    )
                )
        batches = []
        monkeypatch.setattr(
            fanout.queues, "send_batch", lambda name, messages: batches.extend(messages)
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
        started = time.perf_counter()
        fanout.fan_out(event.id)
        fan_out_seconds = time.perf_counter() - started
        started = time.perf_counter()
        delivered = sum(deliver.deliver(message) for message in batches)
        pipeline_rate = delivered / (time.perf_counter() - started)
        bare_rate = bare_loop(
            sink.url, 2_000, json.dumps(batches[0]["content"]["webhook"]).encode()
        )
        print(
            f"\n{delivered} webhook deliveries: fan-out {fan_out_seconds:.2f} s, "
            f"{pipeline_rate:.0f} deliveries/s; bare POST loop {bare_rate:.0f}/s; "
            f"ratio {pipeline_rate / bare_rate:.2f}"
        )
        assert delivered == SUBSCRIBERS
