"""The committed AWS resources follow the code: tables, queues, dead letters, least privilege.

The tests run under STAGE=test (tests/conftest.py); the template is the prod stage's, so names
are compared through `generate`'s stage-explicit helpers, never through the environment.
"""

import json
import re
import zipfile
from pathlib import Path

import pytest
from chalice.app import SQSEventConfig

from infra import check_package, generate, grants

ROOT = Path(__file__).resolve().parents[2]
STAGE = "prod"
REGENERATE = "infra/ and the code disagree: run `make infra` and commit the result"


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())


@pytest.fixture(scope="module")
def resources(template) -> dict:
    return template["Resources"]


def of_type(resources: dict, kind: str) -> dict:
    return {key: value for key, value in resources.items() if value.get("Type") == kind}


def policy_documents(resources: dict) -> dict[str, dict]:
    documents = {
        key: value["Properties"]["PolicyDocument"]
        for key, value in of_type(resources, "AWS::IAM::Policy").items()
    }
    documents["role policy file"] = json.loads(generate.role_policy_file(STAGE).read_text())
    return documents


def statements(resources: dict):
    for name, document in policy_documents(resources).items():
        for statement in document["Statement"]:
            yield name, statement


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def prod_name(full_name: str) -> str:
    """`statuspage-test-pages` (the name under the tests' STAGE) -> `statuspage-prod-pages`."""
    from chalicelib import config

    short = full_name.removeprefix(config.table_name(""))
    return generate._table_name(short, STAGE)


def models():
    from chalicelib.store.tables import all_models

    return all_models()


def queues_the_app_reads() -> set[str]:
    from app import app

    return {
        prod_name(source.queue)
        for source in app.event_sources
        if isinstance(source, SQSEventConfig)
    }


def queues_the_code_sends_to() -> set[str]:
    from chalicelib import config
    from chalicelib.notify import queues

    short_names = [
        value for name, value in vars(queues).items() if name.isupper() and isinstance(value, str)
    ]
    return {prod_name(config.queue_name(short)) for short in short_names}


def test_committed_template_is_what_the_code_generates_now():
    assert generate.RESOURCES_FILE.read_text() == generate.render(generate.template(STAGE)), (
        REGENERATE
    )


def test_committed_role_policy_is_what_the_code_generates_now():
    written = generate.role_policy_file(STAGE).read_text()
    assert written == generate.render(generate.role_policy(STAGE)), REGENERATE


def test_every_model_has_its_table_with_its_keys_and_indexes(resources):
    tables = {
        table["Properties"]["TableName"]: table["Properties"]
        for table in of_type(resources, "AWS::DynamoDB::GlobalTable").values()
    }
    assert set(tables) == {prod_name(model.Meta.table_name) for model in models()}, REGENERATE
    for model in models():
        table = tables[prod_name(model.Meta.table_name)]
        expected_keys = [
            {"AttributeName": model._hash_key_attribute().attr_name, "KeyType": "HASH"}
        ]
        if model._range_key_attribute():
            expected_keys.append(
                {"AttributeName": model._range_key_attribute().attr_name, "KeyType": "RANGE"}
            )
        assert table["KeySchema"] == expected_keys, model.__name__
        declared = {index["IndexName"] for index in table.get("GlobalSecondaryIndexes", [])}
        declared |= {index["IndexName"] for index in table.get("LocalSecondaryIndexes", [])}
        assert declared == set(model._indexes), model.__name__
        defined = {definition["AttributeName"] for definition in table["AttributeDefinitions"]}
        keys = {key["AttributeName"] for key in table["KeySchema"]}
        for index in table.get("GlobalSecondaryIndexes", []):
            keys |= {key["AttributeName"] for key in index["KeySchema"]}
        assert defined == keys, model.__name__


def test_tables_are_global_on_demand_with_recovery_per_replica_and_kept_on_deletion(resources):
    for logical_id, table in of_type(resources, "AWS::DynamoDB::GlobalTable").items():
        properties = table["Properties"]
        assert properties["BillingMode"] == "PAY_PER_REQUEST", logical_id
        # Point-in-time recovery is each replica's: this region's and SecondaryRegion's.
        recovery = {"PointInTimeRecoveryEnabled": True}
        here, there = properties["Replicas"]
        assert here == {
            "Region": {"Ref": "AWS::Region"},
            "PointInTimeRecoverySpecification": recovery,
        }, logical_id
        assert there == {
            "Fn::If": [
                "HasSecondaryRegion",
                {
                    "Region": {"Ref": "SecondaryRegion"},
                    "PointInTimeRecoverySpecification": recovery,
                },
                {"Ref": "AWS::NoValue"},
            ]
        }, logical_id
        # Only the primary's stack makes the tables; the secondary's uses their replicas.
        assert table["Condition"] == "IsPrimary", logical_id
        assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain", logical_id


def test_models_with_a_ttl_attribute_have_time_to_live(resources):
    ttl_of = {
        table["Properties"]["TableName"]: table["Properties"].get("TimeToLiveSpecification")
        for table in of_type(resources, "AWS::DynamoDB::GlobalTable").values()
    }
    for model in models():
        ttl = model._ttl_attribute()
        expected = {"AttributeName": ttl.attr_name, "Enabled": True} if ttl else None
        assert ttl_of[prod_name(model.Meta.table_name)] == expected, model.__name__


def test_the_local_stack_makes_exactly_the_queues_the_app_reads():
    # The stack creates them from `queues.ALL` while it is still importing the app.
    from chalicelib.local.emulator import app_queues

    assert {prod_name(name) for name in app_queues()} == queues_the_app_reads()
    assert len(app_queues()) == len(set(app_queues()))


def test_every_queue_the_code_uses_is_in_the_template_with_a_dead_letter_queue(resources):
    queues = of_type(resources, "AWS::SQS::Queue")
    by_name = {queue["Properties"]["QueueName"]: key for key, queue in queues.items()}
    used = queues_the_app_reads() | queues_the_code_sends_to()
    assert used, "the app reads no queue: this test would check nothing"
    for name in sorted(used):
        assert name in by_name, f"{name}: {REGENERATE}"
        redrive = queues[by_name[name]]["Properties"]["RedrivePolicy"]
        assert redrive["maxReceiveCount"] == 5
        dead_letters = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
        assert dead_letters in queues and dead_letters != by_name[name]
        assert "RedrivePolicy" not in queues[dead_letters]["Properties"]


def test_queues_stay_invisible_longer_than_their_functions_run(resources):
    # Lambda refuses a queue whose visibility timeout is shorter than the function's timeout;
    # AWS advises six times as long, so a retried batch is not read twice at once.
    for function in generate.functions(STAGE):
        if function["queue"]:
            queue = resources[generate._queue_id(function["queue"])]["Properties"]
            timeout = generate._timeout(STAGE, function["name"])
            assert queue["VisibilityTimeout"] >= 6 * timeout, function["name"]


def test_no_policy_grants_a_wildcard_action(resources):
    for name, statement in statements(resources):
        assert statement["Effect"] == "Allow" and "NotAction" not in statement, name
        assert "NotResource" not in statement, name
        for action in as_list(statement["Action"]):
            assert "*" not in action, f"{name}: {action}"


# An SMS goes to a phone number, which has no ARN, and listing SES identities and reading the
# account's sending quota have no resource-level permission: AWS requires Resource "*" for
# these, and only for these.
STAR_ACTIONS = [
    ["sns:Publish"],
    ["ses:ListIdentities", "ses:GetIdentityVerificationAttributes", "ses:GetSendQuota"],
]


def test_only_sms_publishing_and_ses_identity_reads_have_a_star_resource(resources):
    for name, statement in statements(resources):
        if "*" in as_list(statement["Resource"]):
            assert as_list(statement["Action"]) in STAR_ACTIONS, name


def test_table_permissions_name_exactly_the_tables_and_indexes_of_the_template(resources):
    tables = of_type(resources, "AWS::DynamoDB::GlobalTable")
    expected = set()
    for logical_id, table in tables.items():
        # This region's replica, by its name: the secondary's stack has no table resource.
        name = table["Properties"]["TableName"]
        arn = f"arn:${{AWS::Partition}}:dynamodb:${{AWS::Region}}:${{AWS::AccountId}}:table/${{{logical_id}}}"
        expected.add(json.dumps({"Fn::Sub": [arn, {logical_id: name}]}))
        for index in table["Properties"].get("GlobalSecondaryIndexes", []):
            indexed = {"Fn::Sub": [f"{arn}/index/{index['IndexName']}", {logical_id: name}]}
            expected.add(json.dumps(indexed))
    granted = set()
    for _, statement in statements(resources):
        if any(action.startswith("dynamodb:") for action in as_list(statement["Action"])):
            granted |= {json.dumps(resource) for resource in as_list(statement["Resource"])}
    # Each function is granted the tables it uses (`test_each_role_grants_its_functions_uses`).
    assert granted and granted <= expected


def test_every_function_waits_for_the_policies_it_runs_with(resources):
    for function in generate.functions(STAGE):
        depends_on = resources[function["logical_id"]]["DependsOn"]
        # Lambda refuses to map a queue to a function whose role cannot read it yet.
        assert generate.function_policy_id(function) in depends_on
        if function["queue"]:
            own = resources[generate.function_policy_id(function)]["Properties"]
            (reads,) = [s for s in own["PolicyDocument"]["Statement"] if s["Sid"] == "ReadOwnQueue"]
            assert reads["Resource"] == {
                "Fn::GetAtt": [generate._queue_id(function["queue"]), "Arn"]
            }


def test_no_policy_is_on_more_than_one_role_and_every_role_has_its_own(resources):
    roles_of = {
        key: [role["Ref"] for role in policy["Properties"]["Roles"]]
        for key, policy in of_type(resources, "AWS::IAM::Policy").items()
    }
    assert all(len(roles) == 1 for roles in roles_of.values()), roles_of
    with_a_policy = {roles[0] for roles in roles_of.values()}
    assert {function["role"] for function in generate.functions(STAGE)} <= with_a_policy


def test_each_role_grants_its_functions_uses_and_nothing_else(resources):
    """What `infra/function_uses.json` says each function uses (the suite's record of its
    calls, checked again by every `make test`: `infra/grants.py`) is what its policy says."""
    uses = grants.load()
    for function in generate.functions(STAGE):
        policy = resources[generate.function_policy_id(function)]["Properties"]
        granted = [s for s in policy["PolicyDocument"]["Statement"] if s["Sid"] != "ReadOwnQueue"]
        assert granted == generate.use_statements(uses.get(function["name"], [])), function
    assert set(uses) <= {function["name"] for function in generate.functions(STAGE)}


def test_role_policy_file_only_writes_the_functions_own_logs():
    document = json.loads(generate.role_policy_file(STAGE).read_text())
    for statement in document["Statement"]:
        assert all(action.startswith("logs:") for action in statement["Action"])
        for resource in statement["Resource"]:
            assert resource.startswith("arn:*:logs:*:*:log-group:/aws/lambda/statuspage-prod")


# PynamoDB calls -> the IAM action each needs. Found by reading the source of the code that
# runs on Lambda (the local stack and the admin CLI run with other credentials).
CALLS = {
    "dynamodb:GetItem": r"\b[A-Z]\w*\.get\(|\.refresh\(",
    "dynamodb:PutItem": r"\.save\(",
    "dynamodb:UpdateItem": r"\.update\(\s*actions=",
    "dynamodb:DeleteItem": r"\.delete\(",
    "dynamodb:Query": r"\.query\(",
    "dynamodb:BatchWriteItem": r"\.batch_write\(",
    "dynamodb:BatchGetItem": r"\.batch_get(_item)?\(",
    "dynamodb:Scan": r"\.scan\(",
    "dynamodb:ConditionCheckItem": r"\.condition_check\(",
    "dynamodb:DescribeTable": r"\.describe_table\(",
}


def lambda_source() -> str:
    files = [ROOT / "app.py", *sorted((ROOT / "chalicelib").rglob("*.py"))]
    # The local stack, and the admin's commands with what only they call (run with an
    # operator's credentials, not the functions' role).
    skipped = (
        ROOT / "chalicelib" / "local",
        ROOT / "chalicelib" / "admin.py",
        ROOT / "chalicelib" / "domain" / "whole_tables.py",
    )
    return "\n".join(
        path.read_text() for path in files if not any(path.is_relative_to(s) for s in skipped)
    )


def test_the_policy_grants_the_dynamodb_actions_the_code_calls_and_no_others():
    source = lambda_source()
    called = {action for action, pattern in CALLS.items() if re.search(pattern, source)}
    assert set(generate.DYNAMODB_ACTIONS) == called, (
        "grant exactly what the code calls: edit DYNAMODB_ACTIONS in infra/generate.py, "
        "then run `make infra`"
    )


# boto3 S3 calls -> the IAM action each needs (DeleteObjects is authorized per key as
# DeleteObject; a paginator is named by its operation).
S3_CALLS = {
    "s3:GetObject": r"\.(get|head)_object\(|\.download_(file|fileobj)\(",
    "s3:PutObject": r"\.put_object\(|\.upload_(file|fileobj)\(|\.copy_object\(",
    "s3:DeleteObject": r"\.delete_objects?\(",
    "s3:ListBucket": r"list_objects",
}


def test_the_policy_grants_the_s3_actions_the_code_calls_and_no_others():
    source = lambda_source()
    called = {action for action, pattern in S3_CALLS.items() if re.search(pattern, source)}
    granted = set(generate.SITE_OBJECT_ACTIONS) | set(generate.SITE_LISTING_ACTIONS)
    assert granted == called, (
        "grant exactly what the code calls: edit SITE_OBJECT_ACTIONS / SITE_LISTING_ACTIONS in "
        "infra/generate.py, then run `make infra`"
    )


def test_the_site_bucket_is_private_versioned_encrypted_and_forgets_old_versions(resources):
    buckets = of_type(resources, "AWS::S3::Bucket")
    assert list(buckets) == [generate.SITE_BUCKET], REGENERATE
    properties = buckets[generate.SITE_BUCKET]["Properties"]
    assert properties["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    # No ACLs at all, and a bucket policy that lets only the site's distribution read
    # (tests/infra/test_cdn.py): nothing else but this account's roles reads it.
    assert properties["OwnershipControls"] == {
        "Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]
    }
    assert "AccessControl" not in properties
    assert "WebsiteConfiguration" not in properties
    assert list(of_type(resources, "AWS::S3::BucketPolicy")) == ["SiteBucketPolicy"]
    assert properties["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    ]
    assert properties["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = properties["LifecycleConfiguration"]["Rules"]
    assert all(rule["Status"] == "Enabled" for rule in rules)
    assert {"NoncurrentDays": 30} in [rule.get("NoncurrentVersionExpiration") for rule in rules]
    assert {"DaysAfterInitiation": 1} in [
        rule.get("AbortIncompleteMultipartUpload") for rule in rules
    ]
    # A rule without a filter applies to the whole bucket, and none expires current files.
    assert not any("Prefix" in rule or "Filter" in rule for rule in rules)
    assert not any("ExpirationInDays" in rule or "ExpirationDate" in rule for rule in rules)


def test_site_permissions_are_the_publishers_prefixes_and_its_listing_only(resources):
    bucket_arn = json.dumps({"Fn::GetAtt": [generate.SITE_BUCKET, "Arn"]})
    prefixes = {
        json.dumps({"Fn::Sub": f"${{{generate.SITE_BUCKET}.Arn}}/{prefix}"})
        for prefix in ("s/*", "hosts/*", "published/*")
    }
    granted: dict[str, set[str]] = {}
    for name, statement in statements(resources):
        if statement.get("Sid", "").startswith("Branding"):
            continue  # the uploaded images, kept and removed: tests/infra/test_cdn.py
        if name == "SiteReplicationPolicy":
            continue  # S3's own, copying to the other region: tests/infra/test_regions.py
        for action in as_list(statement["Action"]):
            if action.startswith("s3:"):
                # Only the publish function's role touches the pages' files.
                assert name == "SitePublisherPolicy", (name, action)
                granted.setdefault(action, set()).update(
                    json.dumps(resource) for resource in as_list(statement["Resource"])
                )
    assert granted == {
        "s3:GetObject": prefixes,
        "s3:PutObject": prefixes,
        "s3:DeleteObject": prefixes,
        "s3:ListBucket": {bucket_arn},
    }
    publisher = resources["SitePublisherPolicy"]["Properties"]["Roles"]
    assert publisher == [{"Ref": "PublishPagesRole"}]


def test_every_function_finds_the_site_bucket_in_its_environment(resources):
    for function in generate.functions(STAGE):
        variables = resources[function["logical_id"]]["Properties"]["Environment"]["Variables"]
        assert variables["SITE_BUCKET"] == {"Ref": generate.SITE_BUCKET}, function["name"]


def test_package_check_finds_roles_without_a_policy_shared_policies_and_unknown_queues():
    package = {
        "Resources": {
            "SharedPolicy": {
                "Type": "AWS::IAM::Policy",
                "Properties": {"Roles": [{"Ref": "WriterRole"}, {"Ref": "OtherRole"}]},
            },
            "ReaderRole": {"Type": "AWS::IAM::Role", "Properties": {}},
            "WriterRole": {"Type": "AWS::IAM::Role", "Properties": {}},
            "Writer": {
                "Type": "AWS::Serverless::Function",
                "Properties": {
                    "Runtime": "python3.13",
                    "Role": {"Fn::GetAtt": ["WriterRole", "Arn"]},
                },
            },
            "Reader": {
                "Type": "AWS::Serverless::Function",
                "Properties": {
                    "Runtime": "python3.13",
                    "Role": {"Fn::GetAtt": ["ReaderRole", "Arn"]},
                    "Events": {
                        "ReaderSqsEventSource": {
                            "Type": "SQS",
                            "Properties": {
                                "Queue": {"Fn::Sub": "arn:${AWS::Partition}:sqs:x:y:gone"}
                            },
                        }
                    },
                },
            },
            "Stray": {"Properties": {"FunctionName": "x"}},
        }
    }
    assert check_package.problems(package) == [
        "SharedPolicy: one policy on 2 roles",
        "Reader.ReaderSqsEventSource: reads a queue the template lacks",
        "ReaderRole: a function role without a policy of its own",
        "Stray: merged into nothing (Chalice emits no such resource)",
        "Writer: does not wait for its role's policies",
    ]


def test_the_deployment_zip_carries_no_build_or_test_tools():
    """`make test` packages before pytest runs (`make infra-check`); alone, pytest skips this."""
    deployment = Path(__file__).resolve().parents[2] / "dist" / "deployment.zip"
    if not deployment.exists():
        pytest.skip("no dist/deployment.zip: run `make package`")
    with zipfile.ZipFile(deployment) as package:
        assert check_package.zip_problems(package.namelist()) == []


def test_tools_in_a_zip_are_named():
    names = ["pip/__init__.py", "moto-5.2.5.dist-info/METADATA", "chalice/cli/__init__.py"]
    assert check_package.zip_problems([*names, "chalice/app.py", "pynamodb/models.py"]) == [
        "deployment.zip: carries moto",
        "deployment.zip: carries pip",
        "deployment.zip: carries the Chalice command line",
    ]


def test_paths_no_route_serves_answer_the_contract_404_and_echo_nothing(resources):
    from chalicelib.http import errors

    definition = resources[generate.REST_API]["Properties"]["DefinitionBody"]
    responses = definition["x-amazon-apigateway-gateway-responses"]
    unknown = responses["MISSING_AUTHENTICATION_TOKEN"]
    assert unknown["statusCode"] == 404
    assert json.loads(unknown["responseTemplates"]["application/json"]) == {
        "error": errors.NOT_FOUND
    }
    for response_type in ("RESOURCE_NOT_FOUND", "DEFAULT_4XX", "DEFAULT_5XX"):
        assert response_type in responses
    for response in responses.values():
        # A fixed body: no `$context.error.message` (it quotes the Authorization header), no
        # request values, and no header mapping that could copy one.
        for body in response["responseTemplates"].values():
            assert "$" not in body
            assert set(json.loads(body)) == {"error"}
        assert "responseParameters" not in response


@pytest.mark.parametrize(
    ("secret", "variable"),
    [
        (generate.SIGNING_SECRET, "SIGNING_SECRET_ID"),
        (generate.ORIGIN_VERIFY_SECRET, "ORIGIN_VERIFY_SECRET_ID"),
    ],
)
def test_each_secret_is_generated_by_the_template_and_every_function_finds_it(
    resources, secret, variable
):
    resource = resources[secret]
    assert resource["Type"] == "AWS::SecretsManager::Secret"
    generated = resource["Properties"]["GenerateSecretString"]
    assert generated["PasswordLength"] >= 32 and "SecretStringTemplate" not in generated
    assert "SecretString" not in resource["Properties"]  # never a value written in the template
    # Made once, by the primary's stack, and replicated by Secrets Manager to SecondaryRegion,
    # where the functions read the replica by the secret's name.
    assert resource["Condition"] == "IsPrimary"
    assert resource["Properties"]["ReplicaRegions"] == {
        "Fn::If": [
            "HasSecondaryRegion",
            [{"Region": {"Ref": "SecondaryRegion"}}],
            {"Ref": "AWS::NoValue"},
        ]
    }
    name = resource["Properties"]["Name"]
    for function in generate.functions(STAGE):
        variables = resources[function["logical_id"]]["Properties"]["Environment"]["Variables"]
        assert variables[variable] == {"Fn::If": ["IsPrimary", {"Ref": secret}, name]}


def test_the_functions_may_read_the_two_secrets_and_no_other(resources):
    granted = {
        (action, json.dumps(resource))
        for _, statement in statements(resources)
        for action in as_list(statement["Action"])
        if action.startswith(("secretsmanager:", "ssm:", "kms:"))
        for resource in as_list(statement["Resource"])
    }
    replica = "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
    assert granted == {
        (
            "secretsmanager:GetSecretValue",
            json.dumps(
                {
                    "Fn::If": [
                        "IsPrimary",
                        {"Ref": secret},
                        {"Fn::Sub": f"{replica}{resources[secret]['Properties']['Name']}-??????"},
                    ]
                }
            ),
        )
        for secret in (generate.SIGNING_SECRET, generate.ORIGIN_VERIFY_SECRET)
    }


def test_the_code_calls_secrets_manager_only_as_granted():
    calls = re.findall(r"\.((?:get|put|create|update|rotate|delete)_secret\w*)\(", lambda_source())
    assert calls == ["get_secret_value"]
    assert generate.SECRET_ACTIONS == ["secretsmanager:GetSecretValue"]
