"""Records the DynamoDB operations made while a block runs, and the items each read
(botocore's client layer)."""

from collections import Counter
from contextlib import contextmanager

import botocore.client


class CallLog:
    def __init__(self) -> None:
        self.operations: list[str] = []
        # Items each call read (returned, or examined by a filter), in call order.
        self.items: list[int] = []

    def count(self, operation: str | None = None) -> int:
        if operation is None:
            return len(self.operations)
        return self.operations.count(operation)

    def summary(self) -> Counter:
        return Counter(self.operations)

    def items_read(self) -> int:
        return sum(self.items)


_active: list[CallLog] = []
_original = botocore.client.BaseClient._make_api_call


def _items_in(answer: dict) -> int:
    if "ScannedCount" in answer:
        return answer["ScannedCount"]
    if "Item" in answer:
        return 1
    if "Responses" in answer:
        responses = answer["Responses"]
        if isinstance(responses, list):  # TransactGetItems: one entry per item asked for
            return sum(1 for entry in responses if entry.get("Item"))
        return sum(len(items) for items in responses.values())
    return 0


def _recording_call(self, operation_name, api_params):
    if self.meta.service_model.service_name != "dynamodb":
        return _original(self, operation_name, api_params)
    answer = {}
    try:
        answer = _original(self, operation_name, api_params)
        return answer
    finally:  # a call DynamoDB refused (a cancelled transaction, say) was made all the same
        for log in _active:
            log.operations.append(operation_name)
            log.items.append(_items_in(answer))


botocore.client.BaseClient._make_api_call = _recording_call


@contextmanager
def recording():
    log = CallLog()
    _active.append(log)
    try:
        yield log
    finally:
        _active.remove(log)
