"""The plain CloudFormation template as the deploy rehearsal's emulator can create it.

moto's CloudFormation creates the resource types it has a model for and quietly ignores the
others, so a reference to an ignored resource resolves to nothing and fails somewhere else,
far from its cause. Here every resource of a type the emulator does not create is taken out
before the stack is made (but global tables, made as their region's plain table:
`with_plain_tables`), and each `Ref`, `Fn::GetAtt`, `${...}` of `Fn::Sub` and `DependsOn`
naming one gets a placeholder in its place: a well-formed ARN that names the resource it
stands for. The rehearsal lists them by name; tests/infra checks their properties instead.

Pure (no AWS, no moto): `python -m infra.rehearsal` passes the types moto knows.
"""

import copy
import re
from typing import Any

PLACEHOLDER_PREFIX = "rehearsal-placeholder"
# `${Name}` or `${Name.Attribute}` of `Fn::Sub`; `${!Literal}` is not a reference.
_SUB_REFERENCE = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.([A-Za-z0-9.]+))?\}")


def placeholder(logical_id: str, kind: str, attribute: str | None = None) -> str:
    """What stands for a skipped resource's `Ref` (or attribute): an ARN of its service, in
    the stack's partition, region and account (to be put inside `Fn::Sub`), so that a policy
    naming it is still a valid policy."""
    service = kind.split("::")[1].lower()
    name = logical_id if attribute is None else f"{logical_id}/{attribute}"
    return (
        f"arn:${{AWS::Partition}}:{service}:${{AWS::Region}}:${{AWS::AccountId}}:"
        f"{PLACEHOLDER_PREFIX}/{name}"
    )


def with_plain_tables(template: dict) -> dict:
    """Each `AWS::DynamoDB::GlobalTable` as the `AWS::DynamoDB::Table` of this region's
    replica: moto's CloudFormation makes no global table, and the rehearsal's region is the
    one whose replica the functions use. The table keeps its name, keys, indexes, time to live
    and stream; the replica gives it its point-in-time recovery. The other region's replica is
    not made (tests/infra checks the global tables' properties instead)."""
    result = copy.deepcopy(template)
    for resource in result["Resources"].values():
        if resource.get("Type") != "AWS::DynamoDB::GlobalTable":
            continue
        properties = resource["Properties"]
        here, *_ = properties.pop("Replicas")
        properties.update(
            {key: value for key, value in here.items() if key != "Region"},
        )
        resource["Type"] = "AWS::DynamoDB::Table"
    return result


def for_emulator(template: dict, creatable: set[str]) -> tuple[dict, dict[str, str]]:
    """The template without the resources whose type is not in `creatable`, and those
    resources' types by logical id."""
    resources = template["Resources"]
    skipped = {
        logical_id: resource["Type"]
        for logical_id, resource in resources.items()
        if resource["Type"] not in creatable
    }
    result = copy.deepcopy(template)
    result["Resources"] = {
        logical_id: _without_skipped_dependencies(resource, skipped)
        for logical_id, resource in result["Resources"].items()
        if logical_id not in skipped
    }
    result = _replace_references(result, skipped)
    return result, skipped


def _without_skipped_dependencies(resource: dict, skipped: dict[str, str]) -> dict:
    depends_on = resource.get("DependsOn")
    if depends_on is None:
        return resource
    kept = [name for name in _as_list(depends_on) if name not in skipped]
    if kept:
        resource["DependsOn"] = kept
    else:
        del resource["DependsOn"]
    return resource


def _replace_references(value: Any, skipped: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_replace_references(item, skipped) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((function, argument),) = value.items()
        if function == "Ref" and argument in skipped:
            return {"Fn::Sub": placeholder(argument, skipped[argument])}
        if function == "Fn::GetAtt":
            logical_id, attribute = (
                argument.split(".", 1) if isinstance(argument, str) else argument
            )
            if logical_id in skipped:
                return {"Fn::Sub": placeholder(logical_id, skipped[logical_id], attribute)}
        if function == "Fn::Sub":
            return {"Fn::Sub": _replace_in_sub(argument, skipped)}
    return {key: _replace_references(item, skipped) for key, item in value.items()}


def _replace_in_sub(argument: Any, skipped: dict[str, str]) -> Any:
    """`${Skipped}` and `${Skipped.Attribute}` in the string of `Fn::Sub`, except where the
    list form's own variables give that name a value."""
    if isinstance(argument, list):
        text, variables = argument
        variables = _replace_references(variables, skipped)
    else:
        text, variables = argument, {}

    def replace(match: re.Match) -> str:
        logical_id, attribute = match.group(1), match.group(2)
        if logical_id in variables or logical_id not in skipped:
            return match.group(0)
        return placeholder(logical_id, skipped[logical_id], attribute)

    text = _SUB_REFERENCE.sub(replace, text)
    return [text, variables] if isinstance(argument, list) else text


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]
