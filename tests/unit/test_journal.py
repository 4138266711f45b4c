"""The local emulator's journal, at its WSGI boundary, across simulated restarts.

Each test talks to moto's own app in a region no other test uses, and "restarts" by emptying
that region (as a new emulator process starts empty) before a new journal recovers.
"""

import json

import pytest
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.test import Client

from chalicelib.local import journal as journal_module
from chalicelib.local.journal import DYNAMODB, SQS, Journal, aws_headers

REGION = "eu-north-1"
TABLE = "journal-test"
QUEUE = "journal-test"
MOTO = DomainDispatcherApplication(create_backend_app)


def call(app, service: str, target: str, payload: dict) -> dict:
    answer = Client(app).post(
        "/", data=json.dumps(payload), headers=aws_headers(REGION, service, target)
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return json.loads(answer.get_data() or b"{}")


def dynamodb(app, action: str, **payload) -> dict:
    return call(app, "dynamodb", f"{DYNAMODB}.{action}", payload)


def sqs(app, action: str, **payload) -> dict:
    return call(app, "sqs", f"{SQS}.{action}", payload)


def fresh_emulator() -> None:
    """What a new emulator process has: the table and the queue, both empty."""
    if TABLE in dynamodb(MOTO, "ListTables").get("TableNames", []):
        dynamodb(MOTO, "DeleteTable", TableName=TABLE)
    dynamodb(
        MOTO,
        "CreateTable",
        TableName=TABLE,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    url = sqs(MOTO, "CreateQueue", QueueName=QUEUE)["QueueUrl"]
    sqs(MOTO, "DeleteQueue", QueueUrl=url)
    sqs(MOTO, "CreateQueue", QueueName=QUEUE)


def start(directory) -> Journal:
    fresh_emulator()
    journal = Journal(directory, MOTO, REGION)
    journal.recover()
    return journal


def items(app=MOTO) -> dict[str, dict]:
    found = dynamodb(app, "Scan", TableName=TABLE)["Items"]
    return {item["id"]["S"]: item for item in found}


def test_a_restart_replays_every_acknowledged_write_in_order(tmp_path):
    journal = start(tmp_path)
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": "a"}, "n": {"N": "1"}})
    dynamodb(
        journal,
        "UpdateItem",
        TableName=TABLE,
        Key={"id": {"S": "a"}},
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": "b"}, "b": {"B": "AAE="}})
    dynamodb(journal, "DeleteItem", TableName=TABLE, Key={"id": {"S": "b"}})
    start(tmp_path)
    assert items() == {"a": {"id": {"S": "a"}, "n": {"N": "2"}}}


def test_a_refused_write_is_not_logged(tmp_path):
    journal = start(tmp_path)
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": "a"}, "n": {"N": "1"}})
    refused = Client(journal).post(
        "/",
        data=json.dumps(
            {
                "TableName": TABLE,
                "Item": {"id": {"S": "a"}, "n": {"N": "9"}},
                "ConditionExpression": "attribute_not_exists(id)",
            }
        ),
        headers=aws_headers(REGION, "dynamodb", f"{DYNAMODB}.PutItem"),
    )
    assert refused.status_code == 400
    start(tmp_path)
    assert items()["a"]["n"] == {"N": "1"}


def test_a_torn_last_record_is_skipped(tmp_path):
    journal = start(tmp_path)
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": "kept"}})
    with open(journal._log_path(journal.generation), "a") as log:
        log.write('{"dynamodb": "PutItem", "region": "eu-n')  # died mid-write
    start(tmp_path)
    assert set(items()) == {"kept"}


def test_compaction_keeps_everything_and_drops_the_logs_it_covers(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "COMPACT_AFTER", 3)
    journal = start(tmp_path)
    for number in range(7):
        dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": f"item-{number}"}})
    assert len(list(tmp_path.glob("journal-*.log"))) == 1
    assert journal.generation == 3  # the start made log 1; 3 records later log 2, then 3
    start(tmp_path)
    assert set(items()) == {f"item-{number}" for number in range(7)}


def test_compactions_come_as_far_apart_as_the_data_is_large(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "COMPACT_AFTER", 3)
    journal = start(tmp_path)
    for number in range(10):
        dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": f"item-{number}"}})
    # Compacted after 3 records (3 items stored), 3 more (6 items), then 6 more (12 items).
    assert journal.generation == 3 and journal.compact_after == 6 and journal.records == 4
    for number in range(10, 12):
        dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": f"item-{number}"}})
    assert journal.generation == 4 and journal.compact_after == 12
    start(tmp_path)
    assert set(items()) == {f"item-{number}" for number in range(12)}


def test_messages_not_deleted_come_back_and_deleted_ones_do_not(tmp_path):
    journal = start(tmp_path)
    url = sqs(journal, "GetQueueUrl", QueueName=QUEUE)["QueueUrl"]
    sqs(journal, "SendMessage", QueueUrl=url, MessageBody="handled")
    sqs(
        journal,
        "SendMessageBatch",
        QueueUrl=url,
        Entries=[
            {"Id": "1", "MessageBody": "pending one"},
            {"Id": "2", "MessageBody": "pending two"},
        ],
    )
    received = sqs(journal, "ReceiveMessage", QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    handled = next(message for message in received if message["Body"] == "handled")
    sqs(journal, "DeleteMessage", QueueUrl=url, ReceiptHandle=handled["ReceiptHandle"])

    start(tmp_path)
    url = sqs(MOTO, "GetQueueUrl", QueueName=QUEUE)["QueueUrl"]
    again = sqs(MOTO, "ReceiveMessage", QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(message["Body"] for message in again) == ["pending one", "pending two"]


@pytest.fixture(autouse=True, scope="module")
def _leave_the_region_empty():
    yield
    dynamodb(MOTO, "DeleteTable", TableName=TABLE)
    sqs(MOTO, "DeleteQueue", QueueUrl=sqs(MOTO, "GetQueueUrl", QueueName=QUEUE)["QueueUrl"])
