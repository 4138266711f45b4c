"""Local data that outlives a restart: every table written to `.data/dynamodb.json`.

moto keeps nothing across restarts, so the stack snapshots the tables every few seconds and
once more at shutdown, and loads the snapshot at start. A hard kill (SIGKILL, power loss)
loses at most the writes of the last interval, and any SQS messages still in flight.
"""

import json
import os
import threading
from pathlib import Path

import boto3

from chalicelib import config
from chalicelib.store.tables import all_models

INTERVAL_SECONDS = 5


def data_file() -> Path:
    return Path(os.environ.get("DATA_DIR", ".data")) / "dynamodb.json"


def _client():
    return boto3.client("dynamodb", region_name=config.region())


def dump() -> dict[str, list[dict]]:
    client = _client()
    tables: dict[str, list[dict]] = {}
    for model in all_models():
        items: list[dict] = []
        for page in client.get_paginator("scan").paginate(TableName=model.Meta.table_name):
            items.extend(page["Items"])
        tables[model.Meta.table_name] = items
    return tables


def save() -> None:
    target = data_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(dump()))
    os.replace(temporary, target)


def restore() -> bool:
    """Load the snapshot into the (empty) tables; False when there is none."""
    source = data_file()
    if not source.exists():
        return False
    client = _client()
    for table, items in json.loads(source.read_text()).items():
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
            pending = {table: requests}
            while pending:
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems")
    return True


class Snapshotter(threading.Thread):
    """Saves the tables every few seconds until stopped, then once more."""

    def __init__(self) -> None:
        super().__init__(name="snapshots", daemon=True)
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(INTERVAL_SECONDS):
            save()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)
        save()
