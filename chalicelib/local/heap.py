"""Garbage collection in the local stack's long-running processes.

Python's full collection walks every object the process holds. The emulator holds every
stored item as objects, and the API process its caches, so under `make load` a full
collection paused each process for up to 0.85 s, several times a minute: the whole tail of
the write latency. Objects that have lived through one full collection are the tables and
the caches, not garbage, so they are frozen (`gc.freeze`) and no later collection walks them
again; every `SETTLE_SECONDS` what has survived since is collected and frozen in turn, which
costs what was allocated meanwhile, not what the process holds.

Some of what is frozen is a request in flight, and part of that becomes cyclic garbage once
it ends, which no collection of the frozen objects frees (measured: about 3,000 objects a
minute in the API process under `make load`). So every `FULL_PASS_EVERY` settles the frozen
objects are collected once more with everything else: one pause of up to a second, every
ten minutes, keeps a stack that runs for weeks at the memory its data needs.
"""

import gc
import threading

# Often enough that a settle walks little: right after start, when the first requests fill
# the caches and load the SDK's models, a settle 10 s apart took up to half a second.
SETTLE_SECONDS = 2.0
FULL_PASS_EVERY = 300
# Young collections are cheap; fewer of them, with more objects each, cost less in all.
YOUNG_THRESHOLD = 20_000


def settle_long_lived(stopped: threading.Event) -> threading.Thread:
    """Freeze what the process holds now, and again every `SETTLE_SECONDS` until `stopped`."""
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    _collect_and_freeze()

    def settle() -> None:
        settled = 0
        while not stopped.wait(SETTLE_SECONDS):
            settled += 1
            if settled % FULL_PASS_EVERY == 0:
                gc.unfreeze()
            _collect_and_freeze()

    settler = threading.Thread(target=settle, name="heap-settle", daemon=True)
    settler.start()
    return settler


def _collect_and_freeze() -> None:
    gc.collect()  # walks only what is not frozen
    gc.freeze()
