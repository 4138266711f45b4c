"""What every table shares: its name from the stage, its region, on-demand billing."""

import threading
from functools import lru_cache
from typing import TypeVar

import botocore.session
import pynamodb.connection.base
from pynamodb.connection import Connection
from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from chalicelib import config

_sessions = threading.local()


def _session_of_this_thread() -> botocore.session.Session:
    """One botocore session per thread, shared by every model's connection.

    PynamoDB makes a session for each model's connection, and each loads botocore's endpoint
    and service files anew: ~0.1 s a model, 3.5 s for the 34 tables, paid at every process
    start, Lambda cold start and local stack start. A session is not thread-safe (clients are),
    which is why PynamoDB keeps one per thread: sharing it within the thread keeps that rule.
    """
    session = getattr(_sessions, "session", None)
    if session is None:
        session = _sessions.session = botocore.session.get_session()
    return session


pynamodb.connection.base.get_session = _session_of_this_thread


def table_meta(short_name: str) -> type:
    """A PynamoDB `Meta` for the table `short_name` of the current stage.

    `host` stays unset so PynamoDB follows `AWS_ENDPOINT_URL` (the local emulator) when set.
    """

    class Meta:
        table_name = config.table_name(short_name)
        region = config.region()
        billing_mode = "PAY_PER_REQUEST"

    return Meta


def plain_dict(value) -> dict:
    """A raw map attribute as a plain dict, whether freshly set or read back from DynamoDB."""
    if value is None:
        return {}
    return value.as_dict() if hasattr(value, "as_dict") else dict(value)


@lru_cache(maxsize=1)
def connection() -> Connection:
    # Made once: a botocore client costs tens of milliseconds to build.
    return Connection(region=config.region())


M = TypeVar("M", bound=Model)


Key = str | tuple[str, str]


def _key_of(model: type[Model], key: Key) -> dict:
    """The DynamoDB key of an item: its hash key, or (hash key, range key)."""
    parts = key if isinstance(key, tuple) else (key,)
    attributes = [model._hash_key_attribute(), model._range_key_attribute()][: len(parts)]
    return {
        a.attr_name: {a.attr_type: a.serialize(v)} for a, v in zip(attributes, parts, strict=True)
    }


def read_together(*wanted: tuple[type[M], Key]) -> list[M | None]:
    """Items of any tables by key (a hash key, or a (hash, range) pair), in one round trip
    (BatchGetItem): each one found, or None, in the order asked."""
    requests: dict[str, dict] = {}
    for model, key in dict.fromkeys(wanted):
        requests.setdefault(model.Meta.table_name, {"Keys": []})["Keys"].append(_key_of(model, key))
    found: dict[tuple[str, str], dict] = {}
    models = {model.Meta.table_name: model for model, _ in wanted}
    while requests:
        answer = connection().client.batch_get_item(RequestItems=requests)
        for table_name, items in answer.get("Responses", {}).items():
            model = models[table_name]
            for item in items:
                found[(table_name, _identity(model, item))] = item
        requests = answer.get("UnprocessedKeys") or {}
    results: list[M | None] = []
    for model, key in wanted:
        raw = found.get((model.Meta.table_name, _identity(model, _key_of(model, key))))
        results.append(model.from_raw_data(raw) if raw is not None else None)
    return results


def _identity(model: type[Model], item: dict) -> str:
    """An item's key values as one string, from its raw attributes."""
    attributes = [model._hash_key_attribute(), model._range_key_attribute()]
    return "\x1f".join(str(item[a.attr_name][a.attr_type]) for a in attributes if a is not None)


def transaction() -> TransactWrite:
    """A DynamoDB transaction: every write in it lands, or none does."""
    return TransactWrite(connection=connection())


# Why DynamoDB cancelled a transaction, per item: another transaction held the item
# (`TransactionConflict`, always worth another try) or the item's condition failed.
LOST_RACE = "TransactionConflict"
CONDITION_FAILED = "ConditionalCheckFailed"


def is_condition_failure(error: Exception) -> bool:
    """Whether a single-item write failed on its condition."""
    return getattr(error, "cause_response_code", None) == "ConditionalCheckFailedException"


def cancellation_codes(error: TransactWriteError) -> list[str | None]:
    """The reason code of each item of a cancelled transaction, in the order staged (None for
    an item that was fine); empty when DynamoDB gave no reasons."""
    if error.cause_response_code == "TransactionConflictException":
        return [LOST_RACE]
    return [
        reason.code if reason is not None else None for reason in error.cancellation_reasons or []
    ]
