"""moto's HTTP server as the embedded AWS (DynamoDB, SQS, SES, SNS) on a loopback port, with
the journal at its boundary so that what it acknowledged survives a restart.

It runs in a process of its own (`child.emulator`), as AWS's services run apart from the
Lambda functions: the emulator and the app each get a core instead of sharing one
interpreter lock, which under load is most of a request's wait. The process lives only as
long as the stack's: it dies with its parent, however the parent stops (SIGKILL included).

    python -m chalicelib.local.emulator PORT DATA_DIR
"""

import io
import json
import os
import sys
import threading
from pathlib import Path

import boto3
from botocore.exceptions import ClientError
from moto.dynamodb.responses import DynamoHandler
from moto.moto_server.werkzeug_app import (
    BackendRequest,
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server
from werkzeug.wrappers import Response

from chalicelib import config
from chalicelib.local import child, moto_costs, replication, send_limits, sent_messages
from chalicelib.local.journal import Journal
from chalicelib.local.journal_files import JournalRefused
from chalicelib.local.replication import Replicator
from chalicelib.notify import queues
from chalicelib.store.tables import create_all


class _RequestHandler(MotoRequestHandler):
    """moto's request handling on connections that stay open.

    Werkzeug's development server closes the connection after every answer (it cannot tell
    where an unread request body ends), so every SDK call paid a TCP connection and a server
    thread of its own: most of a write's time on the local stack. Here the body is read whole
    before the app runs and the answer carries its length, so a connection serves call after
    call, as AWS's endpoints do.
    """

    # Headers and body go out in separate writes; without this the SDK's delayed ACK holds a
    # small answer back by up to ~40 ms.
    disable_nagle_algorithm = True
    # An idle SDK connection is let go after this long (seconds).
    timeout = 120

    def log_error(self, format: str, *args) -> None:
        # Letting an idle kept-alive connection go is how the server is meant to work, not an
        # error: logged at ERROR it was every error line of a run (63 of 63).
        if format.startswith("Request timed out"):
            self.log("debug", format, *args)
            return
        super().log_error(format, *args)

    def run_wsgi(self) -> None:
        environ = self.make_environ()
        if environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked":
            body = environ["wsgi.input"].read()
        else:
            body = self.rfile.read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        answered: list = []

        def start_response(status, headers, exc_info=None):
            answered[:] = [status, headers]
            return lambda data: None  # nothing here writes through it

        chunks = self.server.app(environ, start_response)
        try:
            payload = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
        status, headers = answered
        code, _, message = status.partition(" ")
        self.send_response(int(code), message)
        for name, value in headers:
            if name.lower() not in ("connection", "content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if environ["REQUEST_METHOD"] != "HEAD":
            self.wfile.write(payload)


_DYNAMODB_TARGET = "DynamoDB_20120810."


class _Dispatcher(DomainDispatcherApplication):
    """moto's dispatcher, with two costs taken off the requests the stack makes most.

    moto finds the app anew for every request, under a lock all requests share, listing its
    service modules on disk on the way: a tenth of an item read's time on the emulator. What
    it finds depends only on the credential scope (region and service) and the target's
    service, so a root-path request signed the same way as an earlier one gets the same app.

    And a DynamoDB request goes to moto's handler directly, as moto's Flask app would hand it
    (the request normalized, a client error as a 400), without the Flask app around it: its
    routing, contexts and CORS headers were a quarter of an item read's time.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.known: dict[tuple, object] = {}

    def __call__(self, environ: dict, start_response):
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith(_DYNAMODB_TARGET):
            return super().__call__(environ, start_response)
        request = BackendRequest(environ)
        try:
            status, headers, content = DynamoHandler.dispatch(
                request, request.raw_url, dict(request.headers)
            )
        except ClientError as error:
            status, headers, content = 400, {}, error.response["Error"]["Message"]
        return Response(content, status, headers)(environ, start_response)

    def get_application(self, environ: dict):
        authorization = environ.get("HTTP_AUTHORIZATION", "")
        if environ.get("PATH_INFO") != "/" or "Credential=" not in authorization:
            return super().get_application(environ)
        # Credential=KEY/DATE/REGION/SERVICE/aws4_request
        scope = authorization.partition("Credential=")[2].split(",")[0].split("/")[2:4]
        key = (*scope, environ.get("HTTP_X_AMZ_TARGET", "").partition(".")[0])
        app = self.known.get(key)
        if app is None:
            app = self.known[key] = super().get_application(environ)
        return app


class Emulator:
    """The emulator's server and journal, in the process that runs it."""

    def __init__(self, port: int, data_dir: Path):
        moto_costs.install()
        sent_messages.install()  # for the outbox page, `GET /_local/sent.json`
        send_limits.install()  # SES_MAX_SEND_RATE, SES_MAX_24_HOUR_SEND, SMS_MAX_SEND_RATE
        self.journal = Journal(data_dir, _Dispatcher(create_backend_app), config.region())
        # Before the port is bound: a start that will be refused is refused before anything
        # listens (`JournalRefused`).
        self.journal.check()
        app = sent_messages.serving(self.journal)
        # `make run-regions` names the other region's emulator: every committed write is
        # shipped there, and its writes are applied here (`replication.py`).
        self.replicator = None
        peer = os.environ.get("REPLICATE_TO")
        if peer:
            self.replicator = Replicator(self.journal, config.region(), peer)
            self.journal.replicator = self.replicator
            app = replication.serving(app, self.journal, self.replicator)
        self.server = make_server(
            "127.0.0.1",
            port,
            app,
            threaded=True,
            request_handler=_RequestHandler,
        )
        self.thread = threading.Thread(
            target=self.server.serve_forever, name="emulator", daemon=True
        )

    def start(self) -> bool:
        """Serve, create the tables and queues, load the journal; True when data was found."""
        self.thread.start()
        create_resources()
        found = self.journal.recover()
        if self.replicator is not None:
            self.replicator.start()
        return found


def serve(port: int, data_dir: Path) -> None:
    """The emulator process: check the data directory and say so (or say why it is refused,
    and stop), then serve until the stack stops; its ready line says whether it found data."""

    def start(stopped) -> str:
        try:
            emulator = Emulator(port, data_dir)
        except JournalRefused as refused:
            # In place of the checked line: the stack's process says it and stops.
            print(refused.explained(), flush=True)
            os._exit(1)
        child.say_checked()
        return "data" if emulator.start() else "empty"

    child.serve_until_stopped(start)


def app_queues() -> list[str]:
    """The queues the app's `@app.on_sqs_message` functions read."""
    return [config.queue_name(short_name) for short_name in queues.ALL]


def create_resources() -> None:
    """Tables from the models, the app's queues, and a verified sender for SES."""
    create_queues_and_tables(app_queues())


def create_queue_with_dead_letters(sqs, queue: str) -> None:
    """The queue and its dead-letter queue, as `infra/generate.py` makes them on AWS: after
    `config.MAX_RECEIVES` failed receives a message moves there (moto moves it on the next
    receive), for `make admin ARGS="redrive --queue ..."` to send back."""
    dead_letters = sqs.create_queue(QueueName=config.dead_letter_queue_name(queue))["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dead_letters, AttributeNames=["QueueArn"])
    redrive = {
        "deadLetterTargetArn": arn["Attributes"]["QueueArn"],
        "maxReceiveCount": config.MAX_RECEIVES,
    }
    sqs.create_queue(
        QueueName=queue,
        Attributes={
            "RedrivePolicy": json.dumps(redrive),
            "VisibilityTimeout": str(config.local_visibility_seconds()),
        },
    )


def create_queues_and_tables(queue_names: list[str]) -> None:
    create_all()
    sqs = boto3.client("sqs", region_name=config.region())
    for queue in queue_names:
        create_queue_with_dead_letters(sqs, queue)
    boto3.client("ses", region_name=config.region()).verify_email_identity(
        EmailAddress=config.notifications_sender()
    )


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]))
