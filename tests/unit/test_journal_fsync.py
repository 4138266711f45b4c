"""When the journal's writes reach the disk (`JOURNAL_FSYNC`): before each answer by default,
one fsync shared by every write waiting at that moment; or every `JOURNAL_FSYNC_SECONDS`.

os.fsync is wrapped to note which file it synced and how long that file was, and to take as
long as a slow disk does, so that writers pile up behind it."""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.local.journal import Journal
from chalicelib.local.journal_files import JournalRefused
from tests.unit.test_journal import MOTO, REGION, TABLE, dynamodb, items, start

WRITERS = 16
SLOW_DISK_SECONDS = 0.05


class Disk:
    """os.fsync, noting `(path, bytes the file held)` for each fsync once it returned."""

    def __init__(self, monkeypatch, delay: float = 0.0):
        self.synced: list[tuple[str, int]] = []
        self.delay = delay
        self.working = threading.Event()
        self.working.set()
        self._real = os.fsync
        self._lock = threading.Lock()
        monkeypatch.setattr(os, "fsync", self.fsync)

    def fsync(self, descriptor: int) -> None:
        path = os.readlink(f"/proc/self/fd/{descriptor}")
        size = os.fstat(descriptor).st_size
        # A hanging disk, but never for good: a wrong policy fails the test, not the suite.
        self.working.wait(timeout=10)
        time.sleep(self.delay)
        self._real(descriptor)
        with self._lock:
            self.synced.append((path, size))

    def of_log(self, journal: Journal) -> list[int]:
        """The sizes the open log had at each of its fsyncs."""
        log = str(journal._log_path(journal.generation))
        with self._lock:
            return [size for path, size in self.synced if path == log]


def put(journal: Journal, item_id: str) -> None:
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": item_id}})


def test_concurrent_writes_share_fsyncs_and_each_is_on_disk_before_its_answer(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("JOURNAL_FSYNC", raising=False)  # the default: always
    journal = start(tmp_path)
    disk = Disk(monkeypatch, delay=SLOW_DISK_SECONDS)
    log = journal._log_path(journal.generation)
    together = threading.Barrier(WRITERS)
    unsynced_at_answer: list[str] = []

    def write(number: int) -> None:
        item_id = f"writer-{number:02d}"
        together.wait()
        put(journal, item_id)
        synced = max(disk.of_log(journal), default=0)
        if item_id.encode() not in log.read_bytes()[:synced]:
            unsynced_at_answer.append(item_id)

    with ThreadPoolExecutor(WRITERS) as writers:
        list(writers.map(write, range(WRITERS)))

    assert unsynced_at_answer == []
    assert 1 <= len(disk.of_log(journal)) < WRITERS
    start(tmp_path)
    assert len(items()) == WRITERS


def test_a_lone_write_waits_for_its_own_fsync(tmp_path, monkeypatch):
    monkeypatch.setenv("JOURNAL_FSYNC", "always")
    journal = start(tmp_path)
    disk = Disk(monkeypatch)
    put(journal, "first")
    put(journal, "second")
    sizes = disk.of_log(journal)
    assert len(sizes) == 2 and sizes[-1] == journal._log_path(journal.generation).stat().st_size


def test_under_interval_writes_are_answered_before_the_fsync_that_follows_within_seconds(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("JOURNAL_FSYNC", "interval")
    monkeypatch.setenv("JOURNAL_FSYNC_SECONDS", "0.2")
    journal = start(tmp_path)
    disk = Disk(monkeypatch)
    disk.working.clear()  # a disk that hangs: writes are answered all the same
    for number in range(5):
        put(journal, f"item-{number}")
    assert disk.of_log(journal) == []
    disk.working.set()
    log_size = journal._log_path(journal.generation).stat().st_size
    deadline = time.monotonic() + 3
    while max(disk.of_log(journal), default=0) < log_size and time.monotonic() < deadline:
        time.sleep(0.05)
    assert max(disk.of_log(journal), default=0) == log_size


def test_a_new_log_after_a_compaction_is_fsynced_with_its_directory_entry(tmp_path, monkeypatch):
    monkeypatch.delenv("JOURNAL_FSYNC", raising=False)
    journal = start(tmp_path)
    journal.compact_after = 2
    put(journal, "item-0")
    put(journal, "item-1")  # its log is covered by the snapshot the compaction wrote
    assert journal.generation == 2
    disk = Disk(monkeypatch)
    put(journal, "item-2")
    put(journal, "item-3")
    log = str(journal._log_path(journal.generation))
    assert [path for path, _ in disk.synced] == [log, str(tmp_path), log]
    start(tmp_path)
    assert len(items()) == 4


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("JOURNAL_FSYNC", "sometimes"),
        ("JOURNAL_FSYNC_SECONDS", "0"),
        ("JOURNAL_FSYNC_SECONDS", "soon"),
    ],
)
def test_a_setting_out_of_its_values_stops_the_start_and_names_itself(
    tmp_path, monkeypatch, name, value
):
    monkeypatch.setenv("JOURNAL_FSYNC", "interval")
    monkeypatch.setenv(name, value)
    with pytest.raises(JournalRefused, match=name):
        Journal(tmp_path, MOTO, REGION)
