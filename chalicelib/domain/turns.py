"""Writers of one item in one process take turns instead of racing for it.

Two requests of one process changing the same component would both read it, and the second
commit would lose the race and run again from fresh reads; on a busy local stack each such
run waits its turn for the processor again, and a dozen lost races in a row end in a 409 the
client did nothing to deserve. Taking turns, the second reads what the first wrote. Between
processes (Lambda instances) the unit of work's retries still order the writers.
"""

import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

# Keys share this many locks: memory stays bounded however many items there are.
STRIPES = 64
_locks = [threading.Lock() for _ in range(STRIPES)]
_holding = threading.local()


@contextmanager
def taken(key: str) -> Iterator[None]:
    """The turn of `key` in this process. A thread takes one turn at a time: a nested call
    runs inside the turn it holds, so two threads can never wait on each other."""
    if getattr(_holding, "turn", False):
        yield
        return
    with _locks[zlib.crc32(key.encode()) % STRIPES]:
        _holding.turn = True
        try:
            yield
        finally:
            _holding.turn = False
