"""`make admin ARGS="repair-journal"`: start again without the damaged part of the journal.

It works only while no emulator holds the data directory. It keeps a copy of what it changes
in `damaged-<time>/`, cuts the log at the damage (the records after it go too: replayed after
a missing write, they could rebuild a state that never existed), sets aside a snapshot that is
missing or damaged together with its logs (the next start is a first start), and reports what
was dropped, counted by action and tables.
"""

import json
import logging
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from chalicelib.local.journal_files import (
    LEGACY_SNAPSHOT,
    PRIVATE_DIRECTORY,
    SNAPSHOT,
    JournalDamage,
    claim,
    log_files,
    read_stored,
)

logger = logging.getLogger(__name__)


def repair(directory: Path) -> dict:
    """Make the data directory start again after damage: keep a copy of every file it changes
    in `damaged-<time>/`, cut the damaged log at the damage (dropping the damaged record and
    every one after it, in that log and the later ones), or, when the snapshot is missing or
    damaged, set it and the logs aside so that the stack starts empty. What it dropped, and
    where the copies are."""
    if not directory.is_dir():
        return {"repaired": [], "message": f"{directory} does not exist: nothing to repair"}
    descriptor = claim(directory, 0)
    kept_in: Path | None = None
    repaired = []
    try:
        # Each pass sets aside or cuts off what it found, so the passes end.
        while damage := _first_damage(directory):
            kept_in = kept_in or _new_folder(directory)
            repaired.append(_repair(directory, damage, kept_in))
    finally:
        os.close(descriptor)
    if not repaired:
        return {"repaired": [], "message": f"no damage found in {directory}: nothing changed"}
    snapshots = [directory / SNAPSHOT, directory / LEGACY_SNAPSHOT]
    kept = any(path.exists() for path in snapshots)
    started = "from the records kept" if kept else "empty, as a first start"
    return {"repaired": repaired, "kept_in": str(kept_in), "next_start": started}


def _first_damage(directory: Path) -> JournalDamage | None:
    try:
        read_stored(directory)
    except JournalDamage as damage:
        return damage
    return None


def _repair(directory: Path, damage: JournalDamage, kept_in: Path) -> dict:
    logs = log_files(directory)
    generation = next((g for g, path in logs if path == damage.path), None)
    if generation is None:
        # The snapshot: missing or damaged. The logs after it mean nothing without it.
        aside = [damage.path] if damage.path.exists() else []
        aside += [path for _, path in logs]
        dropped = Counter(kind for path in aside for kind in _kinds(path.read_bytes()))
        for path in aside:
            shutil.move(path, kept_in / path.name)
        return _report(damage, dropped, set_aside=[path.name for path in aside])
    later = [path for g, path in logs if g > generation]
    data = damage.path.read_bytes()
    dropped = Counter(_kinds(data[damage.offset :]))
    for path in later:
        dropped.update(_kinds(path.read_bytes()))
        shutil.move(path, kept_in / path.name)
    shutil.copy2(damage.path, kept_in / damage.path.name)
    if damage.offset:
        os.truncate(damage.path, damage.offset)
        return _report(
            damage,
            dropped,
            truncated=f"{damage.path.name} at byte {damage.offset}",
            set_aside=[path.name for path in later],
        )
    damage.path.unlink()
    return _report(damage, dropped, set_aside=[damage.path.name, *(p.name for p in later)])


def _report(damage: JournalDamage, dropped: Counter, **changes) -> dict:
    return {
        "damage": str(damage),
        **{change: value for change, value in changes.items() if value},
        "dropped_records": sum(dropped.values()),
        "dropped": dict(dropped.most_common()),
    }


def _new_folder(directory: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    folder = directory / f"damaged-{stamp}"
    folder.mkdir(mode=PRIVATE_DIRECTORY)
    return folder


def _kinds(data: bytes) -> Iterator[str]:
    """What each record of a log's bytes did, read as well as damaged bytes allow; a snapshot
    as its items and messages."""
    for line in data.split(b"\n"):
        if line:
            try:
                yield from _kind(json.loads(line))
            except (ValueError, TypeError, AttributeError):
                yield "unreadable"


def _kind(record: dict) -> list[str]:
    if "tables" in record:
        return [
            f"item of {table} (snapshot)"
            for tables in record["tables"].values()
            for table, items in tables.items()
            for _ in items
        ] + ["queued message (snapshot)"] * len(record.get("messages", {}))
    if "dynamodb" in record:
        return [f"{record['dynamodb']} {_tables(record['body'])}".strip()]
    if "send" in record:
        return [f"SendMessage {record['queue']}"]
    if "delete" in record:
        return ["DeleteMessage"]
    if "follows" in record:
        return []  # a log's header is no write
    return ["unreadable"]


def _tables(body: str) -> str:
    """The tables a DynamoDB request names."""
    request = json.loads(body)
    names = set(request.get("RequestItems", {}))
    if "TableName" in request:
        names.add(request["TableName"])
    for item in request.get("TransactItems", []):
        names.update(action.get("TableName", "") for action in item.values())
    return ",".join(sorted(name for name in names if isinstance(name, str) and name))
