"""One fresh Lambda instance, run as its own interpreter by `test_cold_start.py`.

    python lambda_instance.py seed
        makes the tables, queues, a page with a subscriber and an incident on the emulator at
        `AWS_ENDPOINT_URL`; prints what the entry points need (a key, an event, a batch)
    python lambda_instance.py MODULE [ENTRY CASE_JSON]
        times `import MODULE` and, given an entry point, its first and second invocation;
        prints the seconds and the modules loaded

The working directory is the one holding MODULE (the project, or the bare app's folder).
"""

import importlib
import json
import os
import sys
import time
import uuid


def seed() -> dict:
    import boto3

    from chalicelib import config
    from chalicelib.admin import bootstrap
    from chalicelib.domain import incidents, subscribers
    from chalicelib.local.emulator import create_resources
    from chalicelib.notify import fanout, queues
    from chalicelib.store.models import Page

    create_resources()
    boto3.client("ses").verify_email_identity(EmailAddress=config.notifications_sender())
    world = bootstrap("Bench", "Bench status")
    page = Page.get(world["page_id"])
    subscriber = subscribers.SubscriberInput(
        email="reader@example.com", skip_confirmation_notification=True
    )
    subscribers.create(page, subscriber)
    fields = incidents.IncidentInput(
        name="Slow answers", status="investigating", body="Looking", deliver_notifications=True
    )
    incidents.create_incident(page.id, fields)
    event_id = _received(queues.NOTIFICATIONS)["event_id"]
    fanout.fan_out(event_id)
    return {
        "api_key": world["api_key"],
        "page_id": page.id,
        "event_id": event_id,
        "batch": _received(queues.DELIVERIES),
    }


def _received(short_name: str) -> dict:
    """The body of one message waiting on the app's queue `short_name` (taken off it)."""
    import boto3

    from chalicelib import config

    sqs = boto3.client("sqs")
    url = sqs.get_queue_url(QueueName=config.queue_name(short_name))["QueueUrl"]
    (message,) = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return json.loads(message["Body"])


# Each entry point's invocation, as Lambda hands it the event. Every call does the same work:
# a delivery gets a new event id each time, so its claims are new and it sends again.
def _api(client, case: dict) -> None:
    path = f"/v1/pages/{case['page_id']}/incidents"
    answer = client.http.get(path, headers={"Authorization": f"OAuth {case['api_key']}"})
    assert answer.status_code == 200, answer.body


def _fan_out(client, case: dict) -> None:
    body = json.dumps({"event_id": case["event_id"]})
    event = client.events.generate_sqs_event(message_bodies=[body], queue_name="notifications")
    client.lambda_.invoke("fan_out_notifications", event)


def _deliver(client, case: dict) -> None:
    body = json.dumps({**case["batch"], "event_id": uuid.uuid4().hex})
    event = client.events.generate_sqs_event(message_bodies=[body], queue_name="deliveries")
    client.lambda_.invoke("deliver_notifications", event)


def _schedule(client, case: dict) -> None:
    event = client.events.generate_cw_event(
        source="aws.events", detail_type="Scheduled Event", detail={}, resources=[]
    )
    client.lambda_.invoke("every_minute", event)


ENTRY_POINTS = {"API": _api, "fan-out": _fan_out, "delivery": _deliver, "schedule": _schedule}


def cold_start(module_name: str, entry: str | None, case: dict) -> dict:
    started = time.perf_counter()
    module = importlib.import_module(module_name)
    timed = {"import": time.perf_counter() - started, "modules": sorted(sys.modules)}
    if entry:
        from chalice.test import Client  # the harness standing in for Lambda: not timed

        with Client(module.app, stage_name="prod") as client:
            for call in ("first", "second"):
                started = time.perf_counter()
                ENTRY_POINTS[entry](client, case)
                timed[call] = time.perf_counter() - started
    return timed


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())  # the script's own folder comes first otherwise
    if sys.argv[1] == "seed":
        print(json.dumps(seed()))
    else:
        entry, case = (sys.argv[2], json.loads(sys.argv[3])) if len(sys.argv) > 2 else (None, {})
        print(json.dumps(cold_start(sys.argv[1], entry, case)))
