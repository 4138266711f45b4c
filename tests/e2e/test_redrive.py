"""A delivery that fails all its receives lands in the deliveries' dead-letter queue on the
local stack, as on AWS; `admin redrive` moves it back and prints counts, and the redelivered
message sends nothing twice: the recipient reached before is settled in the delivery claims.

The delivery fails because one of its two recipients is held by another delivery (a claim
under lease, as one that died mid-send leaves it): each receive reaches the free recipient
(the first time only) and raises `DeliveriesElsewhere` for the held one, so the message comes
back until its fifth receive. The lease then runs out; the redriven message reaches the held
recipient, and the first hears nothing more.
"""

import json
import time
import uuid

import pytest

from tests.e2e.stack import LocalStack, wait_for
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e

QUEUE = "statuspage-local-deliveries"
CLAIMS_TABLE = "statuspage-local-deliveries"


def _recipient(subscriber_id: str, endpoint: str) -> dict:
    return {
        "id": subscriber_id,
        "kind": "webhook",
        "endpoint": endpoint,
        "unsubscribe": f"https://status.example.com/unsubscribe/{subscriber_id}",
        "quarantinable": False,
    }


def test_a_failed_delivery_is_dead_lettered_then_redriven_without_sending_twice(tmp_path):
    stack = LocalStack(tmp_path / "data", LOCAL_VISIBILITY_SECONDS="1")
    with WebhookSink() as free, WebhookSink() as held:
        try:
            stack.start()
            owner = stack.admin("bootstrap")
            sqs, dynamodb = stack.emulator("sqs"), stack.emulator("dynamodb")
            event_id = uuid.uuid4().hex
            # Another delivery holds the second recipient, for longer than five receives take.
            held_claim = {"S": f"{event_id}#held"}
            dynamodb.put_item(
                TableName=CLAIMS_TABLE,
                Item={
                    "id": held_claim,
                    "outcome": {"S": "sending"},
                    "batch": {"S": "another-delivery"},
                    "lease_until": {"N": str(int(time.time()) + 600)},
                    "attempts": {"N": "0"},
                },
            )
            message = {
                "event_id": event_id,
                "page_id": owner["page_id"],
                "content": {"webhook": {"incident": {"name": "Database down"}}},
                "recipients": [
                    _recipient("free", free.url),
                    _recipient("held", held.url),
                ],
            }
            sqs.send_message(
                QueueUrl=sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"],
                MessageBody=json.dumps(message),
            )

            assert wait_for(lambda: stack.messages_in(f"{QUEUE}-dlq") == 1, timeout=90)
            assert stack.messages_in(QUEUE) == 0
            assert len(free.received) == 1 and held.received == []

            # The other delivery's lease runs out (it died): its recipient may be taken over.
            dynamodb.update_item(
                TableName=CLAIMS_TABLE,
                Key={"id": held_claim},
                UpdateExpression="SET lease_until = :past",
                ExpressionAttributeValues={":past": {"N": "0"}},
            )
            printed = stack.admin("redrive", "--queue", "deliveries")

            assert printed == {
                "redriven": [{"queue": "deliveries", "moved": 1, "left_in_dead_letters": 0}]
            }
            assert wait_for(lambda: len(held.received) == 1, timeout=30)
            assert wait_for(stack.queues_idle)  # no work is left that could send a second copy
        finally:
            stack.stop()
    assert len(free.received) == 1
    assert len(held.received) == 1
    assert held.received[0]["json"]["incident"] == {"name": "Database down"}
