"""moto's SendMessage made to cost the message, not the queue.

To send one message, moto reads the queue's attributes (whether it deduplicates by content),
and builds all of them to do so, counting every message of the queue three times (waiting,
delayed, in flight): a fan-out of 100,000 subscribers on the local stack, ~2,000 delivery
messages into one queue, cost the square of that. While a queue sends, its counts are not
asked for (nothing of the send reads them): here they answer 0 then, and what any other call
reads (GetQueueAttributes) is counted as moto counts it.
"""

import threading
from collections.abc import Callable
from typing import Any

from moto.sqs.models import Queue, SQSBackend

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
    for name in COUNTS:
        replace(Queue, name, _uncounted_while_sending(getattr(Queue, name).fget))
