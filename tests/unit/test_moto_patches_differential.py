"""The emulator's cost patches (`chalicelib/local/moto_costs.py`) change what moto costs, never
what it answers: the same generated operation sequences, run on moto as it comes and on moto
patched, give identical answers (errors and cancellation reasons included) and leave identical
tables. Puts, updates and deletes with conditions, transactions that cancel, queries with key
conditions, filters and limits, forward and backward, on tables and indexes, read page by
page."""

import io
from contextlib import redirect_stderr

import boto3
from botocore.exceptions import ClientError
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from moto.dynamodb.models.table import Table

from chalicelib.local import moto_costs
from tests import moto_differential
from tests.moto_differential import DIFFERENTIAL, same_on_both

both_mottos = moto_differential.both_mottos  # the fixture, for this module's tests

REGION = "us-east-1"


def _table(name: str, sort_key: tuple[str, str], index_keys: list[tuple[str, str, str]]) -> dict:
    """hash `pk` (S), range `sort_key` (name, type); one global index `by_g` on `index_keys`
    (name, type, HASH or RANGE)."""
    types = {"pk": "S", sort_key[0]: sort_key[1]}
    types.update({key_name: key_type for key_name, key_type, _ in index_keys})
    return {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": sort_key[0], "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": key_name, "AttributeType": key_type}
            for key_name, key_type in types.items()
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by_g",
                "KeySchema": [
                    {"AttributeName": key_name, "KeyType": role} for key_name, _, role in index_keys
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }


# An index with a sort key of its own (numbers) and one ordered by the table's keys only.
TABLES = [
    _table("ranged", ("sk", "S"), [("g", "S", "HASH"), ("n", "N", "RANGE")]),
    _table("numbered", ("n", "N"), [("g", "S", "HASH")]),
]
RANGE_OF = {"ranged": ("sk", "S"), "numbered": ("n", "N")}

hashes = st.sampled_from(["a", "b"])
sort_words = st.sampled_from(["1", "10", "2", "x1", "x2", "xy", "y", "z9"])
numbers = st.sampled_from(["-3", "0", "1", "2", "10", "2.5", "100"])
groups = st.sampled_from(["g1", "g2"])
tables = st.sampled_from(sorted(RANGE_OF))


@st.composite
def keys(draw, table: str) -> dict:
    name, kind = RANGE_OF[table]
    value = draw(sort_words if kind == "S" else numbers)
    return {"pk": {"S": draw(hashes)}, name: {kind: value}}


@st.composite
def items(draw, table: str) -> dict:
    item = draw(keys(table))
    # Mostly in the indexes, so that an index key holds more than a page of items.
    mostly = st.sampled_from([True, True, True, False])
    if draw(mostly):
        item["g"] = {"S": draw(groups)}
    if "n" not in item and draw(mostly):
        item["n"] = {"N": draw(numbers)}
    item["v"] = {"N": draw(numbers)}
    if draw(st.booleans()):
        item["tags"] = {"SS": draw(st.lists(sort_words, min_size=1, max_size=3, unique=True))}
    return item


conditions = st.sampled_from(
    [
        None,
        None,
        None,
        ("attribute_not_exists(pk)", {}),
        ("attribute_exists(pk)", {}),
        ("v < :v", {":v": {"N": "2"}}),
        ("attribute_exists(g) AND v >= :v", {":v": {"N": "1"}}),
    ]
)


def _conditioned(operation: dict, condition) -> dict:
    if condition is not None:
        operation["ConditionExpression"] = condition[0]
        if condition[1]:
            operation.setdefault("ExpressionAttributeValues", {}).update(condition[1])
    return operation


@st.composite
def puts(draw) -> tuple:
    table = draw(tables)
    put = {"TableName": table, "Item": draw(items(table))}
    return ("put_item", _conditioned(put, draw(conditions)))


# Update expressions of every clause and function, and ones moto refuses (a key attribute
# set, overlapping paths, an attribute or a map that does not exist, an unused value).
update_expressions = st.sampled_from(
    [
        ("SET v = :new, g = :g", {":new", ":g"}, {}),
        ("SET v = v + :new", {":new"}, {}),
        ("SET #n = if_not_exists(#n, :new), g = :g", {":new", ":g"}, {"#n": "n"}),
        ("SET l = list_append(if_not_exists(l, :empty), :one) REMOVE g", {":empty", ":one"}, {}),
        ("ADD v :new, tags :tags", {":new", ":tags"}, {}),
        ("DELETE tags :tags SET g = :g", {":tags", ":g"}, {}),
        ("REMOVE g, #n", set(), {"#n": "n"}),
        ("SET v = :new, v = :new", {":new"}, {}),
        ("SET pk = :g", {":g"}, {}),
        ("SET m.inner = :g", {":g"}, {}),
        ("SET v = :new", {":new", ":g"}, {}),
    ]
)


@st.composite
def update_clauses(draw) -> dict:
    """An update's expression with the values and names it uses."""
    expression, wanted, names = draw(update_expressions)
    values = {
        ":new": {"N": draw(numbers)},
        ":g": {"S": draw(groups)},
        ":tags": {"SS": draw(st.lists(sort_words, min_size=1, max_size=2, unique=True))},
        ":empty": {"L": []},
        ":one": {"L": [{"S": draw(sort_words)}]},
    }
    clauses: dict = {"UpdateExpression": expression}
    if wanted:
        clauses["ExpressionAttributeValues"] = {name: values[name] for name in sorted(wanted)}
    if names:
        clauses["ExpressionAttributeNames"] = names
    return clauses


@st.composite
def updates(draw) -> tuple:
    table = draw(tables)
    update = {
        "TableName": table,
        "Key": draw(keys(table)),
        **draw(update_clauses()),
        "ReturnValues": draw(st.sampled_from(["NONE", "ALL_NEW", "ALL_OLD", "UPDATED_NEW"])),
    }
    return ("update_item", _conditioned(update, draw(conditions)))


@st.composite
def deletes(draw) -> tuple:
    table = draw(tables)
    delete = {"TableName": table, "Key": draw(keys(table)), "ReturnValues": "ALL_OLD"}
    return ("delete_item", _conditioned(delete, draw(conditions)))


@st.composite
def transactions(draw) -> tuple:
    entries, seen = [], set()
    for _ in range(draw(st.integers(1, 4))):
        table = draw(tables)
        kind = draw(st.sampled_from(["Put", "Update", "Delete", "ConditionCheck"]))
        if kind == "Put":
            operation = {"TableName": table, "Item": draw(items(table))}
            key = {name: operation["Item"][name] for name in ("pk", RANGE_OF[table][0])}
        else:
            key = draw(keys(table))
            operation = {"TableName": table, "Key": key}
        marker = (table, repr(sorted(key.items())))
        if marker in seen:
            continue  # DynamoDB refuses an item twice in one transaction; not what is tested
        seen.add(marker)
        if kind == "Update":
            operation.update(draw(update_clauses()))
        condition = draw(conditions)
        if kind == "ConditionCheck" and condition is None:
            condition = ("attribute_exists(pk)", {})
        _conditioned(operation, condition)
        if condition is not None:
            operation["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        entries.append({kind: operation})
    return ("transact_write_items", {"TransactItems": entries})


# Mostly whole partitions, read in small pages: most queries take several.
range_conditions = st.sampled_from(
    ["", "", "", "", "=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"]
)


@st.composite
def queries(draw) -> tuple:
    table = draw(tables)
    on_index = draw(st.booleans())
    query: dict = {"TableName": table, "ScanIndexForward": draw(st.booleans())}
    values: dict = {}
    if on_index:
        query["IndexName"] = "by_g"
        expression = "g = :h"
        values[":h"] = {"S": draw(groups)}
        range_name, kind = ("n", "N") if table == "ranged" else (None, None)
    else:
        expression = "pk = :h"
        values[":h"] = {"S": draw(hashes)}
        range_name, kind = RANGE_OF[table]
    comparison = draw(range_conditions) if range_name else ""
    if comparison == "begins_with" and kind != "S":
        comparison = ""
    bound = sort_words if kind == "S" else numbers
    if comparison == "BETWEEN":
        low, high = sorted([draw(bound), draw(bound)], key=lambda v: v if kind == "S" else float(v))
        expression += f" AND {range_name} BETWEEN :low AND :high"
        values[":low"], values[":high"] = {kind: low}, {kind: high}
    elif comparison == "begins_with":
        expression += f" AND begins_with({range_name}, :r)"
        values[":r"] = {kind: draw(st.sampled_from(["x", "1", "z", "q"]))}
    elif comparison:
        expression += f" AND {range_name} {comparison} :r"
        values[":r"] = {kind: draw(bound)}
    query["KeyConditionExpression"] = expression
    if draw(st.booleans()):
        query["FilterExpression"] = "v >= :f"
        values[":f"] = {"N": draw(numbers)}
    query["ExpressionAttributeValues"] = values
    limit = draw(st.sampled_from([None, 1, 1, 1, 2, 2, 3]))
    if limit:
        query["Limit"] = limit
    return ("query", query)


def _unconditioned(operation: tuple) -> tuple:
    name, request = operation
    kept = {
        k: v
        for k, v in request.items()
        if k not in ("ConditionExpression", "ExpressionAttributeValues")
    }
    return name, kept


# A run starts by filling the tables, so that partitions and index keys hold several pages.
operations = st.tuples(
    st.lists(puts().map(_unconditioned), min_size=12, max_size=30),
    st.lists(
        st.one_of(puts(), updates(), deletes(), transactions(), queries(), queries()),
        min_size=5,
        max_size=25,
    ),
).map(lambda parts: parts[0] + parts[1])


def _answer(client, name: str, request: dict) -> list:
    """What the call answered (every page of a query, each page's start key from the last
    page's answer), or how it failed."""
    pages = []
    request = dict(request)
    while True:
        try:
            answer = getattr(client, name)(**request)
        except ClientError as error:
            pages.append({"error": error.response.get("Error"), **_reasons(error)})
            return pages
        answer.pop("ResponseMetadata", None)
        pages.append(answer)
        if name != "query" or "LastEvaluatedKey" not in answer or len(pages) > 40:
            return pages
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _reasons(error: ClientError) -> dict:
    reasons = error.response.get("CancellationReasons")
    return {"reasons": reasons} if reasons is not None else {}


def _contents(client) -> dict:
    return {
        table["TableName"]: sorted(
            client.scan(TableName=table["TableName"])["Items"], key=lambda item: repr(item)
        )
        for table in TABLES
    }


def _run(sequence: list[tuple]) -> tuple[list, dict]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        for table in TABLES:
            client.create_table(**table)
        try:
            answers = [_answer(client, name, request) for name, request in sequence]
            return answers, _contents(client)
        finally:
            # Under another test's mock (one worker runs several files) the tables would stay.
            for table in TABLES:
                client.delete_table(TableName=table["TableName"])


@settings(DIFFERENTIAL, max_examples=60)
@given(sequence=operations)
def test_patched_moto_answers_and_stores_exactly_what_moto_does(both_mottos, sequence):
    same_on_both(_run, sequence)


def test_a_query_page_costs_the_page_not_the_partition(both_mottos):
    """A Limit-ed Query hands moto its page, not the partition (the fan-out's recipients)."""
    assert moto_costs.install()
    looked_at = []
    moto_all_items = Table.all_items

    def counting(table):
        found = moto_all_items(table)
        looked_at.append(len(found))
        return found

    Table.all_items = counting
    try:
        with mock_aws():
            client = boto3.client("dynamodb", region_name=REGION)
            client.create_table(**TABLES[0])
            with boto3.resource("dynamodb", region_name=REGION).Table("ranged").batch_writer() as w:
                for number in range(2_000):
                    w.put_item(Item={"pk": "a", "sk": f"{number:05d}", "v": 1})
            answer = client.query(
                TableName="ranged",
                KeyConditionExpression="pk = :h",
                ExpressionAttributeValues={":h": {"S": "a"}},
                Limit=50,
                ExclusiveStartKey={"pk": {"S": "a"}, "sk": {"S": "01000"}},
            )
            client.delete_table(TableName="ranged")
    finally:
        Table.all_items = moto_all_items
    assert [item["sk"]["S"] for item in answer["Items"]] == [
        f"{number:05d}" for number in range(1001, 1051)
    ]
    assert answer["LastEvaluatedKey"] == {"pk": {"S": "a"}, "sk": {"S": "01050"}}
    assert looked_at == [51]


def test_on_another_moto_the_patches_stay_off_and_say_so_in_one_line(both_mottos, monkeypatch):
    moto_costs.uninstall()
    monkeypatch.setattr(moto_costs, "WRITTEN_FOR", "0.0.1")
    moto_query = Table.query
    said = io.StringIO()
    with redirect_stderr(said):
        assert moto_costs.install() is False
    assert Table.query is moto_query
    assert len(said.getvalue().strip().splitlines()) == 1
    assert "patches" in said.getvalue() and "off" in said.getvalue()


def test_an_item_at_the_size_limit_is_kept_or_refused_as_moto_does(both_mottos):
    """Items either side of moto's 405,000 bytes, put alone, in a transaction and in a batch
    (moto sizes each as it builds it; the patch sizes it once)."""

    def item(size: int, sort: str) -> dict:
        keys = {"pk": {"S": "a"}, "sk": {"S": sort}}
        keys_size = len("pk") + len("a") + len("sk") + len(sort) + len("big")
        return {**keys, "big": {"S": "x" * (size - keys_size)}}

    sequence = []
    for number, size in enumerate((404_999, 405_000, 405_001, 420_000)):
        sequence.append(("put_item", {"TableName": "ranged", "Item": item(size, f"p{number}")}))
        put = {"Put": {"TableName": "ranged", "Item": item(size, f"t{number}")}}
        sequence.append(("transact_write_items", {"TransactItems": [put]}))
    moto_costs.uninstall()
    expected = _run(sequence)
    assert moto_costs.install()
    assert _run(sequence) == expected
    answers, contents = expected
    kept = sorted(item["sk"]["S"] for item in contents["ranged"] if item["sk"]["S"][0] == "p")
    assert kept == ["p0", "p1"]  # both sides of the limit were put
