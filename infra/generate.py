"""The CloudFormation resources of a stage, generated from the code: `python -m infra.generate`.

Writes two files that are committed (a test fails when they and the code disagree):

- `infra/resources.json`, merged into `chalice package` output (`--merge-template`):
  one DynamoDB table per PynamoDB model of `chalicelib.store` (keys, indexes, TTL, point-in-time
  recovery, on-demand billing); for each queue an `@app.on_sqs_message` function reads, the
  queue (Chalice only refers to it by name) with a dead-letter queue and a redrive policy; the
  S3 bucket of the published site (private) and the CloudFront distribution readers reach it
  through (`infra/cdn.py`: Origin Access Control, the viewer functions and their
  KeyValueStore); the signing secret and the origin's secret (Secrets Manager, generated);
  the IAM policies of the functions' roles; the deployment's own settings as stack parameters;
  and, merged into the functions Chalice emits, their names, those settings, the site bucket's
  name, the two secrets' ARNs, the routing store's ARN, and `DependsOn`.
- `.chalice/policy-<stage>.json`, the policy Chalice gives each function's role
  (`autogen_policy` is false): writing to the function's own log groups, nothing else.

Chalice's policy generator does not see PynamoDB, SQS, S3, SES or SNS calls made through our
own modules, so the data-plane permissions are written here, on the exact ARNs of the resources
this template creates. They live in separate `AWS::IAM::Policy` resources because merged
template lists replace Chalice's (a `Policies` list on the roles would drop Chalice's).
"""

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chalice.config import Config
from chalice.constants import DEFAULT_LAMBDA_TIMEOUT
from chalice.utils import to_cfn_resource_name

from chalicelib import config
from infra import alarms, cdn, email_events, grants, regions

ROOT = Path(__file__).resolve().parent.parent
RESOURCES_FILE = ROOT / "infra" / "resources.json"
CHALICE_DIR = ROOT / ".chalice"
DEFAULT_STAGE = "prod"

# A message that failed this many receives moves to the dead-letter queue (as locally).
MAX_RECEIVE_COUNT = config.MAX_RECEIVES
# AWS's advice for a queue that triggers a Lambda function: visibility at least 6x its timeout.
VISIBILITY_PER_FUNCTION_TIMEOUT = 6
MESSAGE_RETENTION_SECONDS = 4 * 24 * 3600
# Dead letters are kept as long as SQS allows, so there is time to look at them.
DEAD_LETTER_RETENTION_SECONDS = 14 * 24 * 3600

# What the code calls on its tables (tests/infra checks the code for calls not granted here).
# TransactWriteItems is not an IAM action: each item of a transaction is authorized as its own
# PutItem / UpdateItem / DeleteItem (ConditionCheckItem for a bare condition check, unused).
DYNAMODB_ACTIONS = [
    "dynamodb:GetItem",  # Model.get, refresh
    "dynamodb:PutItem",  # save, TransactWrite.save
    "dynamodb:UpdateItem",  # update
    "dynamodb:DeleteItem",  # delete, TransactWrite.delete
    "dynamodb:Query",  # Model.query, index.query
    "dynamodb:BatchWriteItem",  # Model.batch_write: queued metric data
    "dynamodb:BatchGetItem",  # store.base.read_together (auth), Model.batch_get (lists)
]
QUEUE_SENDER_ACTIONS = ["sqs:GetQueueUrl", "sqs:SendMessage"]  # SendMessageBatch is SendMessage
# What Lambda's event source mapping needs to poll a queue for a function.
QUEUE_CONSUMER_ACTIONS = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]
# chalicelib/notify/email.py: raw MIME (for the List-Unsubscribe headers), and which identities
# are verified (once per cold start), to send from a page's own address; notify/pacing.py:
# the account's sending rate (GetSendQuota, at most every 5 minutes).
EMAIL_ACTIONS = ["ses:SendRawEmail"]
EMAIL_IDENTITY_ACTIONS = [
    "ses:ListIdentities",
    "ses:GetIdentityVerificationAttributes",
    "ses:GetSendQuota",
]
SMS_ACTIONS = ["sns:Publish"]  # chalicelib/notify/sms.py, to a phone number
# chalicelib/sitestore/bucket.py: the published site's files (DeleteObjects is DeleteObject),
# for the publish function only (`cdn.publisher_statements`); the API writes only the uploaded
# images' prefix (`cdn.branding_statements`).
SITE_OBJECT_ACTIONS = cdn.SITE_OBJECT_ACTIONS
SITE_LISTING_ACTIONS = cdn.SITE_LISTING_ACTIONS
# The function that writes the site, and the one that withdraws a page from the CDN's routing.
SITE_PUBLISHER = "publish_pages"
SITE_WITHDRAWER = "api_handler"
LOG_ACTIONS = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
# chalicelib/store/secrets.py: the signing secret and the origin's secret, each read once per
# cold start.
SECRET_ACTIONS = ["secretsmanager:GetSecretValue"]

# The bucket of the published site; the functions find its (generated) name in SITE_BUCKET.
SITE_BUCKET = "SiteBucket"
SITE_BUCKET_VARIABLE = "SITE_BUCKET"
# Replaced and deleted files stay recoverable this long (a publish rewrites a page's files).
NONCURRENT_VERSION_DAYS = 30
ABORT_INCOMPLETE_UPLOAD_DAYS = 1

# The key of every signature (console sessions, reader cookies, the links in emails): a
# secret of Secrets Manager, which CloudFormation generates (it cannot make an SSM SecureString)
# and only the functions may read; they find its ARN in SIGNING_SECRET_ID. Never a table item.
SIGNING_SECRET = "SigningSecret"
SIGNING_SECRET_VARIABLE = "SIGNING_SECRET_ID"
SIGNING_SECRET_LENGTH = 64

# What CloudFront's origin `app` sends the app in `X-Origin-Verify` (`cdn.ORIGIN_VERIFY_HEADER`),
# so that the app believes the reader's address CloudFront gives it (per-client limits:
# chalicelib/http/ratelimit.py) only from a request that came through the distribution: the
# API Gateway stage is reachable without it. Generated like the signing secret; the functions
# find its ARN in ORIGIN_VERIFY_SECRET_ID.
ORIGIN_VERIFY_SECRET = "OriginVerifySecret"
ORIGIN_VERIFY_SECRET_VARIABLE = "ORIGIN_VERIFY_SECRET_ID"
ORIGIN_VERIFY_SECRET_LENGTH = 64

# Deployment settings that differ per installation: stack parameters, passed to every function.
PARAMETERS = {
    "PublicBaseUrl": {
        "variable": "PUBLIC_BASE_URL",
        "Type": "String",
        "AllowedPattern": "^https?://[^/]+.*$",
        "Description": "Where links in notifications and feeds point: the public page's "
        "https:// base URL (a custom domain, or the API Gateway URL ending in /api).",
    },
    "PublicDomain": {
        "variable": "PUBLIC_DOMAIN",
        "Type": "String",
        "Default": "",
        "AllowedPattern": "^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+)?$",
        "Description": "Every page is also served at the root of {subdomain}.<this domain> "
        "(a wildcard custom domain of the API); empty turns that off.",
    },
    "DeliveryConcurrency": {
        "Type": "Number",
        "Default": 20,
        "MinValue": 2,
        "MaxValue": 1000,
        "Description": "The most delivery functions the deliveries queue starts at once (each "
        "sends up to 10 batches of 50 recipients), so a burst of notifications cannot take the "
        "account's whole Lambda concurrency. See docs/notifications.md, Throughput on AWS.",
    },
    "ReserveDeliveryConcurrency": {
        "Type": "String",
        "Default": "false",
        "AllowedValues": ["false", "true"],
        "Description": "true reserves DeliveryConcurrency for the delivery function, so "
        "deliveries always have it however busy the API is. Lambda keeps 100 of the account's "
        "concurrency unreserved: leave false unless the account's quota is at least "
        "DeliveryConcurrency + 100 (new accounts may have 10). See docs/deploy.md.",
    },
    "NotificationsFrom": {
        "variable": "NOTIFICATIONS_FROM",
        "Type": "String",
        "AllowedPattern": "^[^@\\s]+@[^@\\s]+$",
        "Description": "From address of notification emails when a page sets none; "
        "an SES-verified identity of this account and region.",
    },
}


@contextmanager
def _stage_environment(stage: str):
    """`chalicelib.config` names resources after `STAGE`; name them for `stage` for a moment."""
    saved = os.environ.get("STAGE")
    os.environ["STAGE"] = stage
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("STAGE", None)
        else:
            os.environ["STAGE"] = saved


def _short_name(full_name: str, prefix: str, what: str) -> str:
    """`statuspage-test-pages` -> `pages`: models and queues are named when first imported."""
    if not full_name.startswith(prefix):
        raise RuntimeError(
            f"{what} {full_name!r} does not start with {prefix!r}: the code was imported "
            "under another STAGE than the one set now"
        )
    return full_name[len(prefix) :]


def _table_name(short_name: str, stage: str) -> str:
    from chalicelib import config

    with _stage_environment(stage):
        return config.table_name(short_name)


def _queue_name(short_name: str, stage: str) -> str:
    from chalicelib import config

    with _stage_environment(stage):
        return config.queue_name(short_name)


def _chalice_config(stage: str, function_name: str) -> Config:
    config_from_disk = json.loads((CHALICE_DIR / "config.json").read_text())
    return Config(
        chalice_stage=stage, function_name=function_name, config_from_disk=config_from_disk
    )


def table_resources(stage: str) -> dict[str, dict]:
    """One `AWS::DynamoDB::GlobalTable` per model of `chalicelib.store`, keyed by logical id
    (`regions.global_table`: a replica in this region and in `SecondaryRegion`)."""
    from chalicelib import config
    from chalicelib.store.tables import all_models, table_definition

    resources = {}
    for model in all_models():
        short = _short_name(model.Meta.table_name, config.table_name(""), "table")
        properties: dict[str, Any] = {
            **table_definition(model),
            "TableName": _table_name(short, stage),
        }
        properties["PointInTimeRecoverySpecification"] = {"PointInTimeRecoveryEnabled": True}
        ttl = model._ttl_attribute()
        if ttl is not None:
            properties["TimeToLiveSpecification"] = {
                "AttributeName": ttl.attr_name,
                "Enabled": True,
            }
        resources[to_cfn_resource_name(short) + "Table"] = regions.global_table(
            {
                "Type": "AWS::DynamoDB::Table",
                # The data outlives the stack: deleting the stack leaves the tables in place.
                "DeletionPolicy": "Retain",
                "UpdateReplacePolicy": "Retain",
                "Properties": properties,
            }
        )
    return resources


def functions(stage: str) -> list[dict]:
    """The Lambda functions `chalice package` makes of the app: logical ids, names, roles.

    Chalice names them (`chalice.utils.to_cfn_resource_name`): the REST API is `APIHandler`,
    each other function is its Python name in CamelCase; with `autogen_policy` false each has
    its own role, `<name>_role` in CamelCase. FunctionName is what `chalice deploy` would use,
    so the log groups have the same names whichever way the app is deployed.
    """
    from app import app
    from chalicelib import config

    app_name = _chalice_config(stage, "api_handler").app_name
    found = []
    if app.routes:
        found.append(
            {
                "name": "api_handler",
                "logical_id": "APIHandler",
                "function_name": f"{app_name}-{stage}",
                "role": to_cfn_resource_name("api_handler_role"),
                "queue": None,
            }
        )
    if app.websocket_handlers:
        raise NotImplementedError("websocket handlers: infra/generate.py does not know them yet")
    handlers = [*app.event_sources, *app.pure_lambda_functions]
    handlers += list(app.builtin_auth_handlers)
    for handler in handlers:
        queue = getattr(handler, "queue", None)
        if getattr(handler, "queue_arn", None):
            raise NotImplementedError(f"{handler.name}: a queue given by ARN is not ours to create")
        found.append(
            {
                "name": handler.name,
                "logical_id": to_cfn_resource_name(handler.name),
                "function_name": f"{app_name}-{stage}-{handler.name}",
                "role": to_cfn_resource_name(f"{handler.name}_role"),
                "queue": _short_name(queue, config.queue_name(""), "queue") if queue else None,
            }
        )
    return found


def _timeout(stage: str, function_name: str) -> int:
    return _chalice_config(stage, function_name).lambda_timeout or DEFAULT_LAMBDA_TIMEOUT


def queue_resources(stage: str) -> dict[str, dict]:
    """Each queue a function reads, with its dead-letter queue."""
    timeouts: dict[str, int] = {}
    for function in functions(stage):
        if function["queue"]:
            timeout = _timeout(stage, function["name"])
            timeouts[function["queue"]] = max(timeouts.get(function["queue"], 0), timeout)
    resources = {}
    for short in sorted(timeouts):
        logical_id = _queue_id(short)
        dead_letters_id = logical_id.removesuffix("Queue") + "DeadLetterQueue"
        name = _queue_name(short, stage)
        resources[dead_letters_id] = {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": config.dead_letter_queue_name(name),
                "MessageRetentionPeriod": DEAD_LETTER_RETENTION_SECONDS,
                "SqsManagedSseEnabled": True,
            },
        }
        resources[logical_id] = {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": name,
                "VisibilityTimeout": VISIBILITY_PER_FUNCTION_TIMEOUT * timeouts[short],
                "MessageRetentionPeriod": MESSAGE_RETENTION_SECONDS,
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {
                    "deadLetterTargetArn": {"Fn::GetAtt": [dead_letters_id, "Arn"]},
                    "maxReceiveCount": MAX_RECEIVE_COUNT,
                },
            },
        }
    return resources


def site_resources() -> dict[str, dict]:
    return {**_site_bucket(), **regions.replication_role(SITE_BUCKET)}


def _site_bucket() -> dict[str, dict]:
    """The bucket the publish function writes the public pages to: private (CloudFront reads
    it through Origin Access Control, `cdn.BUCKET_POLICY`), versioned (a bad publish is rolled
    back by restoring the objects' previous versions), encrypted, owner-enforced."""
    return {
        SITE_BUCKET: {
            "Type": "AWS::S3::Bucket",
            # CloudFormation cannot delete a bucket that holds objects: deleting the stack
            # leaves it (every file in it can be published again from the tables).
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": {
                "PublicAccessBlockConfiguration": {
                    "BlockPublicAcls": True,
                    "BlockPublicPolicy": True,
                    "IgnorePublicAcls": True,
                    "RestrictPublicBuckets": True,
                },
                "OwnershipControls": {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]},
                "BucketEncryption": {
                    "ServerSideEncryptionConfiguration": [
                        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
                    ]
                },
                # Versioning is also what S3 replication needs.
                "VersioningConfiguration": {"Status": "Enabled"},
                "ReplicationConfiguration": regions.site_replication(SITE_BUCKET),
                "LifecycleConfiguration": {
                    "Rules": [
                        {
                            "Id": "expire-old-versions",
                            "Status": "Enabled",
                            "NoncurrentVersionExpiration": {
                                "NoncurrentDays": NONCURRENT_VERSION_DAYS
                            },
                            # A deleted page's delete markers go once its old versions have.
                            "ExpiredObjectDeleteMarker": True,
                            "AbortIncompleteMultipartUpload": {
                                "DaysAfterInitiation": ABORT_INCOMPLETE_UPLOAD_DAYS
                            },
                        }
                    ]
                },
            },
        }
    }


def secret_resources(stage: str) -> dict[str, dict]:
    """The signing secret and the origin's secret: 64 random letters and digits each (about
    380 bits; no punctuation, so the origin's is a plain header value), made at the stack's
    creation. Deleting the stack schedules their deletion (recoverable for 30 days)."""
    app_name = _chalice_config(stage, "api_handler").app_name
    return {
        SIGNING_SECRET: _generated_secret(
            f"{app_name}-{stage}-signing-secret",
            "Signs console sessions, reader cookies and emailed links "
            "(chalicelib/domain/signing.py)",
            SIGNING_SECRET_LENGTH,
        ),
        ORIGIN_VERIFY_SECRET: _generated_secret(
            f"{app_name}-{stage}-origin-verify",
            "CloudFront sends it to the app in X-Origin-Verify: the request came through the "
            "distribution (chalicelib/http/ratelimit.py)",
            ORIGIN_VERIFY_SECRET_LENGTH,
        ),
    }


def _generated_secret(name: str, description: str, length: int) -> dict:
    return regions.replicated_secret(
        {
            "Type": "AWS::SecretsManager::Secret",
            "Properties": {
                "Name": name,
                "Description": description,
                "GenerateSecretString": {"PasswordLength": length, "ExcludePunctuation": True},
            },
        }
    )


def _secret_names(stage: str) -> dict[str, str]:
    """Each secret's name by logical id: how the secondary region finds its replica."""
    return {key: secret["Properties"]["Name"] for key, secret in secret_resources(stage).items()}


def _queue_id(short_name: str) -> str:
    return to_cfn_resource_name(short_name) + "Queue"


def _arn(logical_id: str) -> dict:
    return {"Fn::GetAtt": [logical_id, "Arn"]}


def _table_id(short_name: str) -> str:
    return to_cfn_resource_name(short_name) + "Table"


def function_policy_id(function: dict) -> str:
    return function["logical_id"] + "Policy"


def use_statements(uses: list[str], stage: str = DEFAULT_STAGE) -> list[dict[str, Any]]:
    """The statements that grant a function its uses (`infra/grants.py` says what each is).

    Tables by their name in this region (`regions.table_arn`): the secondary's stack has no
    table resource, and every region's functions use their own replica."""
    tables: list[Any] = []
    queues: list[Any] = []
    secrets: list[Any] = []
    secret_names = _secret_names(stage)
    for use in uses:
        kind, _, name = use.partition(":")
        if kind == "table":
            tables.append(regions.table_arn(_table_id(name), _table_name(name, stage)))
        elif kind == "index":
            table, _, index = name.partition("/")
            tables.append(
                regions.table_arn(_table_id(table), _table_name(table, stage), f"/index/{index}")
            )
        elif kind == "queue":
            queues.append(_arn(_queue_id(name)))
        elif kind == "secret":
            secret = {"signing": SIGNING_SECRET, "origin": ORIGIN_VERIFY_SECRET}[name]
            secrets.append(regions.secret_arn(secret, secret_names[secret]))
    statements: list[dict[str, Any]] = []
    if tables:
        statements.append(
            {"Sid": "Tables", "Effect": "Allow", "Action": DYNAMODB_ACTIONS, "Resource": tables}
        )
    if queues:
        statements.append(
            {
                "Sid": "SendToQueues",
                "Effect": "Allow",
                "Action": QUEUE_SENDER_ACTIONS,
                "Resource": queues,
            }
        )
    if secrets:
        statements.append(
            {"Sid": "Secrets", "Effect": "Allow", "Action": SECRET_ACTIONS, "Resource": secrets}
        )
    if "email" in uses:
        statements += [
            {
                "Sid": "Email",
                "Effect": "Allow",
                "Action": EMAIL_ACTIONS,
                # Any verified identity of this account and region: a page may set its own
                # sender; sent with the configuration set, which SES authorizes too.
                "Resource": [
                    {
                        "Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}"
                        ":identity/*"
                    },
                    email_events.configuration_set_arn(),
                ],
            },
            {
                "Sid": "EmailIdentities",
                "Effect": "Allow",
                "Action": EMAIL_IDENTITY_ACTIONS,
                # Listing and reading identities, and the sending quota, have no
                # resource-level permissions: AWS requires "*".
                "Resource": "*",
            },
        ]
    if "sms" in uses:
        statements.append(
            {
                "Sid": "Sms",
                "Effect": "Allow",
                "Action": SMS_ACTIONS,
                # An SMS is published to a phone number, which has no ARN: AWS requires "*".
                "Resource": "*",
            }
        )
    return statements


def policy_resources(stage: str) -> dict:
    """Each function's role has a policy of its own: the uses its runs showed
    (`infra/function_uses.json`, recorded by the suite: `infra/grants.py`), and the reads of
    its own queue that Lambda's event source makes for it."""
    uses = grants.load()
    resources: dict[str, dict] = {**site_policies(stage)}
    for function in functions(stage):
        statements = use_statements(uses.get(function["name"], []), stage)
        if function["queue"]:
            statements.append(
                {
                    "Sid": "ReadOwnQueue",
                    "Effect": "Allow",
                    "Action": QUEUE_CONSUMER_ACTIONS,
                    "Resource": _arn(_queue_id(function["queue"])),
                }
            )
        if statements:
            resources[function_policy_id(function)] = {
                "Type": "AWS::IAM::Policy",
                "Properties": {
                    "PolicyName": function["name"],
                    "Roles": [{"Ref": function["role"]}],
                    "PolicyDocument": {"Version": "2012-10-17", "Statement": statements},
                },
            }
    return resources


# The site's policies, by the function whose role they are on.
SITE_POLICIES = {SITE_PUBLISHER: "SitePublisherPolicy", SITE_WITHDRAWER: "SiteWithdrawalPolicy"}


def site_policies(stage: str) -> dict[str, dict]:
    """The publish function writes the pages' prefixes of the bucket and keeps the CDN's
    routing; the API withdraws a page from that routing and keeps the uploaded images (the
    `branding/` prefix, no other).
    No other function touches either."""
    roles = {function["name"]: function["role"] for function in functions(stage)}
    statements = {
        SITE_PUBLISHER: cdn.publisher_statements(SITE_BUCKET),
        SITE_WITHDRAWER: cdn.withdrawal_statements() + cdn.branding_statements(SITE_BUCKET),
    }
    return {
        logical_id: {
            "Type": "AWS::IAM::Policy",
            "Properties": {
                "PolicyName": logical_id.removesuffix("Policy").lower(),
                "Roles": [{"Ref": roles[name]}],
                "PolicyDocument": {"Version": "2012-10-17", "Statement": statements[name]},
            },
        }
        for name, logical_id in SITE_POLICIES.items()
    }


# The function that sends: it scales out by batch, up to the `DeliveryConcurrency` parameter.
DELIVERY_FUNCTION = "deliver_notifications"
# No reservation unless asked: Lambda refuses a reservation that leaves the account fewer than
# 100 unreserved executions, so on an account whose quota is 10 (new accounts may start
# there) any reservation fails the stack's creation.
RESERVES_DELIVERY_CONCURRENCY = "ReservesDeliveryConcurrency"
CONDITIONS = {
    RESERVES_DELIVERY_CONCURRENCY: {"Fn::Equals": [{"Ref": "ReserveDeliveryConcurrency"}, "true"]}
}


def _delivery_overrides(function: dict) -> dict:
    """The cap on the queue's event source and, when the stack asks for it, the same number
    reserved: Lambda then never hands the function more batches than it may run (a throttled
    batch would count a receive towards the dead-letter queue)."""
    concurrency = {"Ref": "DeliveryConcurrency"}
    event_source = to_cfn_resource_name(function["name"]) + "SqsEventSource"
    return {
        "ReservedConcurrentExecutions": {
            "Fn::If": [RESERVES_DELIVERY_CONCURRENCY, concurrency, {"Ref": "AWS::NoValue"}]
        },
        "Events": {
            event_source: {"Properties": {"ScalingConfig": {"MaximumConcurrency": concurrency}}}
        },
    }


def function_overrides(stage: str) -> dict[str, dict]:
    """What the template adds to the functions Chalice emits (merged key by key).

    A function waits for its policies: Lambda refuses to map a queue to a function whose role
    cannot read it yet, and a scheduled function may run as soon as it exists. Waiting for the
    queue policy also waits for the queue, which Chalice's template refers to by name only.
    """
    overrides = {}
    policies = policy_resources(stage)
    secret_names = _secret_names(stage)
    for function in functions(stage):
        depends_on = (
            [function_policy_id(function)] if function_policy_id(function) in policies else []
        )
        if function["name"] in SITE_POLICIES:
            depends_on.append(SITE_POLICIES[function["name"]])
        variables = {
            spec["variable"]: {"Ref": name}
            for name, spec in PARAMETERS.items()
            if "variable" in spec
        }
        variables[SITE_BUCKET_VARIABLE] = {"Ref": SITE_BUCKET}
        variables[SIGNING_SECRET_VARIABLE] = regions.secret_reference(
            SIGNING_SECRET, secret_names[SIGNING_SECRET]
        )
        variables[ORIGIN_VERIFY_SECRET_VARIABLE] = regions.secret_reference(
            ORIGIN_VERIFY_SECRET, secret_names[ORIGIN_VERIFY_SECRET]
        )
        variables[cdn.HOSTS_STORE_VARIABLE] = cdn.hosts_store_arn()
        variables[email_events.CONFIGURATION_SET_VARIABLE] = {"Ref": email_events.CONFIGURATION_SET}
        properties = {
            "FunctionName": function["function_name"],
            "Environment": {"Variables": variables},
        }
        if function["name"] == DELIVERY_FUNCTION:
            properties.update(_delivery_overrides(function))
        if function["name"] == email_events.FUNCTION:
            properties.update(email_events.function_overrides(function["logical_id"]))
        overrides[function["logical_id"]] = {"DependsOn": depends_on, "Properties": properties}
    return overrides


# Chalice's logical id of the REST API in `chalice package` output.
REST_API = "RestAPI"


def gateway_responses() -> dict[str, dict]:
    """The answers API Gateway gives itself, in the contract's error body.

    Every path and method reaches the function (`infra/greedy_routes.py`: `/` and
    `/{proxy+}`, any method), which answers an unknown path 404 and a wrong method 405 itself.
    Were a request to find no resource all the same, API Gateway would answer 403 "Missing
    Authentication Token" and, when the request carries an `Authorization` header, quote that
    header (an API key) in the body: here it is the contract's 404. Every other answer of API
    Gateway's own gets a fixed body too, so none repeats a request value. They are part of the
    API's definition, deployed with it.
    """
    from chalicelib.http import errors

    answers = {
        "MISSING_AUTHENTICATION_TOKEN": errors.not_found(),
        "RESOURCE_NOT_FOUND": errors.not_found(),
        "THROTTLED": errors.ApiError(429, errors.RATE_LIMITED),
        "REQUEST_TOO_LARGE": errors.ApiError(413, errors.TOO_LARGE),
        "DEFAULT_4XX": errors.bad_request(),
        "DEFAULT_5XX": errors.ApiError(500, errors.INTERNAL),
    }
    responses = {}
    for response_type, error in answers.items():
        response = {"responseTemplates": {"application/json": json.dumps(error.body())}}
        if not response_type.startswith("DEFAULT_"):  # the defaults keep API Gateway's code
            response["statusCode"] = error.status
        responses[response_type] = response
    return responses


def api_overrides() -> dict[str, dict]:
    """What the template adds to the REST API Chalice emits (merged key by key)."""
    return {
        REST_API: {
            "Properties": {
                "DefinitionBody": {"x-amazon-apigateway-gateway-responses": gateway_responses()}
            }
        }
    }


def template(stage: str = DEFAULT_STAGE) -> dict:
    """The template fragment for `chalice package --stage <stage> --merge-template`."""
    tables = table_resources(stage)
    queues = queue_resources(stage)
    parameters = {
        name: {key: value for key, value in spec.items() if key != "variable"}
        for name, spec in PARAMETERS.items()
    }
    chalice_config = _chalice_config(stage, "api_handler")
    return {
        "Description": f"Status page service, stage {stage} (generated by infra/generate.py)",
        "Parameters": {
            **parameters,
            **cdn.PARAMETERS,
            **alarms.PARAMETERS,
            **regions.PARAMETERS,
        },
        "Conditions": {**cdn.CONDITIONS, **CONDITIONS, **regions.CONDITIONS},
        "Resources": {
            **tables,
            **queues,
            **site_resources(),
            **cdn.resources(
                f"{chalice_config.app_name}-{stage}",
                SITE_BUCKET,
                REST_API,
                chalice_config.api_gateway_stage,
                ORIGIN_VERIFY_SECRET,
            ),
            **secret_resources(stage),
            **email_events.resources(f"{chalice_config.app_name}-{stage}"),
            **alarms.resources(
                f"{chalice_config.app_name}-{stage}",
                stage,
                functions(stage),
                [
                    key
                    for key, queue in queues.items()
                    if "RedrivePolicy" not in queue["Properties"]
                ],
                _queue_id(alarms.PUBLISH_QUEUE),
            ),
            **regions.app_failover_resources(REST_API, chalice_config.api_gateway_stage),
            **policy_resources(stage),
            **function_overrides(stage),
            **api_overrides(),
        },
        "Outputs": {
            **cdn.outputs(),
            "SiteBucketName": {
                "Description": "This region's site bucket: the other region's PeerSiteBucket",
                "Value": {"Ref": SITE_BUCKET},
            },
        },
    }


def role_policy(stage: str = DEFAULT_STAGE) -> dict:
    """`.chalice/policy-<stage>.json`: each role writes to its own function's log groups.

    Chalice puts this document inline in every function role, in `chalice package` output and
    with `chalice deploy`. It can't refer to the template's resources (it is plain JSON), so the
    data-plane permissions are in the template's `AWS::IAM::Policy` resources instead.
    """
    prefix = f"{_chalice_config(stage, 'api_handler').app_name}-{stage}"
    groups = f"arn:*:logs:*:*:log-group:/aws/lambda/{prefix}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "OwnLogGroups",
                "Effect": "Allow",
                "Action": LOG_ACTIONS,
                # The API handler's group is `<app>-<stage>`, the others' `<app>-<stage>-<name>`.
                "Resource": [groups, f"{groups}:*", f"{groups}-*"],
            }
        ],
    }


def role_policy_file(stage: str = DEFAULT_STAGE) -> Path:
    return CHALICE_DIR / (
        _chalice_config(stage, "api_handler").iam_policy_file or f"policy-{stage}.json"
    )


def render(document: dict) -> str:
    return json.dumps(document, indent=2) + "\n"


def main() -> None:
    """Writes the files of the stage `make package` deploys (whatever `STAGE` is set now)."""
    stage = DEFAULT_STAGE
    generated = template(stage)
    RESOURCES_FILE.write_text(render(generated))
    grants.rewrite_docs(ROOT, generated["Resources"], SITE_POLICIES.values())
    role_policy_file(stage).write_text(render(role_policy(stage)))
    print(
        f"wrote {RESOURCES_FILE.relative_to(ROOT)} and {role_policy_file(stage).relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main()
