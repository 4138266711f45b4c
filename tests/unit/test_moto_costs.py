"""The emulator's transactions stay atomic with item copies instead of table copies."""

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from chalicelib.local import moto_costs

# A region of its own: this module's tables never meet another test's.
REGION = "ap-southeast-4"


@pytest.fixture
def dynamodb():
    moto_costs.install()
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        _page_table(client, "things")
        _names_table(client)
        yield client
        for name in client.list_tables()["TableNames"]:
            client.delete_table(TableName=name)


def _page_table(client, name: str, strings: tuple[str, ...] = (), **more) -> None:
    """A table keyed (pk, sk), declaring the string attributes `strings` for its indexes."""
    client.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": attribute, "AttributeType": "S"}
            for attribute in ("pk", "sk", *strings)
        ],
        BillingMode="PAY_PER_REQUEST",
        **more,
    )


def _names_table(client) -> None:
    client.create_table(
        TableName="names",
        KeySchema=[{"AttributeName": "name", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "name", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _key(sk: str) -> dict:
    return {"pk": {"S": "page"}, "sk": {"S": sk}}


def _set_kept_to_9(when_it_is: str | None = None) -> dict:
    update = {
        "TableName": "things",
        "Key": _key("kept"),
        "UpdateExpression": "SET n = :n",
        "ExpressionAttributeValues": {":n": {"N": "9"}},
    }
    if when_it_is is not None:
        update["ConditionExpression"] = "n = :old"
        update["ExpressionAttributeValues"][":old"] = {"N": when_it_is}
    return {"Update": update}


def test_a_cancelled_transaction_leaves_every_item_as_it_was(dynamodb):
    dynamodb.put_item(TableName="things", Item={**_key("kept"), "n": {"N": "1"}})
    dynamodb.put_item(TableName="names", Item={"name": {"S": "taken"}})
    with pytest.raises(ClientError) as raised:
        dynamodb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "things", "Item": {**_key("new"), "n": {"N": "2"}}}},
                _set_kept_to_9(),
                {"Delete": {"TableName": "names", "Key": {"name": {"S": "taken"}}}},
                {
                    "Put": {
                        "TableName": "names",
                        "Item": {"name": {"S": "taken"}},
                        "ConditionExpression": "attribute_not_exists(#n)",
                        "ExpressionAttributeNames": {"#n": "name"},
                    }
                },
            ]
        )
    assert raised.value.response["Error"]["Code"] in {
        "TransactionCanceledException",
        "ValidationException",
    }
    assert "Item" not in dynamodb.get_item(TableName="things", Key=_key("new"))
    assert dynamodb.get_item(TableName="things", Key=_key("kept"))["Item"]["n"] == {"N": "1"}
    assert "Item" in dynamodb.get_item(TableName="names", Key={"name": {"S": "taken"}})


def test_a_failed_condition_undoes_the_writes_before_it(dynamodb):
    dynamodb.put_item(TableName="things", Item={**_key("kept"), "n": {"N": "1"}})
    with pytest.raises(ClientError):
        dynamodb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "things", "Item": {**_key("new"), "n": {"N": "2"}}}},
                _set_kept_to_9(when_it_is="5"),
            ]
        )
    assert "Item" not in dynamodb.get_item(TableName="things", Key=_key("new"))
    assert dynamodb.get_item(TableName="things", Key=_key("kept"))["Item"]["n"] == {"N": "1"}


def test_a_committed_transaction_writes_every_item(dynamodb):
    dynamodb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "things", "Item": {**_key(str(number))}}} for number in range(5)
        ]
    )
    items = dynamodb.query(
        TableName="things",
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "page"}},
    )["Items"]
    assert len(items) == 5


def _query(dynamodb, **arguments) -> list[str]:
    answer = dynamodb.query(TableName="things", **arguments)
    return [item["sk"]["S"] for item in answer["Items"]]


def test_queries_answer_as_moto_does(dynamodb):
    for sk in ("a#1", "a#2", "a#2#x", "b#1", "b#2", "c"):
        item = {**_key(sk), "n": {"N": "1"}}
        if sk.startswith("a"):
            item["open"] = {"S": "page"}
        dynamodb.put_item(TableName="things", Item=item)
    dynamodb.put_item(TableName="things", Item={"pk": {"S": "other"}, "sk": {"S": "a#3"}})

    def between(low, high, **more):
        return _query(
            dynamodb,
            KeyConditionExpression="pk = :pk AND sk BETWEEN :low AND :high",
            ExpressionAttributeValues={
                ":pk": {"S": "page"},
                ":low": {"S": low},
                ":high": {"S": high},
            },
            **more,
        )

    assert between("a", "b#1") == ["a#1", "a#2", "a#2#x", "b#1"]
    assert between("a", "b#1", ScanIndexForward=False, Limit=2) == ["b#1", "a#2#x"]
    assert _query(
        dynamodb,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues={":pk": {"S": "page"}, ":prefix": {"S": "a#2"}},
    ) == ["a#2", "a#2#x"]
    assert _query(
        dynamodb,
        KeyConditionExpression="pk = :pk AND sk > :after",
        ExpressionAttributeValues={":pk": {"S": "page"}, ":after": {"S": "b#1"}},
    ) == ["b#2", "c"]
    first = dynamodb.query(
        TableName="things",
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "page"}},
        Limit=4,
    )
    rest = dynamodb.query(
        TableName="things",
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "page"}},
        ExclusiveStartKey=first["LastEvaluatedKey"],
    )
    assert [item["sk"]["S"] for item in first["Items"] + rest["Items"]] == [
        "a#1",
        "a#2",
        "a#2#x",
        "b#1",
        "b#2",
        "c",
    ]


def test_index_queries_see_only_the_items_the_index_holds(dynamodb):
    _page_table(
        dynamodb,
        "indexed",
        ("open_page", "at"),
        GlobalSecondaryIndexes=[
            {
                "IndexName": "open",
                "KeySchema": [
                    {"AttributeName": "open_page", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    for page in ("p1", "p2"):
        for number in range(5):
            item = {
                "pk": {"S": page},
                "sk": {"S": f"i#{number}"},
                "at": {"S": f"2026-0{number + 1}"},
            }
            if number % 2 == 0:
                item["open_page"] = {"S": page}
            dynamodb.put_item(TableName="indexed", Item=item)

    def open_between(start: str, end: str) -> list[tuple[str, str]]:
        answer = dynamodb.query(
            TableName="indexed",
            IndexName="open",
            KeyConditionExpression="open_page = :page AND #at BETWEEN :start AND :end",
            ExpressionAttributeNames={"#at": "at"},
            ExpressionAttributeValues={
                ":page": {"S": "p1"},
                ":start": {"S": start},
                ":end": {"S": end},
            },
            ScanIndexForward=False,
        )
        return [(item["pk"]["S"], item["sk"]["S"]) for item in answer["Items"]]

    assert open_between("2026-02", "2026-09") == [("p1", "i#4"), ("p1", "i#2")]
    # Items leave the index, join it and go away after it was first read.
    key = {"pk": {"S": "p1"}}
    dynamodb.update_item(
        TableName="indexed", Key={**key, "sk": {"S": "i#4"}}, UpdateExpression="REMOVE open_page"
    )
    dynamodb.update_item(
        TableName="indexed",
        Key={**key, "sk": {"S": "i#1"}},
        UpdateExpression="SET open_page = :page",
        ExpressionAttributeValues={":page": {"S": "p1"}},
    )
    dynamodb.delete_item(TableName="indexed", Key={**key, "sk": {"S": "i#2"}})
    dynamodb.put_item(
        TableName="indexed",
        Item={**key, "sk": {"S": "i#9"}, "at": {"S": "2026-03"}, "open_page": {"S": "p2"}},
    )
    assert open_between("2026-01", "2026-09") == [("p1", "i#1"), ("p1", "i#0")]


def _every_item_operation(dynamodb) -> list[dict]:
    """One answer of each item operation, on items of every attribute type."""
    item = {
        **_key("typed"),
        "s": {"S": "text"},
        "n": {"N": "1.5"},
        "b": {"B": b"\x00\xffbytes"},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "bs": {"BS": [b"x", b"y"]},
        "l": {"L": [{"S": "x"}, {"N": "2"}, {"NULL": True}]},
        "m": {"M": {"inner": {"BOOL": False}, "deeper": {"M": {"b": {"B": b"z"}}}}},
    }
    answers = [
        dynamodb.put_item(TableName="things", Item=item),
        dynamodb.put_item(
            TableName="things", Item={**item, "s": {"S": "new"}}, ReturnValues="ALL_OLD"
        ),
        dynamodb.put_item(TableName="names", Item={"name": {"S": "taken"}}),
        dynamodb.get_item(TableName="things", Key=_key("typed")),
        dynamodb.get_item(TableName="things", Key=_key("absent")),
        dynamodb.get_item(TableName="things", Key=_key("typed"), ReturnConsumedCapacity="TOTAL"),
        dynamodb.batch_get_item(
            RequestItems={
                "things": {"Keys": [_key("typed"), _key("absent")]},
                "names": {"Keys": [{"name": {"S": "taken"}}]},
            }
        ),
        dynamodb.query(
            TableName="things",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": "page"}},
            Limit=1,
        ),
        dynamodb.query(
            TableName="things",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": "page"}},
            Select="COUNT",
        ),
        dynamodb.update_item(
            TableName="things",
            Key=_key("typed"),
            UpdateExpression="SET n = n + :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="ALL_NEW",
        ),
        dynamodb.transact_get_items(
            TransactItems=[
                {"Get": {"TableName": "things", "Key": _key("typed")}},
                {"Get": {"TableName": "things", "Key": _key("absent")}},
            ]
        ),
        dynamodb.transact_write_items(
            TransactItems=[{"Put": {"TableName": "things", "Item": _key("other")}}]
        ),
        dynamodb.batch_write_item(
            RequestItems={"things": [{"PutRequest": {"Item": _key("third")}}]}
        ),
        dynamodb.delete_item(TableName="things", Key=_key("typed"), ReturnValues="ALL_OLD"),
    ]
    for answer in answers:
        answer.pop("ResponseMetadata", None)
    return answers


def test_item_answers_are_what_moto_serializes(dynamodb, monkeypatch):
    monkeypatch.setattr(moto_costs, "fast_answers", False)
    by_moto = _every_item_operation(dynamodb)
    for name in ("things", "names"):
        dynamodb.delete_table(TableName=name)
    _page_table(dynamodb, "things")
    _names_table(dynamodb)
    monkeypatch.setattr(moto_costs, "fast_answers", True)
    assert _every_item_operation(dynamodb) == by_moto


def test_an_idle_connection_let_go_is_not_logged_as_an_error():
    """The emulator closes an SDK connection idle for its timeout: that is how it works, and
    was every ERROR line of a run."""
    from types import SimpleNamespace

    from chalicelib.local.emulator import _RequestHandler

    logged = []
    handler = SimpleNamespace(log=lambda level, *words: logged.append(level))
    _RequestHandler.log_error(handler, "Request timed out: %r", TimeoutError("timed out"))
    assert logged == ["debug"]


def test_a_query_answers_the_stored_items_without_copying_them(dynamodb, monkeypatch):
    """moto deep-copied every item a Query answered: a publish's read of a day's 2,000
    incidents and their updates cost the emulator 0.18 s of copying."""
    from moto.dynamodb.models.dynamo_type import Item

    for number in range(50):
        dynamodb.put_item(TableName="things", Item={**_key(f"i#{number:02}"), "n": {"N": "1"}})
    copied = []
    moto_copy = Item.__deepcopy__

    def counted(item, memo):
        copied.append(item)
        return moto_copy(item, memo)

    monkeypatch.setattr(Item, "__deepcopy__", counted)
    found = _query(
        dynamodb,
        KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues={":pk": {"S": "page"}, ":prefix": {"S": "i#"}},
    )
    assert found == [f"i#{number:02}" for number in range(50)]
    assert copied == []
    # and the stored items are as they were
    kept = dynamodb.get_item(TableName="things", Key=_key("i#07"))["Item"]
    assert kept == {**_key("i#07"), "n": {"N": "1"}}
