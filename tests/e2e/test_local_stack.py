"""`make run` for real: the stack in a subprocess, over HTTP, across a restart."""

import boto3
import pytest
import requests
from botocore.exceptions import ClientError

from tests.e2e.stack import LocalStack

pytestmark = pytest.mark.e2e


@pytest.fixture
def stack(tmp_path):
    running = LocalStack(tmp_path / "data")
    yield running
    running.stop()


def test_bootstrap_call_restart_and_find_the_page_again(stack):
    stack.start()
    assert "api_key" in "".join(stack.output)  # the first start shows its key once

    created = stack.admin("bootstrap")
    assert set(created) == {"organization_id", "user_id", "api_key", "page_id"}
    pages = stack.get("/v1/pages", created["api_key"])
    assert pages.status_code == 200
    assert [page["id"] for page in pages.json()] == [created["page_id"]]

    unauthenticated = stack.get("/v1/pages")
    assert unauthenticated.status_code == 401
    assert unauthenticated.json() == {"error": "Could not authenticate"}

    stack.stop()
    stack.start()
    assert "api_key" not in "".join(stack.output)  # data found: no second bootstrap
    again = stack.get("/v1/pages", created["api_key"])
    assert again.status_code == 200
    assert [page["id"] for page in again.json()] == [created["page_id"]]


def test_admin_makes_keys_for_other_users(stack):
    stack.start()
    created = stack.admin("bootstrap")
    user = stack.admin(
        "create-user", "--organization", created["organization_id"], "--email", "sre@example.com"
    )
    key = stack.admin("create-key", "--user", user["user_id"])["api_key"]
    # A user without roles on the page reaches no page.
    assert stack.get("/v1/pages", key).json() == []
    assert stack.get(f"/v1/pages/{created['page_id']}", key).status_code == 403


def test_rate_limit_over_http(tmp_path):
    stack = LocalStack(tmp_path / "data", RATE_LIMIT_PER_MINUTE="5")
    try:
        stack.start()
        created = stack.admin("bootstrap")
        codes = [stack.get("/v1/pages", created["api_key"]).status_code for _ in range(6)]
        assert codes == [200] * 5 + [429]
        assert int(stack.get("/v1/pages", created["api_key"]).headers["Retry-After"]) >= 1
    finally:
        stack.stop()


def test_links_point_where_the_stack_serves(stack):
    stack.start()
    created = stack.admin("bootstrap")
    summary = stack.get(f"/s/{created['page_id']}/api/v2/summary.json").json()
    # PUBLIC_DOMAIN is `localhost` locally: the page's own host, on the stack's port.
    host = summary["page"]["url"].removeprefix("http://")
    assert host.endswith(f".localhost:{stack.port}")
    by_host = requests.get(
        stack.url + "/api/v2/summary.json", headers={"Host": host}, timeout=30
    ).json()
    assert by_host["page"]["id"] == created["page_id"]
    feed = stack.get(f"/s/{created['page_id']}/history.rss").text
    assert f"http://127.0.0.1:{stack.port}/s/" in feed


def test_the_emulator_answers_dynamodb_errors_as_aws_does(stack):
    """DynamoDB calls skip moto's Flask app (`emulator._Dispatcher`): its errors still reach
    the SDK with AWS's codes, and SQS, which goes through the app, still answers."""
    stack.start()
    session = boto3.session.Session(
        aws_access_key_id="local", aws_secret_access_key="local", region_name="us-east-1"
    )
    endpoint = f"http://127.0.0.1:{stack.moto_port}"
    dynamodb = session.client("dynamodb", endpoint_url=endpoint)
    table = next(name for name in dynamodb.list_tables()["TableNames"] if "claims" in name)
    key_name = dynamodb.describe_table(TableName=table)["Table"]["KeySchema"][0]["AttributeName"]
    item = {key_name: {"S": "emulator-probe"}}
    dynamodb.put_item(TableName=table, Item=item)
    assert dynamodb.get_item(TableName=table, Key=item, ConsistentRead=True)["Item"] == item

    with pytest.raises(ClientError) as refused:
        dynamodb.put_item(
            TableName=table,
            Item=item,
            ConditionExpression="attribute_not_exists(#k)",
            ExpressionAttributeNames={"#k": key_name},
        )
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as missing:
        dynamodb.get_item(TableName="no-such-table", Key=item)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as invalid:
        dynamodb.query(TableName=table, KeyConditionExpression="nonsense ===")
    assert invalid.value.response["Error"]["Code"] == "ValidationException"

    sqs = session.client("sqs", endpoint_url=endpoint)
    assert sqs.list_queues()["QueueUrls"]


def test_the_event_functions_run_below_the_api_and_the_emulator(stack):
    # Publishes (renders, compression) share the cores with the requests locally: they take
    # what the requests leave, as on AWS where they have processors of their own.
    stack.start()

    def niceness(pid: int) -> int:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rpartition(")")[2].split()[16])

    api, emulator = niceness(stack.process.pid), niceness(stack.child_pid("emulator"))
    assert niceness(stack.child_pid("workers")) > max(api, emulator)
