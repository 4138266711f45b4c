"""The emulator's journal: every write it acknowledged outlives any kind of stop, and a damaged
byte on disk stops the start rather than be served or lose what follows it.

moto keeps its state in memory only. This WSGI middleware sits at the emulator's HTTP boundary
and appends each successful DynamoDB write, and each SQS send and delete, to a log file before
the answer leaves: whoever was told "done" (the API, the admin CLI, the pollers) was told so
after the write reached the file, so a SIGKILL right after the answer loses nothing; and, under
`JOURNAL_FSYNC=always` (the default), after it reached the disk, so a power loss loses nothing
either (`LogSync` in `journal_files.py`: concurrent writes share one fsync). At start
the last snapshot is loaded, the logs after it replayed, and both compacted into a new snapshot;
a long-running stack compacts again once the log holds as many records as the snapshot holds
items (`COMPACT_AFTER` at least). A compaction writes every item under the write lock, so
writes wait for it; growing the interval with the data keeps that wait, spread over the
writes between two compactions, the same per write however much the stack holds (and a
start replays no more records than it loads items).

Why requests rather than item images: a write's effect depends only on the state before it, and
writes are applied and logged one at a time under one lock, so replaying the log in order
rebuilds exactly the acknowledged state, conditional writes and counters included. SQS is kept
as the messages sent and not yet deleted: one received but not deleted at the stop comes back
after the restart, as it would after its visibility timeout on AWS.

Its files, their checksums and what a start does with damage: `journal_files.py`; starting
again without a damaged part: `journal_repair.py` (`make admin ARGS="repair-journal"`).
"""

import io
import json
import logging
import os
import threading
from pathlib import Path

from werkzeug.test import EnvironBuilder, run_wsgi_app

from chalicelib.local.journal_files import (
    LEGACY_SNAPSHOT,
    LOCK_WAIT_SECONDS,
    PRIVATE_FILE,
    SNAPSHOT,
    FsyncPolicy,
    LogSync,
    Stored,
    checksum_of,
    claim,
    log_files,
    read_stored,
    seal,
    write_all,
    write_durably,
)

logger = logging.getLogger(__name__)

DYNAMODB = "DynamoDB_20120810"
SQS = "AmazonSQS"
DYNAMODB_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
SQS_WRITES = {"SendMessage", "SendMessageBatch", "DeleteMessage", "DeleteMessageBatch"}
COMPACT_AFTER = 20_000


class Journal:
    """Wraps moto's WSGI app; `recover()` at start, then every write is logged. The fsync
    `policy` is `JOURNAL_FSYNC`'s unless given (a bad value raises `JournalRefused`)."""

    def __init__(self, directory: Path, app, region: str, policy: FsyncPolicy | None = None):
        self.directory = directory
        self.sync = LogSync(policy or FsyncPolicy.from_environment())
        self.app = app
        self.regions = {region}
        self.lock = threading.Lock()
        self.generation = 0
        self.records = 0
        self.compact_after = COMPACT_AFTER
        self.log: int | None = None  # the open log's descriptor; None until recovered
        self.held: int | None = None  # the descriptor that holds `journal.lock`
        self.stored: Stored | None = None  # what `check` read, until `recover` loads it
        self.messages: dict[str, dict] = {}  # SQS message id -> its region, queue and body
        self.receipts: dict[str, str] = {}  # receipt handle -> message id
        # `make run-regions`: ships each committed write's item images to the other region
        # (`replication.py`); None under `make run`.
        self.replicator = None

    # The HTTP boundary.

    def __call__(self, environ: dict, start_response):
        service, _, action = environ.get("HTTP_X_AMZ_TARGET", "").partition(".")
        logged = (service == DYNAMODB and action in DYNAMODB_WRITES) or (
            service == SQS and action in SQS_WRITES
        )
        receiving = service == SQS and action == "ReceiveMessage"
        if self.log is None or not (logged or receiving):
            return self.app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        region = _region(environ.get("HTTP_AUTHORIZATION", ""))
        if receiving:
            status, headers, answer = self._call(environ)
            if status.startswith("200") and answer.startswith(b"{"):
                for message in json.loads(answer).get("Messages", []):
                    self.receipts[message["ReceiptHandle"]] = message["MessageId"]
        else:
            ticket = 0
            with self.lock:
                status, headers, answer = self._call(environ)
                if status.startswith("200"):
                    ticket = self._append(self._records(service, action, region, body, answer))
                    if self.replicator is not None and service == DYNAMODB:
                        self.replicator.committed(action, body)
            if ticket:
                # Outside the lock: the writes appended meanwhile share this wait's fsync.
                self.sync.wait_durable(ticket)
        start_response(status, headers)
        return [answer]

    def apply_replicated(self, images: list[dict], replicator) -> bool:
        """The other region's item images, each applied unless this region holds a newer write
        of its item, and logged as this region's own writes are (they survive its restart), but
        not shipped back. False while the data is still loading."""
        if self.log is None:
            return False
        region = replicator.region
        records = []
        with self.lock:
            for image in images:
                if not replicator.newer(image):
                    continue
                if image["item"] is None:
                    action, request = (
                        "DeleteItem",
                        {"TableName": image["table"], "Key": image["key"]},
                    )
                else:
                    action, request = (
                        "PutItem",
                        {"TableName": image["table"], "Item": image["item"]},
                    )
                body = json.dumps(request)
                status, answer = self.request(region, "dynamodb", f"{DYNAMODB}.{action}", body)
                if status == 200:
                    records.append({"dynamodb": action, "region": region, "body": body})
                else:
                    logger.warning("a replicated %s failed: %s", action, answer)
            ticket = self._append(records)
        if ticket:
            self.sync.wait_durable(ticket)
        return True

    def _call(self, environ: dict) -> tuple[str, list, bytes]:
        app_iter, status, headers = run_wsgi_app(self.app, environ, buffered=True)
        return status, list(headers.items()), b"".join(app_iter)

    def _records(self, service: str, action: str, region: str, body: bytes, answer: bytes):
        if service == DYNAMODB:
            return [{"dynamodb": action, "region": region, "body": body.decode()}]
        request, response = json.loads(body), json.loads(answer)
        queue = request.get("QueueUrl", "").rstrip("/").rsplit("/", 1)[-1]
        if action == "SendMessage":
            sent = [(response["MessageId"], request["MessageBody"])]
        elif action == "SendMessageBatch":
            bodies = {entry["Id"]: entry["MessageBody"] for entry in request["Entries"]}
            sent = [(ok["MessageId"], bodies[ok["Id"]]) for ok in response.get("Successful", [])]
        elif action == "DeleteMessage":
            return self._deletes([request["ReceiptHandle"]])
        else:
            handles = {entry["Id"]: entry["ReceiptHandle"] for entry in request["Entries"]}
            return self._deletes([handles[ok["Id"]] for ok in response.get("Successful", [])])
        return [
            {"send": message_id, "region": region, "queue": queue, "body": message_body}
            for message_id, message_body in sent
        ]

    def _deletes(self, handles: list[str]) -> list[dict]:
        # A handle from before the last start names a message that was re-sent under a new id:
        # it is not in `receipts`, and the re-sent copy is handled (idempotently) once more.
        message_ids = [self.receipts.pop(handle, None) for handle in handles]
        return [{"delete": message_id} for message_id in message_ids if message_id]

    def _append(self, records: list[dict]) -> int:
        """Log the records; the ticket to wait on for them to be on the disk (0: none)."""
        for record in records:
            _apply_message(self.messages, record)
        ticket = 0
        if records:
            write_all(self.log, b"".join(seal(record) + b"\n" for record in records))
            self.records += len(records)
            ticket = self.sync.appended()
        if self.records >= self.compact_after:
            self._compact()
        return ticket

    # Start and compaction.

    def check(self) -> None:
        """Claim the data directory and read it, every byte checked, changing no file: raises
        `JournalDamage` when a file cannot be trusted, `JournalBusy` when another process
        holds the directory. Needs nothing of the emulator, so that a start that will be
        refused is refused before anything listens."""
        self.held = claim(self.directory, LOCK_WAIT_SECONDS)
        self.stored = read_stored(self.directory, next(iter(self.regions)))

    def recover(self) -> bool:
        """Load what `check` read (checking it first if it was not), replay the logs after the
        snapshot, then compact them into a new snapshot and start logging. True when there
        was data to load."""
        if self.stored is None:
            self.check()
        stored, self.stored = self.stored, None  # held only until loaded
        for region, tables in stored.snapshot.get("tables", {}).items():
            self.regions.add(region)
            for table, items in tables.items():
                self._load_items(region, table, items)
        self.messages = dict(stored.snapshot.get("messages", {}))
        for record in stored.records:
            self._replay(record)
        self.messages = self._send_again(self.messages)
        self.generation = stored.generation
        compacted = self._compact()
        return any(items for tables in compacted["tables"].values() for items in tables.values())

    def _compact(self) -> dict:
        """A snapshot of everything logged so far; then a new, empty log."""
        covers = self.generation
        snapshot = {
            "covers": covers,
            "tables": {region: self._scan_region(region) for region in sorted(self.regions)},
            "messages": self.messages,
        }
        sealed = seal(snapshot)
        # On disk before the logs it covers are deleted, so a power loss finds one or the other.
        write_durably(self.directory / SNAPSHOT, sealed)
        self.generation = covers + 1
        header = {"log": self.generation, "follows": covers, "snapshot": checksum_of(sealed)}
        old, self.log = (
            self.log,
            os.open(
                self._log_path(self.generation),
                os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND,
                PRIVATE_FILE,
            ),
        )
        write_all(self.log, seal(header) + b"\n")
        self.sync.use(self.log, self.directory)
        if old is not None:
            os.close(old)
        self.records = 0
        stored = sum(
            len(items) for tables in snapshot["tables"].values() for items in tables.values()
        )
        self.compact_after = max(COMPACT_AFTER, stored)
        for generation, path in log_files(self.directory):
            if generation <= covers:
                path.unlink()
        (self.directory / LEGACY_SNAPSHOT).unlink(missing_ok=True)
        return snapshot

    def _log_path(self, generation: int) -> Path:
        return self.directory / f"journal-{generation}.log"

    def _replay(self, record: dict) -> None:
        if "dynamodb" in record:
            self.regions.add(record["region"])
            status, answer = self.request(
                record["region"], "dynamodb", f"{DYNAMODB}.{record['dynamodb']}", record["body"]
            )
            if status != 200:
                logger.warning("replaying %s failed: %s", record["dynamodb"], answer)
        else:
            _apply_message(self.messages, record)

    def _send_again(self, messages: dict[str, dict]) -> dict[str, dict]:
        """The queues start empty: the messages not yet deleted go back in, under new ids."""
        sent: dict[str, dict] = {}
        for message in messages.values():
            url = self._queue_url(message["region"], message["queue"])
            status, answer = self.request(
                message["region"],
                "sqs",
                f"{SQS}.SendMessage",
                json.dumps({"QueueUrl": url, "MessageBody": message["body"]}),
            )
            if status == 200:
                sent[answer["MessageId"]] = message
            else:
                logger.warning("a message for %s could not be restored: %s", url, answer)
        return sent

    def _queue_url(self, region: str, queue: str) -> str:
        _, answer = self.request(
            region, "sqs", f"{SQS}.GetQueueUrl", json.dumps({"QueueName": queue})
        )
        return answer.get("QueueUrl", queue)

    def _load_items(self, region: str, table: str, items: list[dict]) -> None:
        for start in range(0, len(items), 25):
            pending = {
                table: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
            }
            while pending:
                _, answer = self.request(
                    region,
                    "dynamodb",
                    f"{DYNAMODB}.BatchWriteItem",
                    json.dumps({"RequestItems": pending}),
                )
                pending = answer.get("UnprocessedItems")

    def _scan_region(self, region: str) -> dict[str, list[dict]]:
        tables: dict[str, list[dict]] = {}
        _, listed = self.request(region, "dynamodb", f"{DYNAMODB}.ListTables", "{}")
        for table in listed.get("TableNames", []):
            items: list[dict] = []
            query: dict = {"TableName": table}
            while True:
                _, answer = self.request(region, "dynamodb", f"{DYNAMODB}.Scan", json.dumps(query))
                items.extend(answer.get("Items", []))
                if "LastEvaluatedKey" not in answer:
                    break
                query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
            tables[table] = items
        return tables

    def request(self, region: str, service: str, target: str, payload: str) -> tuple[int, dict]:
        """One call to the emulator's own app, bypassing the journal and the network."""
        environ = EnvironBuilder(
            method="POST",
            path="/",
            data=payload.encode(),
            headers=aws_headers(region, service, target),
        ).get_environ()
        status, _, answer = self._call(environ)
        return int(status.split()[0]), json.loads(answer or b"{}")


def aws_headers(region: str, service: str, target: str) -> dict[str, str]:
    """The headers of an AWS JSON call, as moto routes it: by the credential scope (moto checks
    no signature) and the target."""
    return {
        "Authorization": f"AWS4-HMAC-SHA256 Credential=local/20200101/{region}/{service}/"
        "aws4_request, SignedHeaders=host, Signature=local",
        "X-Amz-Target": target,
        "Content-Type": "application/x-amz-json-1.0",
    }


def _region(authorization: str) -> str:
    """The region of a SigV4 `Authorization` header's credential scope."""
    try:
        return authorization.split("Credential=", 1)[1].split("/")[2]
    except IndexError:
        return "us-east-1"


def _apply_message(messages: dict[str, dict], record: dict) -> None:
    if "send" in record:
        messages[record["send"]] = {
            "region": record["region"],
            "queue": record["queue"],
            "body": record["body"],
        }
    elif "delete" in record:
        messages.pop(record["delete"], None)


# Reading the data directory, every byte checked.
