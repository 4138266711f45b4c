"""moto's HTTP server as the embedded AWS (DynamoDB, SQS, SES, SNS) on a loopback port, with
the journal at its boundary so that what it acknowledged survives a restart."""

import io
import threading
from pathlib import Path

import boto3
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

from chalicelib import config
from chalicelib.local import moto_costs
from chalicelib.local.journal import Journal
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


class Emulator:
    def __init__(self, port: int, data_dir: Path):
        moto_costs.install()
        self.journal = Journal(
            data_dir, DomainDispatcherApplication(create_backend_app), config.region()
        )
        self.server = make_server(
            "127.0.0.1", port, self.journal, threaded=True, request_handler=_RequestHandler
        )
        self.thread = threading.Thread(
            target=self.server.serve_forever, name="emulator", daemon=True
        )

    def start(self, app) -> bool:
        """Serve, create what the app needs, load the journal; True when data was found."""
        self.thread.start()
        create_resources(app)
        return self.journal.recover()


def declared_queues(app) -> list[str]:
    """The queues the app's `@app.on_sqs_message` functions read: the one list there is."""
    return [source.queue for source in app.event_sources if getattr(source, "queue", None)]


def create_resources(app) -> None:
    """Tables from the models, queues from the app, and a verified sender for SES."""
    create_all()
    sqs = boto3.client("sqs", region_name=config.region())
    for queue in declared_queues(app):
        sqs.create_queue(QueueName=queue)
    boto3.client("ses", region_name=config.region()).verify_email_identity(
        EmailAddress=config.notifications_sender()
    )
