"""No acknowledged write is lost, however the stack is stopped (continued from
`test_durability.py`, in a file of its own so that the two run on different workers): the
stack stops within two seconds, every DynamoDB attribute type survives a restart, and a
notification not yet delivered at a kill is delivered once after it."""

import signal
import time

import pytest

from tests.e2e.stack import LocalStack, wait_for
from tests.e2e.test_durability import STOPS, check, first_start_credentials
from tests.webhook_sink import WebhookSink

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_the_stack_stops_within_two_seconds(tmp_path, signal_name):
    stack = LocalStack(tmp_path / "data").start()
    began = time.monotonic()
    stack.process.send_signal(getattr(signal, signal_name))
    stack.process.wait(timeout=20)
    assert time.monotonic() - began <= 2.0


ATTRIBUTE_TYPES = {
    "name": {"S": "every-attribute-type"},
    "number": {"N": "-12.5"},
    "binary": {"B": bytes(range(256))},
    "strings": {"SS": ["a", "b"]},
    "numbers": {"NS": ["1", "2.5"]},
    "binaries": {"BS": [b"\x00\x01", b"\xff"]},
    "map": {"M": {"nested": {"L": [{"S": "x"}, {"N": "1"}, {"BOOL": False}]}}},
    "list": {"L": [{"NULL": True}, {"B": b"\x00"}, {"M": {}}]},
    "flag": {"BOOL": True},
    "nothing": {"NULL": True},
}


@pytest.mark.parametrize("stop", ["ctrl-c", "sigkill right after the last answer"])
def test_every_dynamodb_attribute_type_round_trips(tmp_path, stop):
    stack = LocalStack(tmp_path / "data").start()
    try:
        dynamodb = stack.emulator("dynamodb")
        table = "statuspage-local-claims"
        dynamodb.put_item(TableName=table, Item=ATTRIBUTE_TYPES)
        STOPS[stop](stack)
        stack.start()
        item = dynamodb.get_item(TableName=table, Key={"name": ATTRIBUTE_TYPES["name"]})["Item"]
    finally:
        stack.stop()
    assert {name: _comparable(value) for name, value in item.items()} == {
        name: _comparable(value) for name, value in ATTRIBUTE_TYPES.items()
    }


def _comparable(value: dict) -> dict:
    """Sets come back in any order."""
    ((kind, inner),) = value.items()
    return {kind: sorted(inner) if kind in ("SS", "NS", "BS") else inner}


def test_a_notification_not_yet_delivered_at_a_kill_is_delivered_once_after_restart(tmp_path):
    stack = LocalStack(tmp_path / "data")
    with WebhookSink() as sink:
        try:
            stack.start()
            owner = first_start_credentials(stack)
            pages = f"/v1/pages/{owner['page_id']}"
            check(
                stack.send(
                    "POST",
                    f"{pages}/subscribers",
                    owner["api_key"],
                    {"subscriber": {"endpoint": sink.url, "email": "hooks@example.com"}},
                ),
                201,
            )
            incident = check(
                stack.send(
                    "POST", f"{pages}/incidents", owner["api_key"], {"incident": {"name": "Down"}}
                ),
                201,
            )
            STOPS["sigkill right after the last answer"](stack)
            sent_before_the_kill = len(sink.received)

            stack.start()
            assert wait_for(lambda: len(sink.received) == 1, timeout=10)
            assert wait_for(stack.queues_idle)  # no work is left that could send a second copy
            assert len(sink.received) == 1
            STOPS["ctrl-c"](stack)
            stack.start()  # what was delivered and acknowledged is not sent again
            assert wait_for(stack.queues_idle)
        finally:
            stack.stop()
    assert sent_before_the_kill == 0  # the kill came before the delivery: the path under test
    assert len(sink.received) == 1
    assert sink.received[0]["json"]["incident"]["id"] == incident["id"]
