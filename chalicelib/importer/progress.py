"""Progress of an import on stderr: what was read, what was written, and how long is left.

Reading goes at the source's pace (a request a second by default), so its estimate counts the
requests still to make for the lists it knows the length of; writing estimates from the
average time an item took so far.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

# At most one progress line a second, however fast items go.
EVERY_SECONDS = 1.0


class Progress:
    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.read: dict[str, int] = {}
        self.written: dict[str, int] = {}
        self.done: dict[str, int] = {}
        # What was left out and why, for the summary: {"kind", "id" (the source's), "why"}.
        self.skipped_items: list[dict[str, str]] = []
        self._started = time.monotonic()
        self._writing_started: float | None = None
        self._last_line = 0.0

    def say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def has_read(self, kind: str, number: int) -> None:
        self.read[kind] = number
        self.say(f"read {kind}: {number}")

    def start_writing(self) -> None:
        self._writing_started = time.monotonic()
        total = sum(self.read.values())
        self.say(f"writing {total} items into our page")

    def item(self, kind: str, written: bool) -> None:
        self.items(kind, 1, int(written))

    def items(self, kind: str, done: int, written: int) -> None:
        """`done` things of `kind` handled, `written` of them written (data points go by
        the thousand)."""
        if kind not in self.done:
            self.say(f"writing {kind}: {self.read.get(kind, 0)}")
        self.done[kind] = self.done.get(kind, 0) + done
        if written:
            self.written[kind] = self.written.get(kind, 0) + written
        now = time.monotonic()
        if now - self._last_line >= EVERY_SECONDS:
            self._last_line = now
            self.say(self.line())

    def skipped(self, kind: str, source_id: str, why: str) -> None:
        """A thing of `kind` read and not written (or, in a dry run, that would not be): said
        now and kept for the summary."""
        self.skipped_items.append({"kind": kind, "id": source_id, "why": why})
        self.say(f"{kind} {source_id} skipped: {why}")

    def left_seconds(self) -> float | None:
        done = sum(self.done.values())
        if not done or self._writing_started is None:
            return None
        remaining = sum(self.read.values()) - done
        return (time.monotonic() - self._writing_started) / done * max(remaining, 0)

    def line(self) -> str:
        counts = ", ".join(
            f"{kind} {self.done.get(kind, 0)}/{number}" for kind, number in self.read.items()
        )
        left = self.left_seconds()
        return counts + ("" if left is None else f"; about {left:.0f} s left")

    def summary(self) -> dict:
        skipped = Counter(item["kind"] for item in self.skipped_items)
        return {
            kind: {"read": number, "written": self.written.get(kind, 0)}
            | ({"skipped": skipped[kind]} if skipped[kind] else {})
            for kind, number in self.read.items()
        }
