"""The export document (`export.py` writes it), read back as an import's source.

The document holds what an import reads from a live source (`run.read`), as it read it: the
page, its embed config, and the lists of `LISTS` in the v1 API's own representations, each
metric with its points (`data`: `[timestamp, value]` pairs) and each incident's postmortem
by the incident's id. Importing a file is then the live import's writing, mapping for
mapping: the same options, and a second run writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from chalicelib.importer import metric_data
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import SourceError

FORMAT = "statuspage-export"
VERSION = 1
# The lists a document holds, each of items with an `id`.
LISTS = (
    "components",
    "incident_templates",
    "incidents",
    "subscribers",
    "metrics",
    "page_access_groups",
    "page_access_users",
)


def load(path: str | Path) -> dict:
    """The document of the file at `path`; a `SourceError` saying what is wrong with it."""
    try:
        document = json.loads(Path(path).read_bytes())
    except OSError as error:
        raise SourceError(f"{path}: cannot be read ({error.strerror})") from None
    except ValueError:
        raise SourceError(f"{path}: not JSON: is it a file `export` wrote?") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SourceError(f'{path}: not an export document (no "format": "{FORMAT}")')
    if document.get("version") != VERSION:
        raise SourceError(
            f"{path}: an export document of version {document.get('version')!r}; "
            f"this version reads {VERSION}"
        )
    page = document.get("page")
    if not isinstance(page, dict) or not isinstance(page.get("id"), str) or "name" not in page:
        raise SourceError(f"{path}: its page has no id or name")
    for kind in LISTS:
        items = document.get(kind)
        if not isinstance(items, list) or any(
            not isinstance(item, dict) or not isinstance(item.get("id"), str) for item in items
        ):
            raise SourceError(f"{path}: {kind}: expected a list of items with an id")
    for name in ("status_embed_config", "postmortems"):
        if not isinstance(document.get(name), dict):
            raise SourceError(f"{path}: {name}: expected a JSON object")
    return document


def found(document: dict, progress: Progress) -> dict:
    """What `run.read` finds at a live source, from the document, counted as read."""
    progress.has_read("page", 1)
    progress.has_read("status_embed_config", 1)
    for kind in LISTS:
        progress.has_read(kind, len(document[kind]))
    lists = {kind: document[kind] for kind in LISTS}
    lists["metrics"] = [
        metric if metric.get("data") is None else {**metric, "data": _pairs(metric["data"])}
        for metric in document["metrics"]
    ]
    progress.has_read(
        metric_data.KIND, sum(len(metric.get("data") or []) for metric in lists["metrics"])
    )
    return {
        "page": document["page"],
        "status_embed_config": document["status_embed_config"],
        "postmortems": document["postmortems"],
        **lists,
    }


def _pairs(data: object) -> list[tuple[int, float]]:
    """A metric's `[timestamp, value]` pairs as the live read keeps them: those of the
    backfill window, each at its interval; anything else left out."""
    pairs = data if isinstance(data, list) else []
    return metric_data.backfill_points(
        {"timestamp": pair[0], "value": pair[1]}
        for pair in pairs
        if isinstance(pair, (list, tuple)) and len(pair) == 2
    )
