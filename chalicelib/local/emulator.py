"""moto's HTTP server as the embedded AWS: DynamoDB, SQS, SES and SNS on a loopback port."""

import boto3
from moto.server import ThreadedMotoServer

from chalicelib import config
from chalicelib.store.tables import create_all


def start(port: int) -> ThreadedMotoServer:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server


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
