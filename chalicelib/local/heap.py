"""Garbage collection in the local stack's long-running processes.

Python's full collection walks every object the process holds. The emulator holds every
stored item as objects, and the API process its caches, so under `make load` a full
collection paused each process for up to 0.85 s, several times a minute: the whole tail of
the write latency. Objects that have lived through one full collection are the tables and
the caches, not garbage, so they are frozen (`gc.freeze`) and no later collection walks them
again; every `SETTLE_SECONDS` what has survived since is collected and frozen in turn, which
costs what was allocated meanwhile, not what the process holds.

A cycle that becomes garbage after being frozen is never freed: the objects frozen are the
stored items and the caches, which do not form cycles when they are dropped.
"""

import gc
import threading

SETTLE_SECONDS = 10.0
# Young collections are cheap; fewer of them, with more objects each, cost less in all.
YOUNG_THRESHOLD = 20_000


def settle_long_lived(stopped: threading.Event) -> None:
    """Freeze what the process holds now, and again every `SETTLE_SECONDS` until `stopped`."""
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    _collect_and_freeze()

    def settle() -> None:
        while not stopped.wait(SETTLE_SECONDS):
            _collect_and_freeze()

    threading.Thread(target=settle, name="heap-settle", daemon=True).start()


def _collect_and_freeze() -> None:
    gc.collect()  # walks only what is not frozen yet
    gc.freeze()
