"""The export document read back (`import --from-file`): a file that is not one is refused
with what is wrong with it, before anything is read from or written to a table."""

import json
import subprocess
import sys
import time

import pytest

from chalicelib.domain.metrics import interval_of
from chalicelib.importer import from_file
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import SourceError
from tests.e2e.stack import ROOT

VALID = {
    "format": from_file.FORMAT,
    "version": from_file.VERSION,
    "page": {"id": "p1", "name": "Acme"},
    "status_embed_config": {},
    "postmortems": {},
    **{kind: [] for kind in from_file.LISTS},
}


def admin(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "chalicelib.admin", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"not json", "not JSON"),
        (b'{"format": "other"}', "not an export document"),
        (json.dumps({**VALID, "version": 99}).encode(), "version 99"),
        (json.dumps({**VALID, "page": {"name": "no id"}}).encode(), "its page has no id"),
        (json.dumps({**VALID, "incidents": [{"name": "no id"}]}).encode(), "incidents"),
        (json.dumps({**VALID, "postmortems": []}).encode(), "postmortems"),
    ],
)
def test_a_file_that_is_not_an_export_is_refused_with_what_is_wrong(tmp_path, content, said):
    path = tmp_path / "page.json"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=said):
        from_file.load(path)


def test_points_are_read_as_the_live_import_keeps_them_and_the_document_is_left_as_it_was(
    tmp_path,
):
    now = int(time.time())
    metric = {"id": "m1", "name": "Latency", "data": [[now - 600, 1.5], [now - 3600, 2], "x"]}
    path = tmp_path / "page.json"
    path.write_text(json.dumps({**VALID, "metrics": [metric]}))
    document = from_file.load(path)

    found = from_file.found(document, Progress())

    # Each at its 30 s interval, oldest first; what is not a pair is left out.
    assert found["metrics"][0]["data"] == [
        (interval_of(now - 3600), 2),
        (interval_of(now - 600), 1.5),
    ]
    assert document["metrics"][0]["data"] == metric["data"]


def test_the_import_command_takes_one_source_and_says_what_is_wrong_with_a_file(tmp_path):
    neither = admin("import", "--organization", "o1")
    assert neither.returncode != 0
    assert "one of --from-url and --from-file is required" in neither.stderr

    missing = admin("import", "--from-file", str(tmp_path / "none.json"), "--organization", "o1")
    assert missing.returncode != 0
    assert "cannot be read" in missing.stderr and "Traceback" not in missing.stderr
