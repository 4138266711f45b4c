"""Checks `chalice package` output against what the merged template assumes about it.

`python -m infra.check_package dist/sam.json` (stdlib only; `make infra-check` runs it after
cfn-lint). infra/generate.py predicts Chalice's logical ids for the functions and their roles;
cfn-lint catches a policy naming a role that does not exist, this catches the reverse: a role,
function or queue of the package that the generated resources missed. It also reads the
deployment zip beside the template: what runs on Lambda carries no build or test tools.
"""

import json
import sys
import zipfile
from pathlib import Path

PACKAGE_RUNTIME = "python3.13"


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


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "dist/sam.json"
    with open(path) as file:
        found = problems(json.load(file))
    with zipfile.ZipFile(Path(path).with_name("deployment.zip")) as deployment:
        found += zip_problems(deployment.namelist())
    for problem in found:
        print(f"{path}: {problem}", file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"{path}: every role, function and queue of the package is covered by infra/")


if __name__ == "__main__":
    main()
