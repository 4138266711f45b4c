"""The local regions' replication (chalicelib/local/replication.py): which items a write
touched, and last writer wins per item."""

from chalicelib.local.replication import Replicator, item_id, touched_keys


def key_of(table, item):
    return {"pk": item["pk"]}


def test_every_write_action_names_the_items_it_changed():
    item = {"pk": {"S": "1"}, "x": {"N": "1"}}
    assert touched_keys("PutItem", {"TableName": "t", "Item": item}, key_of) == [
        ("t", {"pk": {"S": "1"}})
    ]
    assert touched_keys("UpdateItem", {"TableName": "t", "Key": {"pk": {"S": "2"}}}, key_of) == [
        ("t", {"pk": {"S": "2"}})
    ]
    batch = {
        "RequestItems": {
            "t": [{"PutRequest": {"Item": item}}, {"DeleteRequest": {"Key": {"pk": {"S": "3"}}}}]
        }
    }
    assert touched_keys("BatchWriteItem", batch, key_of) == [
        ("t", {"pk": {"S": "1"}}),
        ("t", {"pk": {"S": "3"}}),
    ]
    transaction = {
        "TransactItems": [
            {"Put": {"TableName": "t", "Item": item}},
            {"Update": {"TableName": "u", "Key": {"pk": {"S": "4"}}}},
            {"Delete": {"TableName": "u", "Key": {"pk": {"S": "5"}}}},
            {"ConditionCheck": {"TableName": "u", "Key": {"pk": {"S": "6"}}}},
        ]
    }
    assert touched_keys("TransactWriteItems", transaction, key_of) == [
        ("t", {"pk": {"S": "1"}}),
        ("u", {"pk": {"S": "4"}}),
        ("u", {"pk": {"S": "5"}}),
    ]


def test_the_last_writer_wins_whichever_region_it_was_in():
    replicator = Replicator(journal=None, region="us-east-1", peer="http://127.0.0.1:1")
    key = {"pk": {"S": "1"}}
    replicator.stamps[item_id("t", key)] = 10.0  # written here at 10
    assert not replicator.newer({"table": "t", "key": key, "item": None, "stamp": 9.0})
    assert replicator.newer({"table": "t", "key": key, "item": None, "stamp": 11.0})
    assert not replicator.newer({"table": "t", "key": key, "item": None, "stamp": 10.5})
    assert replicator.newer({"table": "t", "key": {"pk": {"S": "2"}}, "item": None, "stamp": 1.0})
