"""A data directory made by an older version keeps its tables: the indexes a newer model
declares are added to them at the start, or every query of a new index would fail."""

import boto3
from moto import mock_aws


def test_an_index_a_newer_model_declares_is_added_to_a_kept_table():
    with mock_aws():
        from chalicelib import config
        from chalicelib.local import table_upgrades
        from chalicelib.store import tables
        from chalicelib.store.incidents import IncidentRecord

        # A table of its own name: other tests of the process may share this emulator.
        definition = {**tables.table_definition(IncidentRecord), "TableName": "kept-incidents"}
        older = [
            index
            for index in definition["GlobalSecondaryIndexes"]
            if index["IndexName"] != "uptime-by-page"
        ]
        used = {key["AttributeName"] for index in older for key in index["KeySchema"]}
        used |= {key["AttributeName"] for key in definition["KeySchema"]}
        attributes = [a for a in definition["AttributeDefinitions"] if a["AttributeName"] in used]
        dynamodb = boto3.client("dynamodb", region_name=config.region())
        dynamodb.create_table(
            **{**definition, "GlobalSecondaryIndexes": older, "AttributeDefinitions": attributes}
        )

        table_upgrades.add_indexes_missing_from(dynamodb, definition)

        described = dynamodb.describe_table(TableName="kept-incidents")["Table"]
        names = {index["IndexName"] for index in described["GlobalSecondaryIndexes"]}
        assert names == {index["IndexName"] for index in definition["GlobalSecondaryIndexes"]}
        found = dynamodb.query(
            TableName="kept-incidents",
            IndexName="uptime-by-page",
            KeyConditionExpression="uptime_page = :page",
            ExpressionAttributeValues={":page": {"S": "0000000000000000"}},
        )
        assert found["Items"] == []
