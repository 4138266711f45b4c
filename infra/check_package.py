"""Checks `chalice package` output against what the merged template assumes about it.

`python -m infra.check_package dist/sam.json` (`make infra-check` runs it after cfn-lint, in
cfn-lint's venv). infra/generate.py predicts Chalice's logical ids for the functions and their
roles; cfn-lint catches a policy naming a role that does not exist, this catches the reverse: a
role, function or queue of the package that the generated resources missed. It also reads the
deployment zip beside the template: what runs on Lambda carries no build or test tools.

And it keeps the package well within AWS's limits, with room to grow (issue 46), printing each
figure beside its bound (`LIMITS`): the template's size written compact, its resources as
CloudFormation counts them (after the SAM transform, by aws-sam-translator, which cfn-lint
installs; without it, the SAM template's own, fewer), the REST API's resources, and the
deployment zip's size, zipped and unzipped.
"""

import copy
import json
import sys
import zipfile
from pathlib import Path

PACKAGE_RUNTIME = "python3.13"

# Each bound is well below AWS's own, so that the template and the zip can grow.
LIMITS = {
    # CloudFormation: 1 MB for a template read from S3 (51,200 bytes sent inline).
    "template bytes, compact": 250_000,
    # CloudFormation: 500 resources a stack, counted in the template the SAM transform makes.
    "resources": 250,
    # API Gateway: 300 resources a REST API by default (infra/greedy_routes.py makes two).
    "API Gateway resources": 60,
    # Lambda: 50 MB zipped for a direct upload, 250 MB (262,144,000 bytes) unzipped.
    "zip bytes": 50 * 1024 * 1024,
    "zip bytes, unzipped": 250 * 1024 * 1024,
}
REST_API = "RestAPI"


def _queue_name(queue) -> str | None:
    """Chalice refers to a queue by ARN: a string, or `Fn::Sub` of one."""
    arn = queue.get("Fn::Sub") if isinstance(queue, dict) else queue
    return arn.rsplit(":", 1)[-1] if isinstance(arn, str) else None


def _policies_by_role(resources: dict) -> tuple[dict[str, set[str]], list[str]]:
    """Each role's policies; and the policies that name more than one role."""
    by_role: dict[str, set[str]] = {}
    shared = []
    for logical_id, resource in resources.items():
        if resource.get("Type") != "AWS::IAM::Policy":
            continue
        roles = [role["Ref"] for role in resource.get("Properties", {}).get("Roles", [])]
        if len(roles) > 1:
            shared.append(f"{logical_id}: one policy on {len(roles)} roles")
        for role in roles:
            by_role.setdefault(role, set()).add(logical_id)
    return by_role, shared


def _role_of(function: dict) -> str | None:
    role = function["Properties"].get("Role", {})
    return role.get("Fn::GetAtt", [None])[0] if isinstance(role, dict) else None


def problems(template: dict) -> list[str]:
    resources = template["Resources"]
    policies_by_role, found = _policies_by_role(resources)
    queue_names = {
        resource["Properties"]["QueueName"]
        for resource in resources.values()
        if resource.get("Type") == "AWS::SQS::Queue"
    }
    for logical_id, resource in sorted(resources.items()):
        kind = resource.get("Type")
        if kind is None:
            found.append(f"{logical_id}: merged into nothing (Chalice emits no such resource)")
        elif kind == "AWS::IAM::Role" and logical_id not in policies_by_role:
            found.append(f"{logical_id}: a function role without a policy of its own")
        elif kind == "AWS::Serverless::Function":
            properties = resource["Properties"]
            if properties.get("Runtime") != PACKAGE_RUNTIME:
                found.append(
                    f"{logical_id}: runtime {properties.get('Runtime')}, not {PACKAGE_RUNTIME}"
                )
            waits_for = set(resource.get("DependsOn", []))
            if not policies_by_role.get(_role_of(resource), set()) <= waits_for:
                found.append(f"{logical_id}: does not wait for its role's policies")
            for event_id, event in properties.get("Events", {}).items():
                if event["Type"] != "SQS":
                    continue
                if _queue_name(event["Properties"]["Queue"]) not in queue_names:
                    found.append(f"{logical_id}.{event_id}: reads a queue the template lacks")
    return found


# Installers, the emulator, test tools, and the Chalice command line's own dependencies: none
# is imported by the functions. (Chalice adds its runtime, `chalice/app.py`, by itself.)
NOT_IN_THE_PACKAGE = {
    "pip", "setuptools", "wheel", "_distutils_hack", "pkg_resources", "moto", "pytest",
    "_pytest", "hypothesis", "click", "inquirer", "blessed", "jinxed", "wcwidth", "readchar",
    "editor", "runs", "xmod", "yaml", "_yaml",
}  # fmt: skip
CHALICE_RUNTIME = {"chalice/__init__.py", "chalice/app.py", "chalice/app.pyi"}


def zip_problems(names: list[str]) -> list[str]:
    """What a deployment zip holds that the functions never import."""
    found = set()
    for name in names:
        top = name.split("/", 1)[0]
        distribution = top.split("-", 1)[0].lower() if top.endswith(".dist-info") else top
        if distribution in NOT_IN_THE_PACKAGE:
            found.add(f"deployment.zip: carries {distribution}")
        elif top == "chalice" and name not in CHALICE_RUNTIME:
            found.add("deployment.zip: carries the Chalice command line")
    return sorted(found)


def api_resources(template: dict) -> int:
    """The REST API's resources: one per distinct path prefix of its definition, the root
    included (`/a/{b}` is `/`, `/a` and `/a/{b}`)."""
    definition = template["Resources"][REST_API]["Properties"]["DefinitionBody"]
    resources = {"/"}
    for path in definition["paths"]:
        parts = path.strip("/").split("/") if path != "/" else []
        resources.update("/" + "/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return len(resources)


def transformed_resources(template: dict) -> int | None:
    """How many resources the SAM transform makes of `template`, CloudFormation's count; None
    without aws-sam-translator (cfn-lint's venv has it)."""
    try:
        import boto3
        from samtranslator.parser.parser import Parser
        from samtranslator.translator.translator import Translator
    except ImportError:
        return None
    # Any region: the count is the same in each. The template names no managed policy.
    translator = Translator(
        {}, Parser(), boto_session=boto3.session.Session(region_name="us-east-1")
    )
    packaged = copy.deepcopy(template)
    for resource in packaged["Resources"].values():
        if resource.get("Type") == "AWS::Serverless::Function":
            # What `aws cloudformation package` makes of the zip's path: the translator takes
            # only an S3 location.
            resource["Properties"]["CodeUri"] = "s3://artifacts/deployment.zip"
    transformed = translator.translate(packaged, parameter_values={})
    return len(transformed["Resources"])


def figures(template: dict, deployment: Path) -> dict[str, int]:
    """The package's figures, named as `LIMITS` names their bounds."""
    transformed = transformed_resources(template)
    with zipfile.ZipFile(deployment) as package:
        unzipped = sum(entry.file_size for entry in package.infolist())
    return {
        "template bytes, compact": len(json.dumps(template, separators=(",", ":"))),
        "resources": len(template["Resources"]) if transformed is None else transformed,
        "API Gateway resources": api_resources(template),
        "zip bytes": deployment.stat().st_size,
        "zip bytes, unzipped": unzipped,
    }


def limit_problems(measured: dict[str, int]) -> list[str]:
    return [
        f"{name}: {measured[name]:,}, over the bound of {most:,}"
        for name, most in LIMITS.items()
        if measured[name] > most
    ]


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "dist/sam.json"
    with open(path) as file:
        template = json.load(file)
    deployment = Path(path).with_name("deployment.zip")
    found = problems(template)
    with zipfile.ZipFile(deployment) as package:
        found += zip_problems(package.namelist())
    measured = figures(template, deployment)
    found += limit_problems(measured)
    for name, most in LIMITS.items():
        print(f"{path}: {name} {measured[name]:,} (at most {most:,})")
    for problem in found:
        print(f"{path}: {problem}", file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"{path}: every role, function and queue of the package is covered by infra/")


if __name__ == "__main__":
    main()
