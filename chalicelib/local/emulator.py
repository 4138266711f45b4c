"""moto's HTTP server as the embedded AWS (DynamoDB, SQS, SES, SNS) on a loopback port, with
the journal at its boundary so that what it acknowledged survives a restart."""

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
from chalicelib.local import transactions
from chalicelib.local.journal import Journal
from chalicelib.notify import email
from chalicelib.store.tables import create_all


class Emulator:
    def __init__(self, port: int, data_dir: Path):
        transactions.install()
        self.journal = Journal(
            data_dir, DomainDispatcherApplication(create_backend_app), config.region()
        )
        self.server = make_server(
            "127.0.0.1", port, self.journal, threaded=True, request_handler=MotoRequestHandler
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
    email.create_notification_template()
