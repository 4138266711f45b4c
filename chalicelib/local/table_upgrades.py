"""The tables a data directory kept from an older version, brought to the models of this one
at the start: an index a newer model declares is added (CloudFormation adds it on AWS), or
every query of it would fail."""

import boto3

from chalicelib import config
from chalicelib.store.tables import all_models, table_definition


def add_missing_indexes() -> None:
    dynamodb = boto3.client("dynamodb", region_name=config.region())
    for model in all_models():
        add_indexes_missing_from(dynamodb, table_definition(model))


def add_indexes_missing_from(dynamodb, definition: dict) -> None:
    """Those of `definition`'s indexes that its table lacks."""
    table = dynamodb.describe_table(TableName=definition["TableName"])["Table"]
    present = {index["IndexName"] for index in table.get("GlobalSecondaryIndexes", [])}
    missing = [
        index
        for index in definition.get("GlobalSecondaryIndexes", [])
        if index["IndexName"] not in present
    ]
    if missing:
        dynamodb.update_table(
            TableName=definition["TableName"],
            AttributeDefinitions=definition["AttributeDefinitions"],
            GlobalSecondaryIndexUpdates=[{"Create": index} for index in missing],
        )
