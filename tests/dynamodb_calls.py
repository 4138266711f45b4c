"""Records the DynamoDB operations made while a block runs (botocore's client layer)."""

from collections import Counter
from contextlib import contextmanager

import botocore.client


class CallLog:
    def __init__(self) -> None:
        self.operations: list[str] = []

    def count(self, operation: str | None = None) -> int:
        if operation is None:
            return len(self.operations)
        return self.operations.count(operation)

    def summary(self) -> Counter:
        return Counter(self.operations)


_active: list[CallLog] = []
_original = botocore.client.BaseClient._make_api_call


def _recording_call(self, operation_name, api_params):
    if self.meta.service_model.service_name == "dynamodb":
        for log in _active:
            log.operations.append(operation_name)
    return _original(self, operation_name, api_params)


botocore.client.BaseClient._make_api_call = _recording_call


@contextmanager
def recording():
    log = CallLog()
    _active.append(log)
    try:
        yield log
    finally:
        _active.remove(log)
