"""Tables replicated between the two regions of `make run-regions`, as global tables do: after
the commit, asynchronously, last writer wins per item.

The journal (`journal.py`) sees every committed DynamoDB write under its lock. For each item a
write touched, `Replicator.committed` reads the item's image right there (under the same lock,
so it is exactly the state that write left) and queues it, stamped with the commit's time; a
thread ships the queue to the other region's emulator (`POST /_local/replicate`), which applies
each image as a put (or, the item gone, a delete) unless it holds a newer stamp for that item.

Why item images rather than the write requests themselves: a request replayed in the other
region would evaluate its condition expression and its update expression against that
region's copy, which may differ (a claim taken there meanwhile, a counter already moved), so
the two copies could diverge for good. An image converges: whichever write is stamped last
is what both regions hold, which is global tables' own rule (multi-Region eventual
consistency). Conditions stay evaluated in the region that runs them, as on AWS.

A replicated image is written to the receiving region's journal (it survives that region's
restart) but never queued to be shipped again: nothing echoes back. SQS is regional and is
not replicated. What a region's queue holds when it stops is shipped when it resumes; what a
region's process loses (SIGKILL of the emulator before its queue was shipped) is the one
thing replication here does not carry, and the stamps are kept in memory only: after a
restart, an older image arriving late can overwrite a newer local one.
"""

import json
import logging
import threading
import time
import urllib.request
from collections import deque

from chalicelib.local.journal import DYNAMODB

logger = logging.getLogger(__name__)

APPLY_PATH = "/_local/replicate"
LAG_PATH = "/_local/replication"
# Images per shipment, and the pause before shipping again to a region that did not answer.
BATCH = 200
RETRY_SECONDS = 0.2
SHIP_TIMEOUT_SECONDS = 2.0


def touched_keys(action: str, request: dict, key_of) -> list[tuple[str, dict]]:
    """(table, key) of every item a successful write `action` changed; `key_of(table, item)`
    takes a whole item's key attributes."""
    if action == "PutItem":
        return [(request["TableName"], key_of(request["TableName"], request["Item"]))]
    if action in ("UpdateItem", "DeleteItem"):
        return [(request["TableName"], request["Key"])]
    touched = []
    if action == "BatchWriteItem":
        for table, writes in request["RequestItems"].items():
            for write in writes:
                if "PutRequest" in write:
                    touched.append((table, key_of(table, write["PutRequest"]["Item"])))
                else:
                    touched.append((table, write["DeleteRequest"]["Key"]))
    elif action == "TransactWriteItems":
        for write in request["TransactItems"]:
            if "Put" in write:
                touched.append(
                    (
                        write["Put"]["TableName"],
                        key_of(write["Put"]["TableName"], write["Put"]["Item"]),
                    )
                )
            for kind in ("Update", "Delete"):
                if kind in write:
                    touched.append((write[kind]["TableName"], write[kind]["Key"]))
    return touched


def item_id(table: str, key: dict) -> str:
    return table + "\x00" + json.dumps(key, sort_keys=True)


class Replicator:
    """One region's side: the images to ship to `peer` (the other emulator's URL), and the
    newest stamp of each item this region holds."""

    def __init__(self, journal, region: str, peer: str):
        self.journal = journal
        self.region = region
        self.peer = peer
        self.queue: deque[dict] = deque()
        self.ready = threading.Condition()
        self.stamps: dict[str, float] = {}
        self.schemas: dict[str, list[str]] = {}
        self.shipped = 0
        self.applied = 0

    # Under the journal's lock, after a local write succeeded.

    def committed(self, action: str, body: bytes) -> None:
        stamp = time.time()
        images = []
        for table, key in touched_keys(action, json.loads(body), self._key_of):
            _, answer = self.journal.request(
                self.region,
                "dynamodb",
                f"{DYNAMODB}.GetItem",
                json.dumps({"TableName": table, "Key": key, "ConsistentRead": True}),
            )
            self.stamps[item_id(table, key)] = stamp
            images.append({"table": table, "key": key, "item": answer.get("Item"), "stamp": stamp})
        with self.ready:
            self.queue.extend(images)
            self.ready.notify()

    def _key_of(self, table: str, item: dict) -> dict:
        names = self.schemas.get(table)
        if names is None:
            _, described = self.journal.request(
                self.region,
                "dynamodb",
                f"{DYNAMODB}.DescribeTable",
                json.dumps({"TableName": table}),
            )
            names = self.schemas[table] = [
                part["AttributeName"] for part in described["Table"]["KeySchema"]
            ]
        return {name: item[name] for name in names}

    # Under the journal's lock, for images shipped by the other region.

    def newer(self, image: dict) -> bool:
        """Whether `image` is the last write of its item here (and note its stamp if so)."""
        key = item_id(image["table"], image["key"])
        if self.stamps.get(key, 0.0) > image["stamp"]:
            return False
        self.stamps[key] = image["stamp"]
        return True

    # The shipping thread.

    def lag_ms(self) -> int:
        """How long the oldest image not yet delivered to the other region has waited."""
        with self.ready:
            oldest = self.queue[0]["stamp"] if self.queue else None
        return 0 if oldest is None else int((time.time() - oldest) * 1000)

    def state(self) -> dict:
        with self.ready:
            backlog = len(self.queue)
        return {
            "region": self.region,
            "backlog": backlog,
            "lag_ms": self.lag_ms(),
            "shipped": self.shipped,
            "applied": self.applied,
        }

    def start(self) -> None:
        threading.Thread(target=self._ship_forever, name="replication", daemon=True).start()

    def _ship_forever(self) -> None:
        while True:
            with self.ready:
                while not self.queue:
                    self.ready.wait()
                batch = [self.queue[number] for number in range(min(BATCH, len(self.queue)))]
            try:
                self._ship(batch)
            except OSError as error:
                logger.debug("replicating to %s waits: %s", self.peer, error)
                time.sleep(RETRY_SECONDS)
                continue
            with self.ready:
                for _ in batch:
                    self.queue.popleft()
            self.shipped += len(batch)

    def _ship(self, batch: list[dict]) -> None:
        request = urllib.request.Request(
            self.peer + APPLY_PATH,
            data=json.dumps({"from": self.region, "images": batch}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=SHIP_TIMEOUT_SECONDS) as answer:
            if answer.status != 200:
                raise OSError(f"the other region answered {answer.status}")


def serving(app, journal, replicator: Replicator):
    """The emulator's app with the replication's two paths: the other region's shipments in,
    and this region's outgoing lag (`GET /_local/replication`)."""

    def wsgi(environ: dict, start_response):
        path = environ.get("PATH_INFO")
        if path == LAG_PATH:
            return _json(start_response, "200 OK", replicator.state())
        if path == APPLY_PATH and environ["REQUEST_METHOD"] == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            shipment = json.loads(environ["wsgi.input"].read(length) or b"{}")
            if not journal.apply_replicated(shipment.get("images", []), replicator):
                # Still loading its data: the other region ships again shortly.
                return _json(start_response, "503 Service Unavailable", {"error": "starting"})
            replicator.applied += len(shipment.get("images", []))
            return _json(start_response, "200 OK", {"applied": len(shipment.get("images", []))})
        return app(environ, start_response)

    return wsgi


def _json(start_response, status: str, body: dict) -> list[bytes]:
    payload = json.dumps(body).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
    )
    return [payload]
