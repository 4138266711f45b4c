"""The app's event functions, run as Lambda would: SQS messages polled and handed over,
scheduled functions called on a tick."""

import logging
import threading
import uuid
from datetime import UTC, datetime

import boto3
from botocore.config import Config
from chalice.app import ScheduledEventConfig, SQSEventConfig

from chalicelib import config

logger = logging.getLogger(__name__)
ACCOUNT = "123456789012"
# Pollers per queue: as Lambda runs a queue's function in several instances at once, so one
# batch's claims and settling overlap another's sends.
INSTANCES_PER_QUEUE = 2
# A poll waits up to this long for a message, as Lambda's own pollers do: the emulator answers
# it as soon as one arrives, and an idle stack is not asked 8 times a second (a poll a second
# each cost a running stack 6% of a core).
POLL_WAIT_SECONDS = 20


class _Context:
    """The little of a Lambda context that handlers may read."""

    function_name = "local"
    aws_request_id = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def sqs_event(queue: str, messages: list[dict]) -> dict:
    arn = f"arn:aws:sqs:{config.region()}:{ACCOUNT}:{queue}"
    return {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes", {}),
                "messageAttributes": {},
                "md5OfBody": message.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": arn,
                "awsRegion": config.region(),
            }
            for message in messages
        ]
    }


def scheduled_event() -> dict:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT,
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": config.region(),
        "resources": [],
        "detail": {},
    }


class Poller(threading.Thread):
    """Long-polls one queue and hands each batch to its function; deletes only what was
    handled without an exception, so a failing message comes back as on AWS."""

    def __init__(self, app, source: SQSEventConfig, stopped: threading.Event, sqs, number: int = 0):
        super().__init__(name=f"poll-{source.queue}-{number}", daemon=True)
        self.handler = app.handler_map[source.name]
        self.source = source
        self.stopped = stopped
        self.sqs = sqs
        self.url = self.sqs.get_queue_url(QueueName=source.queue)["QueueUrl"]

    def poll_once(self, wait_seconds: int = POLL_WAIT_SECONDS) -> int:
        answer = self.sqs.receive_message(
            QueueUrl=self.url,
            MaxNumberOfMessages=min(self.source.batch_size, 10),
            WaitTimeSeconds=wait_seconds,
            AttributeNames=["All"],
        )
        messages = answer.get("Messages", [])
        if not messages:
            return 0
        try:
            self.handler(sqs_event(self.source.queue, messages), _Context())
        except Exception:
            logger.exception("%s failed; its messages will come back", self.source.name)
            return 0
        self.sqs.delete_message_batch(
            QueueUrl=self.url,
            Entries=[
                {"Id": str(number), "ReceiptHandle": message["ReceiptHandle"]}
                for number, message in enumerate(messages)
            ],
        )
        return len(messages)

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                self.poll_once()
            except Exception:
                logger.exception("polling %s failed", self.source.queue)
                self.stopped.wait(1)


class Ticker(threading.Thread):
    """Calls every scheduled function each `interval` seconds."""

    def __init__(self, app, interval: float, stopped: threading.Event, offset: float = 0.0):
        super().__init__(name="ticker", daemon=True)
        self.offset = offset
        self.handlers = [
            app.handler_map[source.name]
            for source in app.event_sources
            if isinstance(source, ScheduledEventConfig)
        ]
        self.interval = interval
        self.stopped = stopped

    def tick(self) -> None:
        for handler in self.handlers:
            try:
                handler(scheduled_event(), _Context())
            except Exception:
                logger.exception("scheduled function failed")

    def run(self) -> None:
        if self.stopped.wait(self.offset):
            return
        while not self.stopped.wait(self.interval):
            self.tick()


def start_all(
    app, tick_seconds: float, stopped: threading.Event, offset: float = 0.0
) -> list[threading.Thread]:
    sources = [
        source
        for source in app.event_sources
        if isinstance(source, SQSEventConfig) and source.queue
    ]
    # One client for every poller (clients are thread-safe; making one costs 15 ms of CPU),
    # with a connection for each poll held open and one more each for its deletes.
    pollers = len(sources) * INSTANCES_PER_QUEUE
    sqs = boto3.client(
        "sqs", region_name=config.region(), config=Config(max_pool_connections=2 * pollers)
    )
    threads: list[threading.Thread] = [
        Poller(app, source, stopped, sqs, number)
        for source in sources
        for number in range(INSTANCES_PER_QUEUE)
    ]
    threads.append(Ticker(app, tick_seconds, stopped, offset))
    for thread in threads:
        thread.start()
    return threads
