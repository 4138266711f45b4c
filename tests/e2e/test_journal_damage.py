"""A damaged data directory, on the real stack: markers written through the API, the stack
stopped cleanly, a copy of its data directory corrupted as a disk or a careless hand would, and
the stack started on the copy. What it serves is compared with what it acknowledged: a damaged
record is never served, a start that would lose acknowledged writes is refused with one line
naming the file and the offset, and `make admin ARGS="repair-journal"` makes it start again,
saying what it dropped.
"""

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.stack import ROOT, LocalStack, wait_for
from tests.e2e.test_durability import check, first_start_credentials

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MARKERS = [f"M1-{number:02}" for number in range(1, 11)]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict]:
    """A data directory holding ten acknowledged markers (components), the stack stopped
    cleanly; and the first start's credentials."""
    data = tmp_path_factory.mktemp("journal-damage") / "data"
    stack = LocalStack(data).start()
    try:
        owner = first_start_credentials(stack)
        for marker in MARKERS:
            check(
                stack.send(
                    "POST",
                    f"/v1/pages/{owner['page_id']}/components",
                    owner["api_key"],
                    {"component": {"name": marker}},
                ),
                201,
            )
    finally:
        stack.stop()
    return data, owner


def copy_of(written: tuple[Path, dict], tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(written[0], copy)
    return copy


def damage_first(path: Path, old: bytes, new: bytes) -> int:
    """Replace the first `old` in a file; the offset of the line it is on."""
    data = path.read_bytes()
    at = data.index(old)
    path.write_bytes(data[:at] + new + data[at + len(old) :])
    return data.rindex(b"\n", 0, at) + 1


def refused_start(data: Path) -> subprocess.CompletedProcess:
    """`make run` on a data directory it must refuse: it exits by itself, and none of its
    ports ever takes a connection (the front's, the emulator's), looked at until it exits."""
    stack = LocalStack(data)
    process = subprocess.Popen(
        [sys.executable, "-m", "chalicelib.local"],
        cwd=ROOT,
        env=stack.environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    answered = set()
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        answered |= {port for port in (stack.port, stack.moto_port) if _listening(port)}
    stdout, stderr = process.communicate(timeout=10)
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr and "no answer" not in done.stderr, done.stderr
    assert not answered, f"ports {answered} took connections before the start was refused"
    return done


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def repair_journal(data: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "chalicelib.admin", "repair-journal"],
        cwd=ROOT,
        env=LocalStack(data).environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def components(stack: LocalStack, owner: dict, status: int = 200) -> set[str] | None:
    answer = stack.get(f"/v1/pages/{owner['page_id']}/components", owner["api_key"])
    return {component["name"] for component in check(answer, status)} if status == 200 else None


def public_components(stack: LocalStack, owner: dict) -> set[str]:
    summary = stack.get(f"/s/{owner['page_id']}/api/v2/summary.json")
    return {component["name"] for component in check(summary)["components"]}


def files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file()}


def test_a_damaged_record_refuses_the_start_and_repair_drops_it_and_the_rest(written, tmp_path):
    data = copy_of(written, tmp_path)
    log = data / "journal-1.log"
    offset = damage_first(log, b"M1-05", b"X1-05")
    before = files(data)

    refused = refused_start(data)

    (said,) = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert f"{log}, line " in said and f" at byte {offset}: its checksum does not match" in said
    assert 'make admin ARGS="repair-journal"' in said
    assert files(data) == before  # nothing compacted, nothing deleted

    report = repair_journal(data)
    (done,) = report["repaired"]
    assert done["truncated"] == f"journal-1.log at byte {offset}"
    # The writes of M1-05 to M1-10, listed by action and tables, and the rest after them.
    written_components = {kind: n for kind, n in done["dropped"].items() if "components" in kind}
    assert list(written_components.values()) == [6], done["dropped"]
    assert (Path(report["kept_in"]) / "journal-1.log").read_bytes() == before["journal-1.log"]

    assert report["site_set_aside"] == str(data / "site")

    stack = LocalStack(data).start()
    try:
        assert components(stack, written[1]) == set(MARKERS[:4])
        # The public page, published anew from what is left.
        assert wait_for(lambda: public_components(stack, written[1]) == set(MARKERS[:4]))
    finally:
        stack.stop()


def test_a_byte_that_is_not_utf8_refuses_the_start_with_one_line(written, tmp_path):
    data = copy_of(written, tmp_path)
    offset = damage_first(data / "journal-1.log", b"M1-07", b"M1-\xa507")
    said = refused_start(data).stderr
    assert "journal-1.log, line " in said and f" at byte {offset}: " in said


def test_a_torn_last_record_is_skipped_and_every_acknowledged_marker_served(written, tmp_path):
    data = copy_of(written, tmp_path)
    with open(data / "journal-1.log", "ab") as log:
        log.write(b'{"crc32": "1234abcd", "dynamodb": "PutItem", "region": "us-ea')
    stack = LocalStack(data).start()
    try:
        assert components(stack, written[1]) == set(MARKERS)
    finally:
        stack.stop()


def test_a_deleted_snapshot_refuses_the_start_and_repair_starts_afresh(written, tmp_path):
    data = copy_of(written, tmp_path)
    (data / "snapshot.json").unlink()

    said = refused_start(data).stderr
    assert f"{data / 'snapshot.json'}: is missing, yet journal-1.log follows" in said

    report = repair_journal(data)
    assert report["repaired"][0]["set_aside"] == ["journal-1.log"]
    assert report["next_start"] == "empty, as a first start"
    stack = LocalStack(data).start()
    try:
        assert "First start" in "".join(stack.output)
        components(stack, written[1], status=401)  # the old key went with the set-aside log
    finally:
        stack.stop()
