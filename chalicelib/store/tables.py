"""The set of tables, found from the models themselves, and their creation.

Every PynamoDB model defined in a module of `chalicelib.store` is a table: a new resource adds
its module and nothing else, and the local stack, the tests and `infra/` all follow.
"""

import importlib
import pkgutil

import boto3
from pynamodb.models import Model

import chalicelib.store
from chalicelib import config


def all_models() -> list[type[Model]]:
    found: dict[str, type[Model]] = {}
    for module_info in pkgutil.iter_modules(chalicelib.store.__path__):
        module = importlib.import_module(f"chalicelib.store.{module_info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Model)
                and value.__module__ == module.__name__
            ):
                found[value.Meta.table_name] = value
    return sorted(found.values(), key=lambda model: model.Meta.table_name)


def create_all() -> None:
    """The tables the emulator lacks (the local stack and the tests; `infra/` declares them on
    AWS), through one client and one listing: PynamoDB's own creation makes a client per model
    and looks at each table before and after, 0.7 s of every start of the stack."""
    dynamodb = boto3.client("dynamodb", region_name=config.region())
    listing = dynamodb.get_paginator("list_tables").paginate()
    existing = {name for listed in listing for name in listed["TableNames"]}
    for model in all_models():
        if model.Meta.table_name in existing:
            continue
        dynamodb.create_table(**table_definition(model))
        ttl = model._ttl_attribute()
        if ttl is not None:
            dynamodb.update_time_to_live(
                TableName=model.Meta.table_name,
                TimeToLiveSpecification={"AttributeName": ttl.attr_name, "Enabled": True},
            )


def table_definition(model: type[Model]) -> dict:
    """The model's table as DynamoDB's CreateTable takes it (and CloudFormation's
    `AWS::DynamoDB::Table` its properties): on demand, keys and indexes."""
    schema = model._get_schema()
    definition: dict = {
        "TableName": model.Meta.table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": sorted(
            schema["attribute_definitions"], key=lambda a: a["AttributeName"]
        ),
        "KeySchema": _key_schema(schema["key_schema"]),
    }
    if schema["global_secondary_indexes"]:
        definition["GlobalSecondaryIndexes"] = [
            _index(index) for index in schema["global_secondary_indexes"]
        ]
    if schema["local_secondary_indexes"]:
        definition["LocalSecondaryIndexes"] = [
            _index(index) for index in schema["local_secondary_indexes"]
        ]
    return definition


def _key_schema(keys: list[dict]) -> list[dict]:
    # DynamoDB wants the hash key first; PynamoDB lists them in attribute order.
    ordered = sorted(keys, key=lambda key: key["KeyType"] != "HASH")
    return [{"AttributeName": k["AttributeName"], "KeyType": k["KeyType"]} for k in ordered]


def _index(index: dict) -> dict:
    return {
        "IndexName": index["index_name"],
        "KeySchema": _key_schema(index["key_schema"]),
        "Projection": index["projection"],
    }
