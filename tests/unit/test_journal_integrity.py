"""The journal's files on disk: checksummed, private, written durably, and a damaged byte stops
the start (naming the file and the offset) instead of being served or losing what follows it;
`repair` then keeps a copy, cuts at the damage and lists what it dropped.

Each test writes through a journal on moto's own app, in a region no other test uses, corrupts
the real files in `tmp_path` as a disk or a careless hand would, and "restarts" by emptying the
region (as a new emulator process starts empty) before a new journal recovers.
"""

import json
import logging
import os
import stat
import subprocess
import sys
import zlib

import pytest

from chalicelib.local import journal_files
from chalicelib.local.journal import Journal
from chalicelib.local.journal_files import LOCK, SNAPSHOT, JournalBusy, JournalDamage
from chalicelib.local.journal_repair import repair
from tests.unit.test_journal import MOTO, REGION, TABLE, dynamodb, fresh_emulator


def start(directory) -> Journal:
    """A new emulator's start: the table, empty, then the journal's recovery."""
    fresh_emulator()
    journal = Journal(directory, MOTO, REGION)
    journal.recover()
    return journal


def served() -> set[str]:
    return {item["id"]["S"] for item in dynamodb(MOTO, "Scan", TableName=TABLE)["Items"]}


MARKERS = [f"M1-{number:02}" for number in range(1, 11)]


def write_markers(directory) -> None:
    """Ten acknowledged writes, logged after the start's snapshot as lines 2 to 11 of
    `journal-1.log` (line 1 is its header); then a stop."""
    journal = start(directory)
    for marker in MARKERS:
        dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": marker}})


def line_offset(path, number: int) -> int:
    """The byte offset where line `number` (from 1) of a file begins."""
    lines = path.read_bytes().split(b"\n")
    return sum(len(line) + 1 for line in lines[: number - 1])


def replace_bytes(path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1, old
    path.write_bytes(data.replace(old, new))


def files(directory) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file()}


# Checksums, and what a start does with damage.


def test_every_record_and_the_snapshot_carry_a_checksum_of_their_bytes(tmp_path):
    write_markers(tmp_path)
    sealed = [(tmp_path / SNAPSHOT).read_bytes()]
    sealed += (tmp_path / "journal-1.log").read_bytes().splitlines()
    assert len(sealed) == 12  # the snapshot, the log's header and the ten writes
    for data in sealed:
        prefix, rest = data[:22], data[22:]
        assert prefix == b'{"crc32": "%08x", ' % zlib.crc32(rest)
        assert "crc32" in json.loads(data)  # still one JSON object a line


def test_a_flipped_byte_inside_a_record_is_never_served(tmp_path):
    write_markers(tmp_path)
    replace_bytes(tmp_path / "journal-1.log", b"M1-05", b"X1-05")
    with pytest.raises(JournalDamage) as refused:
        start(tmp_path)
    # The record of M1-05 is line 6: after the header and four writes.
    offset = line_offset(tmp_path / "journal-1.log", 6)
    assert str(refused.value).startswith(f"{tmp_path / 'journal-1.log'}, line 6 at byte {offset}:")
    assert "checksum does not match" in str(refused.value)
    assert "X1-05" not in served()


def test_a_corrupt_record_in_the_middle_stops_the_start_and_changes_no_file(tmp_path):
    write_markers(tmp_path)
    replace_bytes(tmp_path / "journal-1.log", b"M1-06", b"M1-0\x06")
    before = files(tmp_path)
    with pytest.raises(JournalDamage) as refused:
        start(tmp_path)
    assert ", line 7 at byte" in str(refused.value)
    # Not compacted past the damage: the log and the snapshot are as they were, so nothing of
    # records 6 to 10 is lost for good.
    assert files(tmp_path) == before


def test_a_damaged_last_complete_record_is_damage_not_a_torn_tail(tmp_path):
    write_markers(tmp_path)
    replace_bytes(tmp_path / "journal-1.log", b"M1-10", b"M1-1O")
    with pytest.raises(JournalDamage, match=", line 11 at byte"):
        start(tmp_path)


def test_a_byte_that_is_not_utf8_is_a_damaged_record_not_a_traceback(tmp_path):
    write_markers(tmp_path)
    replace_bytes(tmp_path / "journal-1.log", b"M1-03", b"M1-\xa503")
    with pytest.raises(JournalDamage, match=", line 4 at byte"):
        start(tmp_path)


def test_a_byte_that_is_not_utf8_in_a_legacy_log_is_damage_too(tmp_path):
    (tmp_path / SNAPSHOT).write_text(json.dumps({"covers": 0, "tables": {}}))
    legacy = [_legacy_put("before"), _legacy_put("bad\xa5"), _legacy_put("after")]
    (tmp_path / "journal-1.log").write_bytes(
        b"".join(line.encode("latin-1") + b"\n" for line in legacy)
    )
    with pytest.raises(JournalDamage, match="journal-1.log, line 2 at byte .*not valid JSON"):
        start(tmp_path)


def test_a_torn_last_record_is_skipped_with_a_warning_naming_file_offset_and_records_kept(
    tmp_path, caplog
):
    write_markers(tmp_path)
    log = tmp_path / "journal-1.log"
    size = log.stat().st_size
    with open(log, "ab") as file:
        file.write(b'{"crc32": "0123abcd", "dynamodb": "PutItem", "region": "eu-')  # died here
    with caplog.at_level(logging.WARNING, logger=journal_files.__name__):
        start(tmp_path)
    assert served() == set(MARKERS)
    assert f"{log} ends with a torn record at byte {size}" in caplog.text
    assert "the 10 records before it are kept" in caplog.text


def test_a_torn_record_in_a_log_that_is_not_the_newest_is_damage(tmp_path):
    (tmp_path / SNAPSHOT).write_text(json.dumps({"covers": 0, "tables": {}}))
    (tmp_path / "journal-1.log").write_text(_legacy_put("a") + "\n" + _legacy_put("b")[:20])
    (tmp_path / "journal-2.log").write_text(_legacy_put("c") + "\n")
    with pytest.raises(JournalDamage, match="journal-1.log, line 2 at byte .*a later log follows"):
        start(tmp_path)


def test_a_missing_snapshot_with_its_log_kept_stops_the_start(tmp_path):
    write_markers(tmp_path)
    (tmp_path / SNAPSHOT).unlink()
    with pytest.raises(JournalDamage) as refused:
        start(tmp_path)
    assert str(refused.value).startswith(f"{tmp_path / SNAPSHOT}: is missing, yet journal-1.log")
    assert (tmp_path / "journal-1.log").exists()


def test_a_snapshot_whose_checksum_fails_stops_the_start(tmp_path):
    write_markers(tmp_path)
    start(tmp_path)  # the markers move into the snapshot
    replace_bytes(tmp_path / SNAPSHOT, b"M1-04", b"M1-4O")
    with pytest.raises(JournalDamage, match=f"{SNAPSHOT}: its checksum does not match"):
        start(tmp_path)


def test_a_snapshot_that_is_not_the_one_the_log_follows_stops_the_start(tmp_path):
    write_markers(tmp_path)
    older = (tmp_path / SNAPSHOT).read_bytes()  # covers 0, without the markers
    journal = start(tmp_path)  # snapshot covers 1 and holds the markers; log 2 follows it
    dynamodb(journal, "PutItem", TableName=TABLE, Item={"id": {"S": "later"}})
    (tmp_path / SNAPSHOT).write_bytes(older)  # a backup put back, say
    with pytest.raises(JournalDamage, match="journal-2.log, line 1 at byte 0: it follows"):
        start(tmp_path)


def test_files_written_before_checksums_still_load_and_are_then_sealed(tmp_path):
    snapshot = {"covers": 0, "tables": {REGION: {TABLE: [{"id": {"S": "old"}}]}}, "messages": {}}
    (tmp_path / SNAPSHOT).write_text(json.dumps(snapshot))
    (tmp_path / "journal-1.log").write_text(_legacy_put("logged") + "\n")
    start(tmp_path)
    assert served() == {"old", "logged"}
    assert (tmp_path / SNAPSHOT).read_bytes().startswith(b'{"crc32": "')
    start(tmp_path)
    assert served() == {"old", "logged"}


def _legacy_put(marker: str) -> str:
    """A log line as the journal wrote it before checksums."""
    body = json.dumps({"TableName": TABLE, "Item": {"id": {"S": marker}}}, ensure_ascii=False)
    return json.dumps({"dynamodb": "PutItem", "region": REGION, "body": body}, ensure_ascii=False)


# Writing: private and durable.


def test_the_data_directory_is_0700_and_its_files_0600(tmp_path):
    directory = tmp_path / "data"
    write_markers(directory)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    names = {path.name for path in directory.iterdir()}
    assert names == {SNAPSHOT, "journal-1.log", LOCK}
    for path in directory.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_an_existing_data_directory_open_to_others_is_made_private(tmp_path):
    directory = tmp_path / "data"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    start(directory)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_the_snapshot_is_fsynced_renamed_into_place_and_its_directory_fsynced(
    tmp_path, monkeypatch
):
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        real_fsync(descriptor)

    def replace(source, target) -> None:
        synced.append(f"rename {os.path.basename(source)} -> {os.path.basename(target)}")
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    start(tmp_path)
    assert synced == [
        str(tmp_path / "snapshot.tmp"),
        "rename snapshot.tmp -> snapshot.json",
        str(tmp_path),
    ]
    assert not (tmp_path / "snapshot.tmp").exists()


# Repair.


def test_repair_cuts_the_log_at_the_damage_keeps_a_copy_and_lists_what_it_dropped(tmp_path):
    write_markers(tmp_path)
    log = tmp_path / "journal-1.log"
    replace_bytes(log, b"M1-06", b"X1-06")
    damaged = log.read_bytes()
    offset = line_offset(log, 7)

    report = repair(tmp_path)

    (done,) = report["repaired"]
    assert done["damage"].startswith(f"{log}, line 7 at byte {offset}:")
    assert done["truncated"] == f"journal-1.log at byte {offset}"
    assert done["dropped_records"] == 5
    assert done["dropped"] == {f"PutItem {TABLE}": 5}
    kept_in = tmp_path / report["kept_in"]
    assert kept_in.parent == tmp_path and kept_in.name.startswith("damaged-")
    assert (kept_in / "journal-1.log").read_bytes() == damaged
    assert log.read_bytes() == damaged[:offset]
    start(tmp_path)
    assert served() == set(MARKERS[:5])


def test_repair_sets_aside_logs_whose_snapshot_is_missing_and_the_stack_starts_empty(tmp_path):
    write_markers(tmp_path)
    log = (tmp_path / "journal-1.log").read_bytes()
    (tmp_path / SNAPSHOT).unlink()

    report = repair(tmp_path)

    (done,) = report["repaired"]
    assert done["set_aside"] == ["journal-1.log"]
    assert done["dropped"] == {f"PutItem {TABLE}": 10}
    assert report["next_start"] == "empty, as a first start"
    assert (tmp_path / report["kept_in"] / "journal-1.log").read_bytes() == log
    start(tmp_path)
    assert served() == set()


def test_repair_sets_aside_a_damaged_snapshot_and_the_logs_after_it(tmp_path):
    write_markers(tmp_path)
    start(tmp_path)
    replace_bytes(tmp_path / SNAPSHOT, b"M1-04", b"M1-4O")

    report = repair(tmp_path)

    (done,) = report["repaired"]
    assert done["set_aside"] == [SNAPSHOT, "journal-2.log"]
    assert done["dropped"] == {f"item of {TABLE} (snapshot)": 10}
    start(tmp_path)
    assert served() == set()


def test_repair_changes_nothing_when_nothing_is_damaged(tmp_path):
    write_markers(tmp_path)
    before = files(tmp_path)
    report = repair(tmp_path)
    assert report["repaired"] == [] and "nothing changed" in report["message"]
    assert files(tmp_path) == before


def test_repair_refuses_while_a_running_stack_holds_the_directory(tmp_path):
    # Another process, as a running stack is: the lock is held per process.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fcntl.lockf(os.open({str(tmp_path / LOCK)!r}, os.O_RDWR | os.O_CREAT), fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = files(tmp_path)
        with pytest.raises(JournalBusy, match="stop it first"):
            repair(tmp_path)
        assert files(tmp_path) == before
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture(autouse=True, scope="module")
def _leave_the_region_empty():
    yield
    if TABLE in dynamodb(MOTO, "ListTables").get("TableNames", []):
        dynamodb(MOTO, "DeleteTable", TableName=TABLE)
