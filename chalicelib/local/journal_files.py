"""The journal's files: what each holds, how each byte is checked, how they are written.

Files in the data directory (0700; every file 0600: they hold the webhook and signing secrets):

- `snapshot.json`: `covers`, the last log generation it includes, then the tables and messages.
- `journal-<generation>.log`: one JSON record a line; its first line is a header naming the
  snapshot it follows (`follows`, and that snapshot's checksum).
- `journal.lock`: held by the running emulator, so that `repair` never works under it.

Every record and the snapshot begin `{"crc32": "<8 hex digits>", ` and the checksum covers the
bytes after that prefix: still one JSON object, and no byte can change unseen. Files written
before checksums existed are read as they are (legacy) and rewritten sealed at the next start.

The bytes after the last newline of the newest log are a write that never finished, so never
acknowledged: skipped, with a warning. Anything else (a record whose checksum fails, bytes
that are not JSON, a snapshot that is missing while logs follow it or is not the one the log
names) raises `JournalDamage`, naming the file and the byte offset (docs/local-data.md).

When a logged write reaches the disk is `JOURNAL_FSYNC`'s choice (`FsyncPolicy`, `LogSync`):
`always` (the default) fsyncs the log before the write is answered, one fsync for every write
waiting at that moment (group commit); `interval` answers once the write is in the log file
and fsyncs every `JOURNAL_FSYNC_SECONDS`, so a power loss (not a crash: the file survives the
process) loses at most the writes answered in that window.
"""

import fcntl
import json
import logging
import os
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

SNAPSHOT = "snapshot.json"
# Written by the stack before the journal existed: the tables only, loaded once if found.
LEGACY_SNAPSHOT = "dynamodb.json"
LOCK = "journal.lock"
# A new emulator may start while the one it replaces is still dying.
LOCK_WAIT_SECONDS = 10.0
PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600
# `{"crc32": "<8 hex digits>", ` then the rest of the JSON object, the bytes the checksum covers.
SEAL = b'{"crc32": "'
SEALED = len(SEAL) + 8 + len(b'", ')
REPAIR_COMMAND = 'make admin ARGS="repair-journal"'


class JournalRefused(Exception):
    """The journal will not start: better no stack than a wrong one."""

    advice = ""

    def explained(self) -> str:
        """What stopped the start and what to do: one line, for `make run` to print."""
        return f"{self}. {self.advice}" if self.advice else str(self)


class JournalBusy(JournalRefused):
    """Another process (a running stack) holds the data directory."""


class JournalDamage(JournalRefused):
    """A file of the data directory cannot be trusted: `path`, and for a log the line and the
    byte offset where the damage begins."""

    advice = (
        "The stack changed nothing. To start without the damaged part, "
        f"`{REPAIR_COMMAND}` keeps a copy of the damaged files, drops the damaged record and "
        "every one after it, and lists them (docs/local-data.md)."
    )

    def __init__(self, path: Path, reason: str, offset: int | None = None, line: int = 0):
        self.path = path
        self.offset = offset
        where = str(path) if offset is None else f"{path}, line {line} at byte {offset}"
        super().__init__(f"{where}: {reason}")


@dataclass
class Stored:
    """What the data directory holds, every byte checked: the snapshot and the records logged
    after it, in order."""

    snapshot: dict
    records: list[dict]
    generation: int  # the newest log's (or the snapshot's, when no log follows it)


def read_stored(directory: Path, region: str = "us-east-1") -> Stored:
    """The snapshot and the records logged after it. Raises `JournalDamage` at the first file
    or record that cannot be trusted; only a torn tail of the newest log is skipped (logged).
    `region` is the one a legacy `dynamodb.json`'s tables were in."""
    snapshot, checksum = _read_snapshot(directory, region)
    covers = snapshot.get("covers", 0)
    logs = [(generation, path) for generation, path in log_files(directory) if generation > covers]
    if logs and not (directory / SNAPSHOT).exists():
        # Every start writes the snapshot before it opens a log: a log without one follows a
        # snapshot that was lost, and replaying it on nothing would serve a fraction of the data.
        raise JournalDamage(
            directory / SNAPSHOT,
            f"is missing, yet {logs[0][1].name} follows a snapshot: the organizations, keys and "
            "pages it held would be lost",
        )
    records: list[dict] = []
    for generation, path in logs:
        newest = generation == logs[-1][0]
        records.extend(_log_records(path, covers, checksum, newest))
    return Stored(snapshot, records, max([covers, *(generation for generation, _ in logs)]))


def _read_snapshot(directory: Path, region: str) -> tuple[dict, str | None]:
    """The snapshot and its checksum (None if written before checksums, or if there is none)."""
    path = directory / SNAPSHOT
    if path.exists():
        data = path.read_bytes()
        try:
            if data.startswith(SEAL):
                return _unseal(data), checksum_of(data)
            return _parse(data), None
        except ValueError as error:
            raise JournalDamage(path, str(error)) from None
    legacy = directory / LEGACY_SNAPSHOT
    if legacy.exists():
        # The old format held the tables as boto3 returned them: no binary attributes.
        try:
            return {"tables": {region: _parse(legacy.read_bytes())}}, None
        except ValueError as error:
            raise JournalDamage(legacy, str(error)) from None
    return {}, None


def _log_records(path: Path, covers: int, checksum: str | None, newest: bool) -> Iterator[dict]:
    """The records of one log, after its header."""
    data = path.read_bytes()
    *lines, tail = data.split(b"\n")
    # A log written with checksums has them on every line; one without is legacy.
    sealed = SEAL in data
    offset = 0
    for number, line in enumerate(lines, 1):
        try:
            record = _unseal(line) if sealed else _parse(line)
        except ValueError as error:
            raise JournalDamage(path, str(error), offset, number) from None
        if sealed and number == 1:
            _check_header(path, record, covers, checksum)
        else:
            yield record
        offset += len(line) + 1
    if not tail:
        return
    if not newest:
        raise JournalDamage(
            path,
            "it ends in the middle of a record, yet a later log follows",
            offset,
            len(lines) + 1,
        )
    # The process stopped mid-write (or the machine, before the write reached the disk): that
    # write was never acknowledged.
    logger.warning(
        "%s ends with a torn record at byte %d (%d bytes, a write never acknowledged): "
        "skipped; the %d records before it are kept",
        path,
        offset,
        len(tail),
        len(lines) - (1 if sealed and lines else 0),
    )


def _check_header(path: Path, header: dict, covers: int, checksum: str | None) -> None:
    if "follows" not in header:
        raise JournalDamage(path, "its first record is not the log's header", 0, 1)
    if header["follows"] != covers or header.get("snapshot") != checksum:
        raise JournalDamage(
            path,
            f"it follows the snapshot that covers generation {header['follows']} (checksum "
            f"{header.get('snapshot')}), but {SNAPSHOT} covers {covers} (checksum {checksum}): "
            "the snapshot is not the one this log was written after",
            0,
            1,
        )


def log_files(directory: Path) -> list[tuple[int, Path]]:
    """The logs, oldest first."""
    found = []
    for path in directory.glob("journal-*.log"):
        generation = path.stem.removeprefix("journal-")
        if generation.isdigit():
            found.append((int(generation), path))
    return sorted(found)


# Checksums.


def seal(record: dict) -> bytes:
    """The record as one JSON object that begins with the checksum of the bytes after it."""
    rest = json.dumps(record)[1:].encode()
    return b'%s%08x", %s' % (SEAL, zlib.crc32(rest), rest)


def checksum_of(sealed: bytes) -> str:
    return sealed[len(SEAL) : len(SEAL) + 8].decode()


def _unseal(data: bytes) -> dict:
    """The record `seal` wrote; a ValueError saying what is wrong if it is not that."""
    if not data.startswith(SEAL) or data[SEALED - 3 : SEALED] != b'", ':
        raise ValueError("it has no checksum, unlike the records around it")
    if b"%08x" % zlib.crc32(memoryview(data)[SEALED:]) != data[len(SEAL) : SEALED - 3]:
        raise ValueError("its checksum does not match: its bytes changed after they were written")
    record = _parse(data)
    del record["crc32"]
    return record


def _parse(data: bytes) -> dict:
    try:
        record = json.loads(data)  # bytes that are not UTF-8 are a ValueError too
    except ValueError:
        raise ValueError("it is not valid JSON text") from None
    if not isinstance(record, dict):
        raise ValueError("it is not a JSON object")
    return record


# Writing.


def claim(directory: Path, wait_seconds: float) -> int:
    """Make the data directory (private: it holds secrets) and hold its lock; the descriptor
    that holds it. Raises `JournalBusy` when another process holds it for `wait_seconds`."""
    directory.mkdir(mode=PRIVATE_DIRECTORY, parents=True, exist_ok=True)
    if directory.stat().st_mode & 0o077:
        logger.info("%s made private (0700): it holds the stack's secrets", directory)
        directory.chmod(PRIVATE_DIRECTORY)
    descriptor = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            # A POSIX record lock: held per process, released however the process ends.
            fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except OSError:
            if time.monotonic() >= deadline:
                os.close(descriptor)
                raise JournalBusy(
                    f"{directory} is in use by another process (a running stack holds "
                    f"{LOCK}): stop it first"
                ) from None
            time.sleep(0.1)


def write_all(descriptor: int, data: bytes) -> None:
    """`os.write` may write less than asked (a full disk): the rest, or an error."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def write_durably(target: Path, data: bytes) -> None:
    """Whole or not at all, and on the disk: a temporary file, fsynced, renamed over the target,
    and the directory fsynced so that the rename is on the disk too."""
    temporary = target.with_suffix(".tmp")
    temporary.unlink(missing_ok=True)  # one left by an older version may be 0644
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    try:
        write_all(descriptor, data)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, target)
    sync_directory(target.parent)


def sync_directory(directory: Path) -> None:
    """Put the directory's entries (a file made or renamed there) on the disk."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# When a log's writes reach the disk.

ALWAYS = "always"
INTERVAL = "interval"
DEFAULT_FSYNC_SECONDS = 1.0


@dataclass(frozen=True)
class FsyncPolicy:
    """`JOURNAL_FSYNC` and `JOURNAL_FSYNC_SECONDS` (docs/local-stack.md, the settings)."""

    mode: str = ALWAYS
    seconds: float = DEFAULT_FSYNC_SECONDS

    @classmethod
    def from_environment(cls, environment: Mapping[str, str] | None = None) -> "FsyncPolicy":
        # Read when asked, not when imported: `os.environ` may be another mapping by then.
        environment = os.environ if environment is None else environment
        mode = environment.get("JOURNAL_FSYNC", "").strip().lower() or ALWAYS
        if mode not in (ALWAYS, INTERVAL):
            raise JournalRefused(f"JOURNAL_FSYNC={mode!r}: it is {ALWAYS!r} or {INTERVAL!r}")
        text = environment.get("JOURNAL_FSYNC_SECONDS", "").strip()
        try:
            seconds = float(text) if text else DEFAULT_FSYNC_SECONDS
        except ValueError:
            seconds = 0.0
        if not 0 < seconds <= 3600:
            raise JournalRefused(
                f"JOURNAL_FSYNC_SECONDS={text!r}: a number of seconds above 0 (at most 3600)"
            )
        return cls(mode, seconds)


class LogSync:
    """Puts the open log's appended writes on the disk as the policy says.

    Group commit: a writer appends under the journal's lock, takes a ticket (its append's
    number) and, under `always`, waits in `wait_durable` outside that lock. The first waiter
    with no fsync under way leads: it notes how many appends the file holds, fsyncs it, and
    wakes everyone whose ticket that covers; those who appended during its fsync are covered
    by the next leader's. Under `interval` nobody waits: a thread fsyncs every `seconds`.
    """

    def __init__(self, policy: FsyncPolicy):
        self.policy = policy
        self._state = threading.Condition()
        self._log: int | None = None
        self._appended = 0  # appends to the log so far, of this journal's life
        self._synced = 0  # of them, those on the disk
        self._syncing = False
        # A new log's entry in its directory goes to the disk with the log's first fsync, or
        # a power loss may drop the whole file: logs begun, and of them those whose entry is.
        self._directory: Path | None = None
        self._logs_begun = 0
        self._entries_synced = 0
        self._ticker: threading.Thread | None = None

    def use(self, log: int, directory: Path) -> None:
        """Log to `log`, a new file of `directory`, from now on: begun after a snapshot put
        every earlier write on the disk."""
        with self._state:
            self._log, self._directory = log, directory
            self._logs_begun += 1
            self._synced = self._appended
            self._state.notify_all()
        if self.policy.mode == INTERVAL and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="journal-fsync", daemon=True)
            self._ticker.start()

    def appended(self) -> int:
        """Count one append (made under the journal's lock); its ticket."""
        with self._state:
            self._appended += 1
            return self._appended

    def wait_durable(self, ticket: int) -> None:
        """Under `always`, return once the append `ticket` is on the disk."""
        if self.policy.mode != ALWAYS:
            return
        with self._state:
            while self._synced < ticket:
                if not self._syncing:
                    self._syncing = True
                    break
                self._state.wait()
            else:
                return
        self._sync()

    def _sync(self) -> None:
        """Fsync the log as the leader (`_syncing` set by the caller)."""
        synced = None
        try:
            with self._state:
                covered, begun = self._appended, self._logs_begun
                new_entry = self._directory if self._entries_synced < begun else None
                # A copy of the descriptor: a compaction may close the log meanwhile.
                log = os.dup(self._log)
            try:
                os.fsync(log)
                if new_entry is not None:
                    sync_directory(new_entry)
                synced = covered
            finally:
                os.close(log)
        finally:
            with self._state:
                self._syncing = False
                if synced is not None:
                    self._synced = max(self._synced, synced)
                    self._entries_synced = max(self._entries_synced, begun)
                self._state.notify_all()

    def _tick(self) -> None:
        while True:
            time.sleep(self.policy.seconds)
            with self._state:
                if self._syncing or self._synced >= self._appended:
                    continue
                self._syncing = True
            try:
                self._sync()
            except OSError:
                logger.exception(
                    "the journal's fsync failed; trying again in %ss", self.policy.seconds
                )


# Repair, with the stack stopped.
