"""The fan-out's peak memory for 100,000 subscribers. (Deliveries end to end on the local
stack, with no stand-ins: `test_fanout_bench.py`.)"""

import time
import tracemalloc

import pytest

from chalicelib import clock
from chalicelib.notify import fanout
from chalicelib.store.outbox import OutboxEvent
from chalicelib.store.subscribers import Recipient

pytestmark = pytest.mark.bench
FAN_OUT_SUBSCRIBERS = 100_000


class StoredRecipients:
    """`Recipient.query` over a page audience of `count` subscribers, made up as they are read
    (each deserialized from a DynamoDB item as a real answer is): what is measured is the
    fan-out's memory, not the emulator's."""

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
