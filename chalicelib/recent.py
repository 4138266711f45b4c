"""What a process read or made last, kept for the next request: a bounded map that forgets
the oldest entry first, safe across the threads of the local server (a warm Lambda instance
keeps it between its requests in the same way)."""

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class Recent(Generic[Key, Value]):
    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[Key, Value] = OrderedDict()
        self._guard = threading.Lock()

    def get(self, key: Key) -> Value | None:
        with self._guard:
            return self._entries.get(key)

    def put(self, key: Key, value: Value) -> None:
        with self._guard:
            self._entries[key] = value
            self._entries.move_to_end(key)
            if len(self._entries) > self.size:
                self._entries.popitem(last=False)
