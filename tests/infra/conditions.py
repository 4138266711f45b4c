"""A template as CloudFormation reads it for some parameters: its conditions evaluated, each
`Fn::If` decided, `AWS::NoValue` dropped (tests/infra/test_regions.py, test_cdn.py)."""


def condition_values(template: dict, given: dict[str, str]) -> dict[str, bool]:
    """The template's conditions for these parameters (the rest at their defaults)."""
    parameters = {
        name: spec.get("Default", "") for name, spec in template["Parameters"].items()
    } | given

    def value(expression):
        if isinstance(expression, str):
            return expression
        ((function, argument),) = expression.items()
        if function == "Ref":
            return parameters[argument]
        if function == "Fn::Join":
            separator, items = argument
            items = value(items) if isinstance(items, dict) else items
            return separator.join(value(item) for item in items)
        if function == "Fn::Equals":
            return value(argument[0]) == value(argument[1])
        if function == "Fn::Not":
            return not value(argument[0])
        if function == "Fn::And":
            return all(value(item) for item in argument)
        if function == "Condition":
            return value(template["Conditions"][argument])
        raise NotImplementedError(function)

    return {name: value(expression) for name, expression in template["Conditions"].items()}


def made(template: dict, given: dict[str, str]) -> dict[str, str]:
    """The resources a stack of these parameters makes: logical id -> type."""
    conditions = condition_values(template, given)
    return {
        key: resource.get("Type", "Chalice's, merged")
        for key, resource in template["Resources"].items()
        if conditions.get(resource.get("Condition"), True)
    }


def chosen(value, conditions: dict[str, bool]):
    """`value` with each `Fn::If` decided, and `AWS::NoValue` dropped from lists."""
    if isinstance(value, list):
        items = [chosen(item, conditions) for item in value]
        return [item for item in items if item != {"Ref": "AWS::NoValue"}]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Fn::If"}:
        name, when_true, when_false = value["Fn::If"]
        return chosen(when_true if conditions[name] else when_false, conditions)
    items = {key: chosen(item, conditions) for key, item in value.items()}
    return {key: item for key, item in items.items() if item != {"Ref": "AWS::NoValue"}}
