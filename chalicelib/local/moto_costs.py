"""The emulator's costs made to follow the request, as AWS's do, not the table's size.

Two of moto's DynamoDB operations cost time in proportion to everything stored, so on a page
with 2,000 incidents the local stack measured the emulator, not the service:

- TransactWriteItems deep-copies every table it names, once per item, to undo a cancelled
  transaction. Here each named item is copied instead, and put back when moto cancels; moto's
  own table copy becomes a no-op.
- Query sorts the whole table, then sizes every item of the partition (or, on an index, of
  the table) before applying the key condition. Here moto is handed only the items that the
  key condition can match; it then applies every rule of its own to them as before, so the
  answers do not change. A table Query is handed only its page (and the item after it,
  which tells moto there is more): the partition's range keys are kept in order
  (`_SortedRanges`), and the page found by bisection from the start key, so a page of 500
  costs the same in a partition of 10,000 as in one of 500. A global index finds its hash
  key's items through `_IndexEntries`, kept up to date as items are written.

A Query also deep-copied every item it answered before serializing it: a publish's read of
a day with 2,000 incidents and their updates copied 4,000 items (0.18 s of the emulator's
processor, with the interpreter lock the API's requests wait for). The items go to the
answer as stored; the copy guarded nothing, since moto changes no item it answers, and an
update landing meanwhile could already reach an item while it was being copied.

And moto parses every condition expression anew, twice per item of a transaction; a condition
without values (a delivery claim's `attribute_not_exists`, the same for each of the 50 items
of a batch) is parsed once here and kept.

Last, moto serializes each answer through a generic, shape-driven serializer that walks every
attribute value of every item (most of a read's time: a page item read with its user took
~12 ms). The answers of the item operations (`_ITEM_OPERATIONS`) are already DynamoDB's wire
JSON, so they are written as such; the other answers, and every error, go through moto's.
Before that, moto turns its stored values into plain ones with a generic recursion that asks
each value what it is (a tenth of a busy stack's time); `_plain` does it by type.

An item written is checked against DynamoDB's 400 KB as moto builds it attribute by attribute,
each time sizing every attribute set so far: a page item of 30 attributes was sized 465 times.
Here it is sized once, whole (sizes only add up, so it is too large exactly when moto would
find it so on one of its steps).

An update's expression is parsed twice per request (the handler's check, the backend's), and
its tree walked ten times by moto's validators, each building its map of node types twice at
every node (a third of an update's time). Here an expression is parsed once and kept (moto's
validator works on a copy), and each walk builds its map once.

A JSON request (DynamoDB's, SQS's) is read through a reader built once per shape
(`moto_json_requests`), not by moto's walk of the shape at every value; and SendMessage costs
the message, not the queue (`moto_queue_costs`).
"""

import base64
import bisect
import copy
import json
import sys
import threading
from functools import lru_cache
from typing import Any

import moto
from moto.core import parse as moto_parse
from moto.core import responses as moto_responses
from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import table as dynamodb_tables
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser, Node
from moto.dynamodb.parsing.expressions import UpdateExpressionParser
from moto.dynamodb.responses import DynamoHandler

from chalicelib.local import moto_json_requests, moto_queue_costs

_installed = False
# What `install` replaced, to put back: (owner, name, moto's own).
_replaced: list[tuple[Any, str, Any]] = []
# The moto whose internals these patches replace, and were proven against.
WRITTEN_FOR = "5.2.5"


class _CopyKeepingTables:
    """The `copy` module as moto's backend sees it: tables are not copied (the transaction
    keeps item copies instead), everything else is."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: dict | None = None) -> Any:
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


class _CopyKeepingResults:
    """The `copy` module as moto's table sees it: the items a Query or a Scan found are handed
    to its answer as stored, not copied (nothing after changes them: the answer is their
    attributes, serialized at once); everything else (a backup's tables) is copied."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: dict | None = None) -> Any:
        if isinstance(value, Item):
            return value
        if isinstance(value, list) and all(isinstance(entry, Item) for entry in value):
            return list(value)
        return copy.deepcopy(value, memo)


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
        _deleted(table, hash_value)
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


def _sort_part(entry: tuple) -> tuple:
    return entry[0]


def _first_sort_value(entry: tuple) -> DynamoType:
    return entry[0][0]


def _index_order(table: Table, index) -> list[str] | None:
    """The attributes moto orders an index's items by, after its hash key (its sort key,
    then the table's keys), or None when the index has no sort key."""
    hash_names = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
    range_names = [key["AttributeName"] for key in index.schema if key["KeyType"] == "RANGE"]
    if len(range_names) != 1:
        return None
    names = table._generate_attr_to_sort_by(
        hash_names + [table.hash_key_attr], range_names + [table.range_key_attr]
    )
    return names[len(hash_names) :]


def _page_full(page: list, item, limit: int | None, size: int) -> bool:
    """Whether `page` holds what moto needs to answer: one item past the limit, or the item
    that takes it past its 1 MB."""
    if limit is not None:
        return len(page) > limit
    return size > dynamodb_tables.RESULT_SIZE_LIMIT


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
        self.sort_names = {index.name: _index_order(table, index) for index in table.global_indexes}
        self.entries: dict[str, dict[tuple, dict]] = {name: {} for name in self.hash_names}
        # Per index and hash key value, once queried: (sort values, item key) in moto's order.
        self.orders: dict[tuple[str, tuple], list[tuple[tuple, tuple]]] = {}
        for item in _stored(table):
            self.add(item)

    def _sort_values(self, index_name: str, item) -> tuple | None:
        values = tuple(item.attrs.get(name) for name in self.sort_names[index_name] or [])
        return None if any(value is None for value in values) else values

    def add(self, item) -> None:
        for index_name, names in self.hash_names.items():
            values = [item.attrs.get(name) for name in names]
            if all(value is not None for value in values):
                wanted = tuple((value.type, value.value) for value in values)
                key = (item.hash_key, item.range_key)
                self.entries[index_name].setdefault(wanted, {})[key] = None
                order = self.orders.get((index_name, wanted))
                sort_values = self._sort_values(index_name, item)
                if order is not None and sort_values is not None:
                    entry = (sort_values, key)
                    at = bisect.bisect_left(order, sort_values, key=_sort_part)
                    while at < len(order) and order[at][0] == sort_values:
                        if order[at] == entry:
                            break
                        at += 1
                    else:
                        order.insert(at, entry)

    def page(self, table: Table, index_name: str, hash_conditions, comparison, bounds, paging):
        """The items of an index Query's page (and the one after it), walked in moto's order
        from the start key; None when the index has no sort key of its own."""
        if self.sort_names[index_name] is None:
            return None
        wanted = tuple((value.type, value.value) for _, value in hash_conditions)
        order = self.orders.get((index_name, wanted))
        if order is None:
            order = sorted(
                (values, (item.hash_key, item.range_key))
                for item in self.items(table, index_name, hash_conditions)
                if (values := self._sort_values(index_name, item)) is not None
            )
            self.orders[(index_name, wanted)] = order
        window = _key_window(order, comparison, bounds, key=_first_sort_value)
        if window is None:
            return None
        low, high = window
        limit, start_key, forward = paging
        if start_key:
            start = tuple(
                DynamoType(start_key[name]) if name in start_key else None
                for name in self.sort_names[index_name]
            )
            if any(value is None for value in start):
                return None
            if forward:
                low = max(low, bisect.bisect_right(order, start, key=_sort_part))
            else:
                high = min(high, bisect.bisect_left(order, start, key=_sort_part))
        positions = range(low, high) if forward else range(high - 1, low - 1, -1)
        page, size, stale = [], 0, []
        for position in positions:
            values, key = order[position]
            item = _current(table, *key)
            if (
                item is None
                or not all(_matches(item, n, v) for n, v in hash_conditions)
                or self._sort_values(index_name, item) != values
            ):
                stale.append(order[position])
                continue
            page.append(item)
            if _page_full(page, item, limit, size := size + (0 if limit else item.size())):
                break
        for entry in stale:
            order.remove(entry)
        return page

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
    if item is None:
        return
    with _entries_lock:
        ranges = getattr(table, "_cost_sorted_ranges", None)
        if ranges is not None and item.range_key is not None:
            ranges.put(item.hash_key, item.range_key)
        # Entries not built yet are built from the table itself.
        if getattr(table, "_cost_index_entries", None) is not None:
            table._cost_index_entries.add(item)


def _deleted(table: Table, hash_value: DynamoType) -> None:
    """A partition's order is found again on its next query (deletes are rare)."""
    with _entries_lock:
        ranges = getattr(table, "_cost_sorted_ranges", None)
        if ranges is not None:
            ranges.forget(hash_value)


class _SortedRanges:
    """A table's range keys in order, per hash key value, built for a partition on its first
    query and kept as items are written and deleted: a page of a Query is found by bisection
    and read item by item, not by sorting the partition."""

    def __init__(self) -> None:
        self.partitions: dict[DynamoType, list[DynamoType]] = {}

    def keys(self, table: Table, hash_value: DynamoType) -> list[DynamoType]:
        keys = self.partitions.get(hash_value)
        if keys is None:
            keys = self.partitions[hash_value] = sorted(table.items.get(hash_value, {}))
        return keys

    def put(self, hash_value: DynamoType, range_value: DynamoType) -> None:
        keys = self.partitions.get(hash_value)
        if keys is not None:
            at = bisect.bisect_left(keys, range_value)
            if at == len(keys) or keys[at] != range_value:
                keys.insert(at, range_value)

    def forget(self, hash_value: DynamoType) -> None:
        self.partitions.pop(hash_value, None)


def _sorted_ranges(table: Table) -> _SortedRanges:
    ranges = getattr(table, "_cost_sorted_ranges", None)
    if ranges is None:
        ranges = table._cost_sorted_ranges = _SortedRanges()
    return ranges


def _key_window(keys: list, comparison: str | None, bounds: list[DynamoType], key=None):
    """The slice of `keys` (ordered by `key` of each) that the range condition can match, or
    None when it cannot be told by bisection (moto then looks at the whole partition)."""
    if not comparison:
        return 0, len(keys)
    first = (key(keys[0]) if key else keys[0]) if keys else None
    if not bounds or (first is not None and any(bound.type != first.type for bound in bounds)):
        return None
    left = bisect.bisect_left(keys, bounds[0], key=key)
    right = bisect.bisect_right(keys, bounds[-1], key=key)
    if comparison == "BEGINS_WITH":
        prefix = bounds[0].value
        if bounds[0].type != "S" or not prefix:
            return None
        after = DynamoType({"S": prefix[:-1] + chr(ord(prefix[-1]) + 1)})
        return left, bisect.bisect_left(keys, after, key=key)
    windows = {
        "EQ": (left, right),
        "LT": (0, left),
        "LE": (0, right),
        "GT": (right, len(keys)),
        "GE": (left, len(keys)),
        "BETWEEN": (left, right),
    }
    return windows.get(comparison)


def _page(table: Table, hash_key, range_comparison, range_objs, limit, start_key, forward):
    """The items of a table Query's page (and the one after it, which tells moto there is
    more), found by bisection; None to let moto look at every item of the partition."""
    keys = _sorted_ranges(table).keys(table, hash_key)
    window = _key_window(keys, range_comparison, range_objs or [])
    if window is None:
        return None
    low, high = window
    if start_key:
        start_hash = start_key.get(table.hash_key_attr)
        start_range = start_key.get(table.range_key_attr)
        if start_hash is None or start_range is None or DynamoType(start_hash) != hash_key:
            return None
        start = DynamoType(start_range)
        if forward:
            low = max(low, bisect.bisect_right(keys, start))
        else:
            high = min(high, bisect.bisect_left(keys, start))
    positions = range(low, high) if forward else range(high - 1, low - 1, -1)
    partition = table.items.get(hash_key, {})
    page, size = [], 0
    for position in positions:
        item = partition.get(keys[position])
        if item is None:
            continue
        page.append(item)
        if _page_full(page, item, limit, size := size + (0 if limit else item.size())):
            break
    return page  # moto sorts what it is handed


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


def _candidates(table: Table, range_comparison, range_objs, index_name, hash_conditions, paging):
    """The items the key condition can match (on an index with a sort key, only the page
    asked for), or None to let moto look at every item."""
    index = table.get_index(index_name)
    names = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
    if index not in table.global_indexes or [name for name, _ in hash_conditions or []] != names:
        return None
    with _entries_lock:
        entries = _index_entries(table)
        if paging is not None:
            page = entries.page(
                table, index_name, hash_conditions, range_comparison, range_objs or [], paging
            )
            if page is not None:
                return page
        found = entries.items(table, index_name, hash_conditions)
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


def _traverse(self, node, child_id: int = -1):
    """moto's depth-first walk of an update expression's tree, each node processed by the
    first of the walker's node types it is, bottom up; with the walker's map of types built
    once per walk (moto builds it twice at every node, ten walks per update)."""
    processors = tuple(self._processing_map().items())
    kinds = tuple(kind for kind, _ in processors)

    def walk(node, child_id):
        if not isinstance(node, Node):
            return node
        parent = node.parent
        if node.children is not None:
            for index, child in enumerate(node.children):
                self.pre_processing_of_child(node, index)
                walk(child, index)
        if isinstance(node, kinds):
            node = next(process for kind, process in processors if isinstance(node, kind))(node)
            node.parent = parent
            if parent:
                parent.children[child_id] = node
        return node

    return walk(node, child_id)


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


# DynamoDB's item size limit as moto applies it (`LimitedSizeDict`).
_ITEM_BYTES_AT_MOST = 405_000


def _item_init(self, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict) -> None:
    """moto's `Item.__init__`, the item's size checked once, whole."""
    self.hash_key = hash_key
    self.range_key = range_key
    built = LimitedSizeDict.__new__(LimitedSizeDict)
    size = 0
    for key, value in attrs.items():
        typed = DynamoType(value)
        size += bytesize(key) + typed.size()
        dict.__setitem__(built, key, typed)
    if size > _ITEM_BYTES_AT_MOST:
        raise ItemSizeTooLarge
    self.attrs = built


def _replace(owner: Any, name: str, value: Any) -> None:
    # The owner's own entry (a classmethod stays one), or none when it inherits the name.
    _replaced.append((owner, name, vars(owner).get(name, _INHERITED)))
    setattr(owner, name, value)


_INHERITED = object()


def uninstall() -> None:
    """moto as it comes (the differential test runs both)."""
    global _installed
    while _replaced:
        owner, name, original = _replaced.pop()
        if original is _INHERITED:
            delattr(owner, name)
        else:
            setattr(owner, name, original)
    _installed = False


def install() -> bool:
    """Once per process, before the first transaction; whether the patches are on. They
    replace moto's internals, so on a moto other than the one they were written for (and
    compared with, `tests/unit/test_moto_patches_differential.py`) they stay off, and a line
    says so: the stack runs, only slower."""
    global _installed
    if _installed:
        return True
    if moto.__version__ != WRITTEN_FOR:
        print(
            f"moto {moto.__version__}: the emulator's cost patches (written for moto "
            f"{WRITTEN_FOR}) are off; the local stack runs at moto's own costs",
            file=sys.stderr,
            flush=True,
        )
        return False
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

    _replace(dynamodb_models, "copy", _CopyKeepingTables())
    _replace(dynamodb_tables, "copy", _CopyKeepingResults())
    _replace(backend_class, "transact_write_items", transact_write_items)
    _replace(dynamodb_models, "get_filter_expression", _filter_expression)
    _replace(dynamodb_tables, "get_filter_expression", _filter_expression)

    moto_query = Table.query
    moto_all_items = Table.all_items

    def query(self, hash_key, range_comparison, range_objs, *args, **kwargs):
        index_name = args[4] if len(args) > 4 else kwargs.get("index_name")
        legacy_filter = set(kwargs) - {"hash_key_conditions", "range_key_conditions"}
        if index_name:
            found = _candidates(
                self,
                range_comparison,
                range_objs,
                index_name,
                kwargs.get("hash_key_conditions"),
                None
                if legacy_filter or len(kwargs.get("range_key_conditions") or []) > 1
                else args[:3],
            )
        elif hash_key is not None and self.range_key_attr and not legacy_filter:
            limit, start_key, forward = args[:3]
            with _entries_lock:
                found = _page(
                    self, hash_key, range_comparison, range_objs, limit, start_key, forward
                )
        else:
            found = None
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

    _replace(Table, "query", query)
    _replace(Table, "all_items", all_items)

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

    moto_delete_item = Table.delete_item

    def delete_item(self, hash_key, range_key):
        item = moto_delete_item(self, hash_key, range_key)
        if item is not None and range_key is not None:
            _deleted(self, hash_key)
        return item

    _replace(Table, "put_item", put_item)
    _replace(Table, "delete_item", delete_item)
    _replace(backend_class, "update_item", update_item)

    moto_serialized = DynamoHandler.serialized

    def serialized(self, action_result):
        result = action_result.result
        if not (fast_answers and isinstance(result, dict)) or (
            self._get_action() not in _ITEM_OPERATIONS
        ):
            return moto_serialized(self, action_result)
        headers = {"Content-Type": "application/x-amz-json-1.0", **self.response_headers}
        return 200, headers, json.dumps(_wire(result))

    _replace(DynamoHandler, "serialized", serialized)
    # Every request lists its handler's methods (`inspect.getmembers`); a class's do not change.
    _replace(
        moto_responses,
        "method_names_from_class",
        lru_cache(maxsize=None)(moto_responses.method_names_from_class),
    )
    _replace(dynamodb_responses, "dynamo_to_dict", _to_plain)
    _replace(Item, "__init__", _item_init)
    # An update's tree, parsed once and shared: moto's validator works on its own deep copy.
    parsed_update = lru_cache(maxsize=256)(UpdateExpressionParser.make)
    _replace(UpdateExpressionParser, "make", staticmethod(parsed_update))
    _replace(DepthFirstTraverser, "traverse_node_recursively", _traverse)
    _replace(moto_parse.JSONParser, "_parse_json_body", moto_json_requests.parse_json_body)
    moto_queue_costs.install(_replace)
    return True
