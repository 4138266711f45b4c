"""The emulator's costs made to follow the request, as AWS's do, not the table's size.

Two of moto's DynamoDB operations cost time in proportion to everything stored, so on a page
with 2,000 incidents the local stack measured the emulator, not the service:

- TransactWriteItems deep-copies every table it names, once per item, to undo a cancelled
  transaction. Here each named item is copied instead, and put back when moto cancels; moto's
  own table copy becomes a no-op.
- Query sorts the whole table, then sizes every item of the partition (or, on an index, of
  the table) before applying the key condition. Here moto is handed only the items that the
  key condition can match (found with plain comparisons of stored values); it then applies
  every rule of its own to them as before, so the answers do not change. A global index
  finds its hash key's items through `_IndexEntries`, kept up to date as items are written.

And moto parses every condition expression anew, twice per item of a transaction; a condition
without values (a delivery claim's `attribute_not_exists`, the same for each of the 50 items
of a batch) is parsed once here and kept.

Last, moto serializes each answer through a generic, shape-driven serializer that walks every
attribute value of every item (most of a read's time: a page item read with its user took
~12 ms). The answers of the item operations (`_ITEM_OPERATIONS`) are already DynamoDB's wire
JSON, so they are written as such; the other answers, and every error, go through moto's.
Before that, moto turns its stored values into plain ones with a generic recursion that asks
each value what it is (a tenth of a busy stack's time); `_plain` does it by type.
"""

import base64
import copy
import json
import threading
from functools import lru_cache
from typing import Any

from moto.core import responses as moto_responses
from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.models import table as dynamodb_tables
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler

_installed = False


class _CopyKeepingTables:
    """The `copy` module as moto's backend sees it: tables are not copied (the transaction
    keeps item copies instead), everything else is."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: dict | None = None) -> Any:
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def _item_keys(table: Table, operation: dict) -> tuple[DynamoType, DynamoType | None]:
    attributes = operation.get("Key") or operation["Item"]
    hash_value = DynamoType(attributes[table.hash_key_attr])
    if table.range_key_attr is None:
        return hash_value, None
    return hash_value, DynamoType(attributes[table.range_key_attr])


def _items_before(backend, transact_items: list[dict]) -> list[tuple]:
    """Each named item as it is now (None when absent), to put back on a cancel."""
    saved = []
    for entry in transact_items:
        operation = next(iter(entry.values()), None)
        if not isinstance(operation, dict):
            continue
        table = backend.tables.get(operation.get("TableName"))
        if table is None:
            continue
        try:
            hash_value, range_value = _item_keys(table, operation)
        except (KeyError, TypeError, ValueError):
            continue  # moto rejects the malformed operation before it writes anything
        current = table.items.get(hash_value)
        if range_value is not None:
            current = (current or {}).get(range_value)
        saved.append((table, hash_value, range_value, copy.deepcopy(current)))
    return saved


def _put_back(saved: list[tuple]) -> None:
    for table, hash_value, range_value, item in reversed(saved):
        _written(table, item)
        if range_value is None:
            if item is None:
                table.items.pop(hash_value, None)
            else:
                table.items[hash_value] = item
        elif item is None:
            table.items.get(hash_value, {}).pop(range_value, None)
        else:
            table.items[hash_value][range_value] = item


_RANGE_TESTS = {
    "EQ": lambda value, bounds: value == bounds[0],
    "LT": lambda value, bounds: value < bounds[0],
    "LE": lambda value, bounds: value <= bounds[0],
    "GT": lambda value, bounds: value > bounds[0],
    "GE": lambda value, bounds: value >= bounds[0],
    "BEGINS_WITH": lambda value, bounds: value.startswith(bounds[0]),
    "BETWEEN": lambda value, bounds: bounds[0] <= value <= bounds[1],
}
# The items a query on each thread may consider, by table: set around moto's query only.
_narrowed = threading.local()


def _stored(table: Table):
    for bucket in table.items.values():
        if table.range_key_attr:
            yield from bucket.values()
        else:
            yield bucket


class _IndexEntries:
    """For each global index of a table, the keys of the items written with each hash key
    value: a superset (an item may have changed or gone since), so a query checks each
    against the item as it is now and drops the stale ones. Built from the table on first use,
    then added to on every put and update."""

    def __init__(self, table: Table):
        self.hash_names = {
            index.name: [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
            for index in table.global_indexes
        }
        self.entries: dict[str, dict[tuple, dict]] = {name: {} for name in self.hash_names}
        for item in _stored(table):
            self.add(item)

    def add(self, item) -> None:
        for index_name, names in self.hash_names.items():
            values = [item.attrs.get(name) for name in names]
            if all(value is not None for value in values):
                wanted = tuple((value.type, value.value) for value in values)
                self.entries[index_name].setdefault(wanted, {})[(item.hash_key, item.range_key)] = (
                    None
                )

    def items(self, table: Table, index_name: str, hash_conditions) -> list:
        wanted = tuple((value.type, value.value) for _, value in hash_conditions)
        keys = self.entries[index_name].get(wanted, {})
        found = []
        for key in list(keys):
            item = _current(table, *key)
            if item is not None and all(_matches(item, n, v) for n, v in hash_conditions):
                found.append(item)
            else:
                del keys[key]
        return found


_entries_lock = threading.Lock()


def _index_entries(table: Table) -> _IndexEntries:
    entries = getattr(table, "_cost_index_entries", None)
    if entries is None:
        entries = table._cost_index_entries = _IndexEntries(table)
    return entries


def _written(table: Table, item) -> None:
    if item is None or getattr(table, "_cost_index_entries", None) is None:
        return  # entries not built yet: they will be built from the table itself
    with _entries_lock:
        table._cost_index_entries.add(item)


def _current(table: Table, hash_value, range_value):
    stored = table.items.get(hash_value)
    if range_value is None or stored is None:
        return stored
    return stored.get(range_value)


def _matches(item, name: str, wanted: DynamoType) -> bool:
    value = item.attrs.get(name)
    return value is not None and value.type == wanted.type and value.value == wanted.value


def _range_attribute(table: Table, index_name: str | None) -> str | None:
    if not index_name:
        return table.range_key_attr
    index = table.get_index(index_name)
    ranges = [key["AttributeName"] for key in index.schema if key["KeyType"] == "RANGE"]
    return ranges[0] if len(ranges) == 1 else None


def _candidates(table: Table, hash_key, range_comparison, range_objs, index_name, hash_conditions):
    """The items the key condition can match, or None to let moto look at every item."""
    if index_name:
        index = table.get_index(index_name)
        names = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
        if (
            index not in table.global_indexes
            or [name for name, _ in hash_conditions or []] != names
        ):
            return None
        with _entries_lock:
            found = _index_entries(table).items(table, index_name, hash_conditions)
    elif hash_key is not None and table.range_key_attr:
        found = list(table.items.get(hash_key, {}).values())
    else:
        return None
    test = _RANGE_TESTS.get(range_comparison or "")
    attribute = _range_attribute(table, index_name)
    if test is None or attribute is None or not range_objs:
        return found
    if any(bound.type != "S" for bound in range_objs):
        return found
    bounds = [bound.value for bound in range_objs]
    kept = []
    for item in found:
        value = item.attrs.get(attribute)
        if value is not None and value.type == "S" and test(value.value, bounds):
            kept.append(item)
    return kept


@lru_cache(maxsize=256)
def _parsed_without_values(expression: str, names: str):
    return comparisons.get_filter_expression(expression, json.loads(names), None)


def _filter_expression(expression, names, values):
    if values or not expression:
        return comparisons.get_filter_expression(expression, names, values)
    return _parsed_without_values(expression, json.dumps(names or {}, sort_keys=True))


_ITEM_OPERATIONS = {
    "GetItem",
    "BatchGetItem",
    "Query",
    "Scan",
    "TransactGetItems",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
}
# Switched off only by the test that compares both serializations.
fast_answers = True


def _wire(value: Any) -> Any:
    """An answer as DynamoDB's JSON: binary values in base64, absent members left out."""
    if isinstance(value, dict):
        return {key: _wire(member) for key, member in value.items() if member is not None}
    if isinstance(value, (list, tuple)):
        return [_wire(member) for member in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    return value


_PLAIN_TYPES = frozenset({"S", "N", "BOOL", "NULL", "SS", "NS"})
_moto_dynamo_to_dict = dynamodb_responses.dynamo_to_dict


def _plain(value: Any) -> Any:
    """moto's `dynamo_to_dict`, by type: what an answer's items hold most, done directly; the
    rest (binary values, other objects) by moto's."""
    kind = type(value)
    if kind is DynamoType:
        member = value.type
        if member == "M":
            return {"M": {key: _plain(inner) for key, inner in value.value.items()}}
        if member == "L":
            return {"L": [_plain(inner) for inner in value.value]}
        if member in _PLAIN_TYPES:
            return {member: value.value}
        return _moto_dynamo_to_dict(value)
    if kind is dict:
        return {key: _plain(inner) for key, inner in value.items()}
    if kind is list:
        return [_plain(inner) for inner in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return _moto_dynamo_to_dict(value)


def _to_plain(value: Any) -> Any:
    return _plain(value) if fast_answers else _moto_dynamo_to_dict(value)


def install() -> None:
    """Once per process, before the first transaction."""
    global _installed
    if _installed:
        return
    _installed = True
    backend_class = dynamodb_models.DynamoDBBackend
    moto_transact_write_items = backend_class.transact_write_items

    def transact_write_items(self, transact_items):
        saved = _items_before(self, transact_items)
        try:
            return moto_transact_write_items(self, transact_items)
        except Exception:
            _put_back(saved)
            raise

    dynamodb_models.copy = _CopyKeepingTables()
    backend_class.transact_write_items = transact_write_items
    dynamodb_models.get_filter_expression = _filter_expression
    dynamodb_tables.get_filter_expression = _filter_expression

    moto_query = Table.query
    moto_all_items = Table.all_items

    def query(self, hash_key, range_comparison, range_objs, *args, **kwargs):
        index_name = args[4] if len(args) > 4 else kwargs.get("index_name")
        found = _candidates(
            self,
            hash_key,
            range_comparison,
            range_objs,
            index_name,
            kwargs.get("hash_key_conditions"),
        )
        if found is None:
            return moto_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)
        _narrowed.table, _narrowed.items = self, found
        try:
            return moto_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)
        finally:
            _narrowed.table = _narrowed.items = None

    def all_items(self):
        if getattr(_narrowed, "table", None) is self:
            return list(_narrowed.items)
        return moto_all_items(self)

    Table.query = query
    Table.all_items = all_items

    moto_put_item = Table.put_item
    moto_update_item = backend_class.update_item

    def put_item(self, *args, **kwargs):
        item = moto_put_item(self, *args, **kwargs)
        _written(self, item)
        return item

    def update_item(self, table_name, *args, **kwargs):
        item = moto_update_item(self, table_name, *args, **kwargs)
        _written(self.get_table(table_name), item)
        return item

    Table.put_item = put_item
    backend_class.update_item = update_item

    moto_serialized = DynamoHandler.serialized

    def serialized(self, action_result):
        result = action_result.result
        if not (fast_answers and isinstance(result, dict)) or (
            self._get_action() not in _ITEM_OPERATIONS
        ):
            return moto_serialized(self, action_result)
        headers = {"Content-Type": "application/x-amz-json-1.0", **self.response_headers}
        return 200, headers, json.dumps(_wire(result))

    DynamoHandler.serialized = serialized
    # Every request lists its handler's methods (`inspect.getmembers`); a class's do not change.
    moto_responses.method_names_from_class = lru_cache(maxsize=None)(
        moto_responses.method_names_from_class
    )
    dynamodb_responses.dynamo_to_dict = _to_plain
