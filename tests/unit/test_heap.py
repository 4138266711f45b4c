"""The local stack's collector settings: frozen objects are collected again in the full pass."""

import gc
import threading
import weakref

from chalicelib.local import heap
from tests.e2e.stack import wait_for


class _Cycle:
    def __init__(self):
        self.me = self


def test_frozen_cycles_are_freed_by_the_full_pass(monkeypatch):
    monkeypatch.setattr(heap, "SETTLE_SECONDS", 0.05)
    monkeypatch.setattr(heap, "FULL_PASS_EVERY", 10)  # the full pass after 0.5 s
    thresholds = gc.get_threshold()
    stopped = threading.Event()
    settler = None
    try:
        cycle = _Cycle()
        alive = weakref.ref(cycle)
        settler = heap.settle_long_lived(stopped)
        assert gc.get_freeze_count() > 0
        del cycle  # garbage now, but frozen: a collection of the young ones leaves it
        gc.collect()
        assert alive() is not None
        assert wait_for(lambda: alive() is None, timeout=5)  # the full pass frees it
    finally:
        stopped.set()
        if settler is not None:
            settler.join()
        gc.unfreeze()
        gc.set_threshold(*thresholds)
