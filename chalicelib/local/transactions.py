"""moto's TransactWriteItems, undone item by item instead of by copying whole tables.

moto backs each transaction up by deep-copying every table it touches, once per item: a
50-item transaction on a table of 10,000 items took 1.8 s, and it grows with the table (the
delivery claims table grows with every notification sent). Here the backup is the items the
transaction touches, copied before it runs and put back if it fails: the same all-or-nothing
outcome, at a cost that does not depend on the table's size.

moto also parses every condition expression anew, twice per item of a transaction; a
condition without values (a delivery claim's `attribute_not_exists`, the same for each of
its 50 items) is parsed once here and kept.
"""

import copy
import json
from functools import lru_cache

import moto.dynamodb.models as dynamodb_models
import moto.dynamodb.models.table as dynamodb_tables
from moto.dynamodb import comparisons
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

_MARK = "_undone_item_by_item"


class _TablesByReference:
    """Stands for the `copy` module inside moto's DynamoDB backend: a table is "copied" as
    itself (its rollback then restores nothing: `_restore` does), anything else as before."""

    def __getattr__(self, name: str):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)


def _touched(backend: DynamoDBBackend, transact_items: list[dict]) -> list[tuple]:
    """(table, hash, range, a copy of the item as it is now or None) per item of the
    transaction; an item moto will refuse anyway is left to moto."""
    saved = []
    for entry in transact_items:
        try:
            op_type, op = next(iter(entry.items()))
            table = backend.get_table(op["TableName"])
            attributes = op["Item"] if op_type == "Put" else op["Key"]
            hash_value = DynamoType(attributes[table.hash_key_attr])
            range_value = (
                DynamoType(attributes[table.range_key_attr]) if table.range_key_attr else None
            )
            current = table.get_item(hash_value, range_value)
        except Exception:  # noqa: BLE001 - moto reports a malformed item itself
            continue
        saved.append((table, hash_value, range_value, copy.deepcopy(current)))
    return saved


def _restore(table: Table, hash_value, range_value, item) -> None:
    if item is None:
        table.delete_item(hash_value, range_value)
    elif range_value is not None:
        table.items[hash_value][range_value] = item
    else:
        table.items[hash_value] = item


@lru_cache(maxsize=256)
def _parsed_without_values(expression: str, names: str):
    return comparisons.get_filter_expression(expression, json.loads(names), None)


def _filter_expression(expression, names, values):
    if values or not expression:
        return comparisons.get_filter_expression(expression, names, values)
    return _parsed_without_values(expression, json.dumps(names or {}, sort_keys=True))


def install() -> None:
    """Patch moto's DynamoDB backend (once per process)."""
    original = DynamoDBBackend.transact_write_items
    if getattr(original, _MARK, False):
        return

    def transact_write_items(self, transact_items):
        saved = _touched(self, transact_items)
        try:
            return original(self, transact_items)
        except Exception:
            for table, hash_value, range_value, item in reversed(saved):
                _restore(table, hash_value, range_value, item)
            raise

    setattr(transact_write_items, _MARK, True)
    dynamodb_models.copy = _TablesByReference()
    dynamodb_models.get_filter_expression = _filter_expression
    dynamodb_tables.get_filter_expression = _filter_expression
    DynamoDBBackend.transact_write_items = transact_write_items
