"""Each function's role grants what its runs use, no more; the docs say exactly what."""

import json
from pathlib import Path

import pytest

from infra import generate, grants

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def policies() -> dict[str, dict]:
    resources = json.loads(generate.RESOURCES_FILE.read_text())["Resources"]
    return {
        key: value for key, value in resources.items() if value.get("Type") == "AWS::IAM::Policy"
    }


def test_deploy_doc_lists_exactly_what_every_policy_grants(policies):
    assert grants.described(policies) in (ROOT / "docs" / "deploy.md").read_text()


def test_site_doc_lists_exactly_what_the_site_policies_grant(policies):
    site = {key: policies[key] for key in generate.SITE_POLICIES.values()}
    assert grants.described(site) in (ROOT / "docs" / "aws-site.md").read_text()


def test_a_call_shows_the_table_index_queue_or_channel_it_uses():
    prefix = "statuspage-test-"
    uses = grants.uses_of_call
    query = {"TableName": f"{prefix}pages", "IndexName": "by-organization"}
    assert uses("dynamodb", "Query", query, prefix) == {
        "table:pages",
        "index:pages/by-organization",
    }
    transaction = {
        "TransactItems": [
            {"Put": {"TableName": f"{prefix}incidents"}},
            {"Update": {"TableName": f"{prefix}outbox"}},
        ]
    }
    assert uses("dynamodb", "TransactWriteItems", transaction, prefix) == {
        "table:incidents",
        "table:outbox",
    }
    batch = {"RequestItems": {f"{prefix}metric-points": []}}
    assert uses("dynamodb", "BatchWriteItem", batch, prefix) == {"table:metric-points"}
    url = f"https://sqs.us-east-1.amazonaws.com/123/{prefix}publish"
    assert uses("sqs", "SendMessage", {"QueueUrl": url}, prefix) == {"queue:publish"}
    assert uses("ses", "SendRawEmail", {}, prefix) == {"email"}
    assert uses("sns", "Publish", {"PhoneNumber": "+15555550100"}, prefix) == {"sms"}
    # Another stage's table, or a call no role needs, shows nothing.
    assert uses("dynamodb", "GetItem", {"TableName": "statuspage-prod-pages"}, prefix) == set()
    assert uses("sqs", "ReceiveMessage", {"QueueUrl": url}, prefix) == set()


def test_the_check_names_each_use_lacking_and_each_grant_unused():
    granted = {"api_handler": ["table:pages", "queue:publish"]}
    seen = {"api_handler": {"table:pages", "email"}, "every_minute": {"table:checks"}}
    assert grants.differences(granted, seen) == [
        "api_handler used email, which its role does not grant",
        "api_handler's role grants queue:publish, which no run of it used",
        "every_minute used table:checks, which its role does not grant",
    ]


def test_the_recorded_uses_name_only_the_templates_tables_queues_and_functions():
    template = json.loads(generate.RESOURCES_FILE.read_text())["Resources"]
    functions = {function["name"] for function in generate.functions("prod")}
    for function, uses in grants.load().items():
        assert function in functions
        for use in uses:
            kind, _, name = use.partition(":")
            if kind == "table":
                assert generate._table_id(name) in template, use
            elif kind == "queue":
                assert generate._queue_id(name) in template, use
            else:
                assert kind in ("index", "secret", "email", "sms"), use
