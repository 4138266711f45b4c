"""What each Lambda function uses of AWS, seen from its calls, and the check that its role
grants exactly that.

A use is a resource in words, the unit a role's policy names (`infra/generate.py` turns each
into statements): `table:<short name>` (every DynamoDB action of the code, on the table),
`index:<table>/<index>` (queries of an index), `queue:<short name>` (sending to the queue),
`secret:signing` and `secret:origin` (the two Secrets Manager secrets), `email` (sending
through SES, and reading which identities SES has verified, since every email first picks
its sender) and `sms` (publishing to a phone number).

The uses are recorded while the in-process tests run (`tests/aws_uses.py`: every AWS call,
by the function running when it was made) and committed in `infra/function_uses.json`, from
which `make infra` writes the roles' policies. `make test` records them again and
`python -m infra.grants check DIR` fails when a function used what its role lacks, or its role
holds what no run of it used. After a change of what the code calls:

    make uses    # the suite recorded, infra/function_uses.json and the template rewritten

What a function does with the site bucket and the CDN's routing store is not here: one function
each (`SITE_POLICIES` in `infra/generate.py`), with tests of their own.
"""

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

USES_FILE = Path(__file__).resolve().parent / "function_uses.json"
# Every Lambda function's Chalice name, and which of them answer the REST API.
API_FUNCTION = "api_handler"


def _short(name: str, prefix: str) -> str | None:
    return name[len(prefix) :] if name.startswith(prefix) else None


def uses_of_call(service: str, operation: str, params: dict, prefix: str) -> set[str]:
    """The uses one AWS call shows; `prefix` is the stage's table and queue name prefix
    (`statuspage-test-`). Calls this module does not know show none."""
    if service == "dynamodb":
        return _dynamodb_uses(operation, params, prefix)
    if service == "sqs" and operation in ("SendMessage", "SendMessageBatch"):
        queue = _short(params.get("QueueUrl", "").rstrip("/").rsplit("/", 1)[-1], prefix)
        return {f"queue:{queue}"} if queue else set()
    if service == "ses" and operation in ("SendRawEmail", "SendEmail"):
        return {"email"}
    if service == "sns" and operation == "Publish" and "PhoneNumber" in params:
        return {"sms"}
    return set()


def _dynamodb_uses(operation: str, params: dict, prefix: str) -> set[str]:
    if operation in ("BatchWriteItem", "BatchGetItem"):
        tables = list(params.get("RequestItems", {}))
    elif operation in ("TransactWriteItems", "TransactGetItems"):
        tables = [
            request["TableName"]
            for item in params.get("TransactItems", [])
            for request in item.values()
        ]
    else:
        tables = [params.get("TableName", "")]
    uses = {f"table:{short}" for short in (_short(table, prefix) for table in tables) if short}
    index = params.get("IndexName")
    if index and uses:
        uses.add(f"index:{_short(tables[0], prefix)}/{index}")
    return uses


def load(path: Path = USES_FILE) -> dict[str, list[str]]:
    return json.loads(path.read_text())


def recorded(directory: Path) -> dict[str, set[str]]:
    """The uses the test processes wrote (one file each) under `directory`, merged."""
    merged: dict[str, set[str]] = {}
    for path in sorted(directory.glob("*.json")):
        for function, uses in json.loads(path.read_text()).items():
            merged.setdefault(function, set()).update(uses)
    return merged


def render(uses: dict[str, Iterable[str]]) -> str:
    return json.dumps({name: sorted(uses[name]) for name in sorted(uses)}, indent=2) + "\n"


def differences(granted: dict[str, list[str]], seen: dict[str, set[str]]) -> list[str]:
    """Each function's uses its role lacks, and those it holds that no run showed."""
    problems = []
    for function in sorted(set(granted) | set(seen)):
        held, used = set(granted.get(function, [])), seen.get(function, set())
        for use in sorted(used - held):
            problems.append(f"{function} used {use}, which its role does not grant")
        for use in sorted(held - used):
            problems.append(f"{function}'s role grants {use}, which no run of it used")
    return problems


def _resource_text(resource) -> str:
    """A statement's resource as the docs name it: `PagesTable`, `SiteBucket/s/*`, `*`."""
    if isinstance(resource, str):
        return resource
    if "Ref" in resource:
        return resource["Ref"]
    if "Fn::GetAtt" in resource:
        return resource["Fn::GetAtt"][0]
    if "Fn::If" in resource:  # the primary's resource, or the secondary's name for it
        return _resource_text(resource["Fn::If"][1])
    text = resource["Fn::Sub"]
    text = text if isinstance(text, str) else text[0]  # a table by its name: `regions.table_arn`
    text = re.sub(
        r"^arn:\$\{AWS::Partition\}:\w+:\$\{AWS::Region\}:\$\{AWS::AccountId\}:(table/)?",
        "",
        text,
    )
    return re.sub(r"\$\{(\w+)(\.Arn)?\}", r"\1", text)


def described(policies: dict[str, dict]) -> str:
    """The docs' list of what each policy grants (docs/deploy.md, docs/aws-site.md: a test
    holds them to the template), by policy, then statement."""
    lines = []
    for logical_id in sorted(policies):
        properties = policies[logical_id]["Properties"]
        roles = ", ".join(role["Ref"] for role in properties["Roles"])
        lines.append(f"- `{logical_id}`, on `{roles}`:")
        for statement in properties["PolicyDocument"]["Statement"]:
            actions = statement["Action"]
            resources = statement["Resource"]
            resources = resources if isinstance(resources, list) else [resources]
            condition = statement.get("Condition", {}).get("StringLike", {}).get("s3:prefix")
            lines.append(
                f"  - {statement['Sid']}: {', '.join(actions if isinstance(actions, list) else [actions])}"
                f" on {', '.join(_resource_text(resource) for resource in resources)}"
                + (f" (prefix {', '.join(condition)})" if condition else "")
            )
    return "\n".join(lines) + "\n"


# The docs that list what the policies grant (a test holds each to the template): every
# policy, and the site's.
POLICY_DOC, SITE_POLICY_DOC = "docs/deploy.md", "docs/aws-site.md"
_LISTED = re.compile(
    r"(?m)^- `\w+Policy`, on `[^`]*`:\n(?:(?:  - .*\n)|(?:- `\w+Policy`, on `[^`]*`:\n))*"
)


def rewrite_docs(root: Path, resources: dict, site_policies: Iterable[str]) -> None:
    """Each doc's list of what the policies grant, as the template has them now (`make infra`
    writes them with the template)."""
    policies = {
        key: value for key, value in resources.items() if value.get("Type") == "AWS::IAM::Policy"
    }
    site = {key: policies[key] for key in site_policies}
    for name, chosen in ((POLICY_DOC, policies), (SITE_POLICY_DOC, site)):
        path = root / name
        text = path.read_text()
        listed = _LISTED.search(text)
        if listed:
            path.write_text(text[: listed.start()] + described(chosen) + text[listed.end() :])


def main(arguments: list[str]) -> int:
    command, directory = arguments[0], Path(arguments[1])
    seen = recorded(directory)
    if not seen:
        print(f"no uses recorded under {directory}: was the suite run with AWS_USES_DIR?")
        return 1
    if command == "write":
        USES_FILE.write_text(render(seen))
        print(
            f"wrote {USES_FILE.name}: {sum(map(len, seen.values()))} uses of {len(seen)} functions"
        )
        return 0
    problems = differences(load(), seen)
    for problem in problems:
        print(problem)
    if problems:
        print("(after a change of what the code calls: `make uses`; docs/deploy.md)")
        return 1
    print(f"grants: each of {len(seen)} functions' roles grants exactly what its runs used")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
