"""moto's SendMessage and ReceiveMessage made to cost the messages, not the queue.

To send one message, moto reads the queue's attributes (whether it deduplicates by content),
and builds all of them to do so, counting every message of the queue three times (waiting,
delayed, in flight): a fan-out of 100,000 subscribers on the local stack, ~2,000 delivery
messages into one queue, cost the square of that. While a queue sends, its counts are not
asked for (nothing of the send reads them): here they answer 0 then, and what any other call
reads (GetQueueAttributes) is counted as moto counts it.

To hand over each message it receives, moto checks the message's retention against the
queue's, and reads that by building all of the queue's attributes three times: nine counts of
every message of the queue per message received. When the page's publishes fell behind a
burst of writes (1,344 requests waiting on the publish queue at 2,000 incidents created back
to back), each batch of 10 cost the emulator 120,000 looks, growing with the backlog that
slowed it. Here the retention is read from the queue itself.
"""

import threading
from collections.abc import Callable
from typing import Any

from moto.core.utils import unix_time
from moto.sqs.models import Message, Queue, SQSBackend

COUNTS = (
    "approximate_number_of_messages",
    "approximate_number_of_messages_delayed",
    "approximate_number_of_messages_not_visible",
)
_sending = threading.local()


def _uncounted_while_sending(count: Callable[[Queue], int]) -> property:
    def counted(queue: Queue) -> int:
        if getattr(_sending, "queue", None) is queue:
            return 0
        return count(queue)

    return property(counted)


def install(replace: Callable[[Any, str, Any], None]) -> None:
    """Through `replace(owner, name, value)`, which keeps moto's own to put back."""
    moto_send_message = SQSBackend.send_message

    def send_message(self, queue_name: str, *args, **kwargs):
        _sending.queue = self.get_queue(queue_name)  # moto's first step, and its error
        try:
            return moto_send_message(self, queue_name, *args, **kwargs)
        finally:
            _sending.queue = None

    replace(SQSBackend, "send_message", send_message)

    def is_message_valid_based_on_retention_period(self, queue_name: str, message: Message) -> bool:
        retention = self.get_queue(queue_name).message_retention_period
        return retention + message.sent_timestamp / 1000 > unix_time()

    replace(
        SQSBackend,
        "is_message_valid_based_on_retention_period",
        is_message_valid_based_on_retention_period,
    )
    for name in COUNTS:
        replace(Queue, name, _uncounted_while_sending(getattr(Queue, name).fget))
