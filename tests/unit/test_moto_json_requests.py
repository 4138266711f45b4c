"""The emulator reads a JSON request once per shape (`moto_json_requests`): for every request
the differential test generates, and for the SQS calls the service makes, what it reads is
exactly what moto's own walk of the shape reads, members moto does not model and nulls too."""

import base64
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto.core.parse import JSONParser
from moto.core.utils import get_service_model

from chalicelib.local import moto_json_requests
from tests.unit.test_moto_patches_differential import (
    deletes,
    puts,
    queries,
    transactions,
    updates,
)

OPERATIONS = {
    "put_item": "PutItem",
    "update_item": "UpdateItem",
    "delete_item": "DeleteItem",
    "transact_write_items": "TransactWriteItems",
    "query": "Query",
}


def read_both_ways(service: str, operation: str, request: dict) -> tuple:
    model = get_service_model(service).operation_model(operation)
    parser = JSONParser(model, map_type=dict)
    body = json.dumps(request).encode()
    moto_reads = parser._parse_shape(model.input_shape, parser._parse_body_as_json(body))
    read = moto_json_requests.reader(parser, model.input_shape)
    assert read is not None, f"{service} {operation} is read by moto's walk"
    return read(parser._parse_body_as_json(body)), moto_reads


def with_extras(request: dict) -> dict:
    """A binary value, a null, a member moto does not model, a number sent as a string."""
    extra = dict(request)
    extra["NotModelled"] = {"S": "dropped"}
    extra["ReturnConsumedCapacity"] = None
    if "Item" in extra:
        blob = base64.b64encode(b"\x00\x01binary").decode()
        extra["Item"] = {**extra["Item"], "b": {"B": blob}, "nested": {"M": {"x": {"NULL": True}}}}
    if "Limit" in extra:
        extra["Limit"] = str(extra["Limit"])
    return extra


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(operation=st.one_of(puts(), updates(), deletes(), transactions(), queries()))
def test_a_dynamodb_request_reads_as_moto_reads_it(operation):
    name, request = operation
    for sent in (request, with_extras(request)):
        ours, motos = read_both_ways("dynamodb", OPERATIONS[name], sent)
        assert ours == motos
        assert type(ours) is type(motos)


SQS_REQUESTS = [
    (
        "SendMessage",
        {
            "QueueUrl": "http://localhost/123456789012/q",
            "MessageBody": "{}",
            "DelaySeconds": 3,
            "MessageAttributes": {
                "kind": {"DataType": "String", "StringValue": "email"},
                "raw": {"DataType": "Binary", "BinaryValue": base64.b64encode(b"\xff").decode()},
            },
            "Unknown": 1,
        },
    ),
    (
        "SendMessageBatch",
        {
            "QueueUrl": "http://localhost/123456789012/q",
            "Entries": [{"Id": "1", "MessageBody": "a"}, {"Id": "2", "MessageBody": "b"}],
        },
    ),
    (
        "ReceiveMessage",
        {
            "QueueUrl": "http://localhost/123456789012/q",
            "MaxNumberOfMessages": 10,
            "WaitTimeSeconds": 20,
            "VisibilityTimeout": None,
            "MessageSystemAttributeNames": ["All"],
        },
    ),
    (
        "DeleteMessageBatch",
        {"QueueUrl": "q", "Entries": [{"Id": "1", "ReceiptHandle": "r"}]},
    ),
    ("ChangeMessageVisibility", {"QueueUrl": "q", "ReceiptHandle": "r", "VisibilityTimeout": 0}),
    ("GetQueueAttributes", {"QueueUrl": "q", "AttributeNames": ["All"]}),
    ("SetQueueAttributes", {"QueueUrl": "q", "Attributes": {"VisibilityTimeout": "30"}}),
]


def test_the_services_sqs_requests_read_as_moto_reads_them():
    for operation, request in SQS_REQUESTS:
        ours, motos = read_both_ways("sqs", operation, request)
        assert ours == motos, operation
