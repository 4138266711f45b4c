"""What the code expects of the stack the deploy rehearsal made, read back through the
emulator's APIs: the tables of the models, the queues the functions
read with their dead letters, each function's handler, environment and trigger, the schedule,
each role's policies, and the REST API's routes.

Each check returns the problems it found (empty: passed). The expectations come from the code
(`chalicelib.store` models, `app.py`'s handlers, `infra.generate`'s functions) and, for what
only the template can say (which policy is on which role), from the template deployed.
STAGE must be `prod` before anything of `chalicelib` is imported: the models are named then.
"""

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from chalice.app import Rate, ScheduledEventConfig, SNSEventConfig, SQSEventConfig

from chalicelib import config
from infra import generate
from infra.check_package import PACKAGE_RUNTIME
from infra.rehearsal_emulator import http_method

STAGE = generate.DEFAULT_STAGE


@dataclass
class Stack:
    """The created stack, as the checks see it."""

    name: str
    template: dict  # what the emulator was given
    parameters: dict[str, str]  # the deploy command's parameter overrides
    physical_ids: dict[str, str]  # logical id -> physical id, from the stack's resources

    def logical_ids(self, kind: str) -> list[str]:
        return sorted(
            key for key, value in self.template["Resources"].items() if value["Type"] == kind
        )


def _client(service: str):
    return boto3.client(service, region_name=config.region())


def tables(stack: Stack) -> list[str]:
    """Every model's table, named as the app names it under STAGE=prod, with its keys,
    indexes, TTL, and no stream (nothing reads one); and no table the models lack."""
    from chalicelib.store.tables import all_models

    dynamodb = _client("dynamodb")
    problems = []
    made = {stack.physical_ids[key] for key in stack.logical_ids("AWS::DynamoDB::Table")}
    expected = {model.Meta.table_name for model in all_models()}
    if made != expected:
        problems.append(
            f"tables: the stack made {sorted(made - expected)} the models lack, "
            f"lacks {sorted(expected - made)}"
        )
    for model in all_models():
        name = model.Meta.table_name
        if name in made:
            table = dynamodb.describe_table(TableName=name)["Table"]
            ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
            problems += [f"{name}: {problem}" for problem in table_problems(model, table, ttl)]
    return problems


def table_problems(model: type, table: dict, ttl: dict) -> list[str]:
    """How a table, as DescribeTable and DescribeTimeToLive answer, differs from its model."""
    from chalicelib.store.tables import table_definition

    wanted = table_definition(model)
    problems = []
    billing = table.get("BillingModeSummary", {}).get("BillingMode")
    if billing != wanted["BillingMode"]:
        problems.append(f"billed {billing}, not {wanted['BillingMode']}")
    if table["KeySchema"] != wanted["KeySchema"]:
        problems.append(f"keys {table['KeySchema']}, the model's {wanted['KeySchema']}")
    attributes = sorted(table["AttributeDefinitions"], key=lambda a: a["AttributeName"])
    if attributes != wanted["AttributeDefinitions"]:
        problems.append(f"attributes {attributes}")
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if _indexes(table.get(kind, [])) != _indexes(wanted.get(kind, [])):
            problems.append(f"{kind} {sorted(_indexes(table.get(kind, [])))}")
    if table.get("StreamSpecification", {}).get("StreamEnabled"):
        problems.append("has a stream, which no function reads")
    attribute = model._ttl_attribute()
    if attribute is None and ttl.get("TimeToLiveStatus") == "ENABLED":
        problems.append(f"time to live on {ttl.get('AttributeName')}, no model's")
    if attribute is not None and (
        ttl.get("TimeToLiveStatus") != "ENABLED" or ttl.get("AttributeName") != attribute.attr_name
    ):
        problems.append(f"time to live {ttl}, the model's {attribute.attr_name}")
    return problems


def _indexes(indexes: list[dict]) -> dict[str, tuple]:
    return {
        index["IndexName"]: (
            json.dumps(index["KeySchema"]),
            json.dumps(index["Projection"], sort_keys=True),
        )
        for index in indexes
    }


def _functions() -> list[dict]:
    return generate.functions(STAGE)


def _queue_arn(name: str) -> str:
    sqs = _client("sqs")
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]


def queues(stack: Stack) -> list[str]:
    """Each queue a function reads, with the redrive to its dead-letter queue after
    MAX_RECEIVES receives, hidden at least as long as its function may run."""
    sqs = _client("sqs")
    problems = []
    for function in _functions():
        if not function["queue"]:
            continue
        name = config.queue_name(function["queue"])
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        dead_letters_arn = _queue_arn(config.dead_letter_queue_name(name))
        redrive = json.loads(attributes.get("RedrivePolicy", "{}"))
        if redrive.get("deadLetterTargetArn") != dead_letters_arn or int(
            redrive.get("maxReceiveCount", 0)
        ) != int(config.MAX_RECEIVES):
            problems.append(f"{name}: redrive {redrive}, not to {dead_letters_arn}")
        timeout = generate._timeout(STAGE, function["name"])
        if int(attributes["VisibilityTimeout"]) < timeout:
            problems.append(f"{name}: visible again after {attributes['VisibilityTimeout']} s")
    return problems


# Chalice's name for the function behind the REST API.
API_FUNCTION = "api_handler"


def api_function() -> dict:
    (found,) = [function for function in _functions() if function["name"] == API_FUNCTION]
    return found


def _handler_of(function: dict) -> str:
    """Chalice's handler string: the REST API is `app.app`, each other function its name."""
    return "app.app" if function["name"] == API_FUNCTION else f"app.{function['name']}"


def _event_sources() -> dict[str, Any]:
    from app import app

    return {source.name: source for source in app.event_sources}


def functions(stack: Stack) -> list[str]:
    """Each function with its handler (found in app.py), runtime, environment (the stage,
    the deploy's parameters, the bucket the stack made) and trigger."""
    import app as app_module

    lambda_ = _client("lambda")
    problems = []
    sources = _event_sources()
    for function in _functions():
        name = function["function_name"]
        configuration = lambda_.get_function_configuration(FunctionName=name)
        handler = _handler_of(function)
        module, _, attribute = handler.partition(".")
        if configuration["Handler"] != handler or not callable(
            getattr(app_module, attribute, None)
        ):
            problems.append(f"{name}: handler {configuration['Handler']}, not app.py's {handler}")
        if configuration["Runtime"] != PACKAGE_RUNTIME:
            problems.append(f"{name}: runtime {configuration['Runtime']}")
        variables = configuration.get("Environment", {}).get("Variables", {})
        problems += [f"{name}: {problem}" for problem in _environment_problems(stack, variables)]
        source = sources.get(function["name"])
        if isinstance(source, SQSEventConfig):
            queue_arn = _queue_arn(config.queue_name(function["queue"]))
            mappings = lambda_.list_event_source_mappings(FunctionName=name)["EventSourceMappings"]
            found = [(m["EventSourceArn"], m["BatchSize"]) for m in mappings]
            if found != [(queue_arn, source.batch_size)]:
                problems.append(f"{name}: reads {found}, not {queue_arn} by {source.batch_size}")
        elif isinstance(source, SNSEventConfig):
            problems += [f"{name}: {problem}" for problem in _topic_trigger_problems(name, source)]
    return problems


def _topic_trigger_problems(function_name: str, source: SNSEventConfig) -> list[str]:
    """The topic exists and may invoke the function. (The subscription itself is one of the
    resources the emulator's CloudFormation does not create: tests/infra checks it.)"""
    topics = _client("sns").get_paginator("list_topics").paginate()
    arns = [t["TopicArn"] for page in topics for t in page["Topics"]]
    matching = [arn for arn in arns if arn.rsplit(":", 1)[-1] == source.topic]
    if len(matching) != 1:
        return [f"no topic {source.topic}"]
    policy = json.loads(_client("lambda").get_policy(FunctionName=function_name)["Policy"])
    allowed = [
        statement
        for statement in policy["Statement"]
        if statement.get("Principal", {}).get("Service") == "sns.amazonaws.com"
        and matching[0] in json.dumps(statement.get("Condition", {}))
    ]
    return [] if allowed else [f"{source.topic} may not invoke it ({policy['Statement']})"]


def _environment_problems(stack: Stack, variables: dict[str, str]) -> list[str]:
    wanted = {"STAGE": STAGE}
    for parameter, spec in generate.PARAMETERS.items():
        if "variable" in spec:
            wanted[spec["variable"]] = stack.parameters.get(parameter, spec.get("Default", ""))
    wanted[generate.SITE_BUCKET_VARIABLE] = stack.physical_ids[generate.SITE_BUCKET]
    problems = [
        f"{key}={variables.get(key)!r}, not {value!r}"
        for key, value in wanted.items()
        if variables.get(key) != value
    ]
    # The rest name resources: each must have a value (a skipped one's is its placeholder).
    problems += [
        f"{key} is empty" for key, value in variables.items() if not value and key not in wanted
    ]
    return problems


def schedules(stack: Stack) -> list[str]:
    """Each scheduled function has its rule at the app's rate, targeting it, enabled."""
    events = _client("events")
    lambda_ = _client("lambda")
    problems = []
    rules = events.list_rules()["Rules"]
    for function in _functions():
        source = _event_sources().get(function["name"])
        if not isinstance(source, ScheduledEventConfig):
            continue
        expression = source.schedule_expression
        if isinstance(expression, Rate):
            expression = expression.to_string()
        arn = lambda_.get_function_configuration(FunctionName=function["function_name"])[
            "FunctionArn"
        ]
        matching = [
            rule
            for rule in rules
            if rule.get("ScheduleExpression") == expression
            and rule.get("State") == "ENABLED"
            and any(
                target["Arn"] == arn
                for target in events.list_targets_by_rule(Rule=rule["Name"])["Targets"]
            )
        ]
        if len(matching) != 1:
            problems.append(f"{function['function_name']}: {len(matching)} rules of {expression}")
    return problems


def roles(stack: Stack) -> list[str]:
    """Each function's role: Lambda may assume it, and it holds exactly the policies the
    template puts on it (Chalice's own, for its logs, and each `AWS::IAM::Policy` naming
    it), with their actions."""
    lambda_ = _client("lambda")
    iam = _client("iam")
    problems = []
    attached: dict[str, dict[str, set]] = {}
    for logical_id in stack.logical_ids("AWS::IAM::Policy"):
        properties = stack.template["Resources"][logical_id]["Properties"]
        for role in properties.get("Roles", []):
            attached.setdefault(role["Ref"], {})[properties["PolicyName"]] = _actions(
                properties["PolicyDocument"]
            )
    for logical_id in stack.logical_ids("AWS::IAM::Role"):
        for policy in stack.template["Resources"][logical_id]["Properties"].get("Policies", []):
            attached.setdefault(logical_id, {})[policy["PolicyName"]] = _actions(
                policy["PolicyDocument"]
            )
    for function in _functions():
        role_arn = lambda_.get_function_configuration(FunctionName=function["function_name"])[
            "Role"
        ]
        role_name = role_arn.rsplit("/", 1)[-1]
        if stack.physical_ids.get(function["role"]) != role_name:
            problems.append(f"{function['function_name']}: runs as {role_name}")
            continue
        role = iam.get_role(RoleName=role_name)["Role"]
        trust = _document(role["AssumeRolePolicyDocument"])
        principals = [s.get("Principal", {}).get("Service") for s in trust["Statement"]]
        if "lambda.amazonaws.com" not in principals:
            problems.append(f"{role_name}: Lambda may not assume it ({principals})")
        found = {
            policy: _actions(
                iam.get_role_policy(RoleName=role_name, PolicyName=policy)["PolicyDocument"]
            )
            for policy in iam.list_role_policies(RoleName=role_name)["PolicyNames"]
        }
        if found != attached.get(function["role"], {}):
            problems.append(
                f"{role_name}: holds {sorted(found)}, the template gives it "
                f"{sorted(attached.get(function['role'], {}))} (or their actions differ)"
            )
    return problems


def _document(document: Any) -> dict:
    """A policy document as IAM answers it: boto3 decodes JSON itself; moto answers with
    Python's repr of the document CloudFormation gave it, which it leaves a string."""
    if not isinstance(document, str):
        return document
    try:
        return json.loads(document)
    except json.JSONDecodeError:
        return ast.literal_eval(document)


def _actions(document: Any) -> set:
    document = _document(document)
    return {
        action
        for statement in document["Statement"]
        for action in (
            statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        )
    }


# API Gateway's default quota of resources (paths) per REST API: a deploy beyond it fails.
API_RESOURCES_QUOTA = 300


def api(stack: Stack) -> list[str]:
    """The REST API has every path and method of its definition, each sent to the API's
    function, the definition's gateway responses, and no more resources than API Gateway's
    default quota."""
    apigateway = _client("apigateway")
    lambda_ = _client("lambda")
    (rest_api,) = stack.logical_ids("AWS::ApiGateway::RestApi")
    api_id = stack.physical_ids[rest_api]
    definition = stack.template["Resources"][rest_api]["Properties"]["Body"]
    function_arn = lambda_.get_function_configuration(FunctionName=api_function()["function_name"])[
        "FunctionArn"
    ]
    pages = apigateway.get_paginator("get_resources").paginate(restApiId=api_id)
    resources = {item["path"]: item for page in pages for item in page["items"]}
    problems = []
    if len(resources) > API_RESOURCES_QUOTA:
        problems.append(f"{len(resources)} resources, over API Gateway's {API_RESOURCES_QUOTA}")
    for path, methods in definition["paths"].items():
        resource = resources.get(path)
        if resource is None:
            problems.append(f"{path}: no resource")
            continue
        for key in methods:
            method = http_method(key)
            integration = apigateway.get_integration(
                restApiId=api_id, resourceId=resource["id"], httpMethod=method
            )
            if function_arn not in integration.get("uri", ""):
                problems.append(f"{method} {path}: sent to {integration.get('uri')}")
    responses = {
        item["responseType"]: item
        for item in apigateway.get_gateway_responses(restApiId=api_id)["items"]
    }
    for response_type, response in definition.get(
        "x-amazon-apigateway-gateway-responses", {}
    ).items():
        found = responses.get(response_type, {})
        if found.get("responseTemplates") != response.get("responseTemplates"):
            problems.append(f"gateway response {response_type}: {found}")
    return problems


# Each check by what it covers, in the order the rehearsal prints them.
CHECKS: dict[str, Callable[[Stack], list[str]]] = {
    "tables": tables,
    "queues": queues,
    "functions": functions,
    "schedules": schedules,
    "roles": roles,
    "api": api,
}
