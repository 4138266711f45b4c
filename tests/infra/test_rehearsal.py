"""The deploy rehearsal's pure parts: the commands it reads from docs/deploy.md, the template
it gives the emulator, and the resources it leaves out, which are checked here instead.

`make deploy-rehearsal` runs the rest (the emulator, the CLI, the stack's checks, the API).
"""

import json
import re

import pytest
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER
from moto.cloudformation.parsing import get_model_map

from infra import deploy_doc, emulated_template, generate

PSEUDO_PARAMETERS = {
    "AWS::Partition",
    "AWS::Region",
    "AWS::AccountId",
    "AWS::URLSuffix",
    "AWS::NoValue",
    "AWS::StackName",
}
# The CloudFront, CloudWatch, Secrets Manager and SES types, as the emulator lacks them.
NOT_CREATABLE = {
    "AWS::CloudFront::Distribution",
    "AWS::CloudWatch::Alarm",
    "AWS::SecretsManager::Secret",
    "AWS::SES::ConfigurationSet",
}


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())


def references(value) -> set[str]:
    """Every logical id or parameter a piece of a template names."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= references(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "Ref":
                found.add(item)
            elif key == "Fn::GetAtt":
                found.add(item.split(".")[0] if isinstance(item, str) else item[0])
            elif key == "Fn::Sub":
                text, variables = item if isinstance(item, list) else (item, {})
                names = {m.split(".")[0] for m in re.findall(r"\$\{([^!}][^}]*)\}", text)}
                found |= (names - set(variables)) | references(variables)
            else:
                found |= references(item)
    return found


def test_the_doc_deploys_with_an_artifact_bucket_that_it_makes_first():
    mb, package, deploy, describe = deploy_doc.deploy_commands()
    assert mb == ["aws", "s3", "mb", f"s3://{deploy_doc.ARTIFACT_BUCKET}"]
    assert package[:3] == ["aws", "cloudformation", "package"]
    assert deploy_doc.option(package, "--template-file") == "dist/sam.json"
    assert deploy_doc.option(package, "--s3-bucket") == deploy_doc.ARTIFACT_BUCKET
    assert deploy[:3] == ["aws", "cloudformation", "deploy"]
    # The CLI refuses a template over 51,200 bytes without a bucket to upload it to.
    assert deploy_doc.option(deploy, "--s3-bucket") == deploy_doc.ARTIFACT_BUCKET
    assert deploy_doc.option(deploy, "--template-file") == deploy_doc.option(
        package, "--output-template-file"
    )
    assert describe[:3] == ["aws", "cloudformation", "describe-stacks"]
    assert deploy_doc.option(describe, "--stack-name") == deploy_doc.option(deploy, "--stack-name")


def test_the_doc_gives_every_parameter_without_a_default_and_no_unknown_one(template):
    _, _, deploy, _ = deploy_doc.deploy_commands()
    given = set(deploy_doc.parameter_overrides(deploy))
    parameters = template["Parameters"]
    required = {name for name, spec in parameters.items() if "Default" not in spec}
    assert required <= given, required - given
    assert given <= set(parameters), given - set(parameters)


def test_the_first_organization_command_names_its_variables_and_the_admin_cli():
    variables, words = deploy_doc.first_organization_command()
    assert variables["STAGE"] == "prod"
    assert words[1:4] == ["-m", "chalicelib.admin", "bootstrap"]


def test_commands_join_continued_lines_and_drop_comments():
    block = "aws s3 mb s3://b   # once\naws cloudformation package \\\n    --s3-bucket b\n\n"
    assert deploy_doc.commands(block) == [
        ["aws", "s3", "mb", "s3://b"],
        ["aws", "cloudformation", "package", "--s3-bucket", "b"],
    ]


def test_a_missing_section_is_named():
    with pytest.raises(ValueError, match="no section"):
        deploy_doc.code_block("# Deploy\n", deploy_doc.DEPLOY_SECTION)


def test_skipped_resources_leave_no_reference_behind(template):
    # What is merged into Chalice's resources has no type of its own here.
    resources = {key: value for key, value in template["Resources"].items() if "Type" in value}
    template = {**template, "Resources": resources}
    creatable = {resource["Type"] for resource in resources.values()} - NOT_CREATABLE
    emulated, skipped = emulated_template.for_emulator(template, creatable)
    assert skipped and set(skipped.values()) <= NOT_CREATABLE
    assert not set(skipped) & set(emulated["Resources"])
    assert not references(emulated) & set(skipped)
    for resource in emulated["Resources"].values():
        assert not set(emulated_template._as_list(resource.get("DependsOn", []))) & set(skipped)


def test_each_reference_to_a_skipped_resource_becomes_an_arn_naming_it():
    template = {
        "Resources": {
            "Secret": {"Type": "AWS::SecretsManager::Secret", "Properties": {}},
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {}},
            "Function": {
                "Type": "AWS::Lambda::Function",
                "DependsOn": ["Secret", "Queue"],
                "Properties": {
                    "A": {"Ref": "Secret"},
                    "B": {"Fn::GetAtt": ["Secret", "Id"]},
                    "C": {"Fn::Sub": "${Secret}/${Queue.Arn}/${!Secret}"},
                    "D": {"Fn::Sub": ["${Secret}", {"Secret": {"Ref": "Queue"}}]},
                    "E": {"Ref": "Queue"},
                },
            },
        },
        "Outputs": {"SecretArn": {"Value": {"Ref": "Secret"}}},
    }
    emulated, skipped = emulated_template.for_emulator(
        template, {"AWS::SQS::Queue", "AWS::Lambda::Function"}
    )
    assert skipped == {"Secret": "AWS::SecretsManager::Secret"}
    function = emulated["Resources"]["Function"]
    secret = emulated_template.placeholder("Secret", "AWS::SecretsManager::Secret")
    assert function["DependsOn"] == ["Queue"]
    assert function["Properties"] == {
        "A": {"Fn::Sub": secret},
        "B": {"Fn::Sub": emulated_template.placeholder("Secret", skipped["Secret"], "Id")},
        "C": {"Fn::Sub": f"{secret}/${{Queue.Arn}}/${{!Secret}}"},
        # The list form's own variable of that name is not the resource.
        "D": {"Fn::Sub": ["${Secret}", {"Secret": {"Ref": "Queue"}}]},
        "E": {"Ref": "Queue"},
    }
    assert emulated["Outputs"]["SecretArn"]["Value"] == {"Fn::Sub": secret}
    assert secret.startswith("arn:${AWS::Partition}:secretsmanager:${AWS::Region}:")


def skipped_by_the_emulator(template: dict) -> dict[str, dict]:
    creatable = set(get_model_map())
    return {
        key: resource
        for key, resource in template["Resources"].items()
        if "Type" in resource and resource["Type"] not in creatable
    }


def test_what_the_emulator_skips_has_its_required_properties(template):
    """The rehearsal does not create these: their schema's required properties are here
    (cfn-lint checks the rest of each in `make infra-check`; test_cdn and test_alarms what
    they do)."""
    skipped = skipped_by_the_emulator(template)
    assert skipped
    for logical_id, resource in skipped.items():
        schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", resource["Type"])
        missing = set(schema.schema.get("required", [])) - set(resource.get("Properties", {}))
        assert not missing, f"{logical_id}: lacks {missing}"


def test_what_the_emulator_skips_names_only_what_the_stack_has(template):
    skipped = skipped_by_the_emulator(template)
    known = (
        set(template["Resources"])
        | set(template["Parameters"])
        | PSEUDO_PARAMETERS
        # SAM's name of the API's stage (`RestAPI.Stage`), which its transform resolves.
        | {generate.REST_API, f"{generate.REST_API}.Stage"}
        | {function["logical_id"] for function in generate.functions(generate.DEFAULT_STAGE)}
    )
    for logical_id, resource in skipped.items():
        unknown = references(resource) - known
        assert not unknown, f"{logical_id} names {unknown}"
        for condition in emulated_template._as_list(resource.get("Condition", [])):
            assert condition in template.get("Conditions", {}), logical_id


def test_the_doc_parameter_overrides_end_at_the_next_option():
    words = ["aws", "cloudformation", "deploy", "--parameter-overrides", "A=1", "B=x=y", "--x"]
    assert deploy_doc.parameter_overrides(words) == {"A": "1", "B": "x=y"}


def test_the_rehearsal_environment_reaches_nothing_but_the_emulator():
    from infra import rehearsal

    variables = rehearsal.aws_environment("http://localhost:1234")
    assert variables["AWS_ENDPOINT_URL"] == "http://localhost:1234"
    assert variables["AWS_EC2_METADATA_DISABLED"] == "true"
    assert variables["HTTPS_PROXY"].startswith("http://127.0.0.1:")
    machine = {"AWS_PROFILE": "admin", "AWS_SESSION_TOKEN": "t", "https_proxy": "p", "PATH": "/"}
    assert rehearsal._without_aws(machine) == {"PATH": "/"}


def described(model) -> tuple[dict, dict]:
    """The model's table as DescribeTable and DescribeTimeToLive answer for it when right."""
    from chalicelib.store.tables import table_definition

    table = dict(table_definition(model))
    table["BillingModeSummary"] = {"BillingMode": table.pop("BillingMode")}
    ttl = model._ttl_attribute()
    if ttl is None:
        return table, {"TimeToLiveStatus": "DISABLED"}
    return table, {"TimeToLiveStatus": "ENABLED", "AttributeName": ttl.attr_name}


def a_model(with_index: bool, with_ttl: bool):
    from chalicelib.store.tables import all_models

    return next(
        model
        for model in all_models()
        if bool(model._get_schema()["global_secondary_indexes"]) == with_index
        and (model._ttl_attribute() is not None) == with_ttl
    )


def test_the_table_check_passes_a_table_made_as_its_model_says():
    from infra import stack_checks

    for model in (a_model(True, False), a_model(False, True)):
        assert stack_checks.table_problems(model, *described(model)) == []


def test_the_table_check_finds_a_missing_index_a_stream_and_time_to_live_off():
    from infra import stack_checks

    model = a_model(True, False)
    table, ttl = described(model)
    table["GlobalSecondaryIndexes"] = table["GlobalSecondaryIndexes"][1:]
    table["StreamSpecification"] = {"StreamEnabled": True}
    problems = stack_checks.table_problems(model, table, ttl)
    assert [problem.split(" ")[0] for problem in problems] == ["GlobalSecondaryIndexes", "has"]
    model = a_model(False, True)
    table, _ = described(model)
    (problem,) = stack_checks.table_problems(model, table, {"TimeToLiveStatus": "DISABLED"})
    assert problem.startswith("time to live")


def test_the_function_check_finds_a_wrong_parameter_and_a_bucket_of_another_stack():
    from infra import stack_checks

    stack = stack_checks.Stack(
        name="statuspage-prod",
        template={"Resources": {}},
        parameters={"PublicBaseUrl": "https://status.example.com"},
        physical_ids={generate.SITE_BUCKET: "the-stacks-bucket"},
    )
    right = {
        "STAGE": "prod",
        "PUBLIC_BASE_URL": "https://status.example.com",
        "PUBLIC_DOMAIN": "",
        "NOTIFICATIONS_FROM": "",
        generate.SITE_BUCKET_VARIABLE: "the-stacks-bucket",
        generate.SIGNING_SECRET_VARIABLE: "arn:aws:secretsmanager:us-east-1:1:secret:s",
    }
    wanted = {name for name, spec in generate.PARAMETERS.items() if "variable" in spec}
    assert "PublicBaseUrl" in wanted
    assert stack_checks._environment_problems(stack, right) == []
    wrong = {**right, "PUBLIC_BASE_URL": "https://elsewhere", "SITE_BUCKET": "another"}
    wrong[generate.SIGNING_SECRET_VARIABLE] = ""
    assert len(stack_checks._environment_problems(stack, wrong)) == 3
