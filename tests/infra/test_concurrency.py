"""Safe on a new account: the stack reserves no Lambda concurrency unless its parameters ask.

Accounts often start with a concurrency quota of 10, and Lambda refuses any reservation that
leaves an account fewer than 100 unreserved executions: a template that reserves by default
fails to create there. The template is read as CloudFormation would with the parameters'
defaults (or the overrides a test names).
"""

import json

import pytest

from infra import generate

STAGE = "prod"
# The most a function may reserve with the defaults (the bar; in fact none does).
MOST_RESERVED_BY_DEFAULT = 10
NO_VALUE = object()


class Stack:
    """The template's conditions and references as CloudFormation resolves them for the
    given parameter values (the defaults for any not given)."""

    def __init__(self, template: dict, **parameters):
        self.template = template
        self.parameters = {
            name: parameters.get(name, spec.get("Default"))
            for name, spec in template["Parameters"].items()
        }

    def value(self, value):
        if not isinstance(value, dict) or len(value) != 1:
            return value
        ((function, argument),) = value.items()
        if function == "Ref" and argument == "AWS::NoValue":
            return NO_VALUE
        if function == "Ref" and argument in self.parameters:
            return self.parameters[argument]
        if function == "Fn::If":
            condition, when_true, when_false = argument
            return self.value(when_true if self.holds(condition) else when_false)
        return value

    def holds(self, condition) -> bool:
        if isinstance(condition, str):
            return self.holds(self.template["Conditions"][condition])
        ((function, argument),) = condition.items()
        if function == "Condition":
            return self.holds(argument)
        if function == "Fn::Equals":
            left, right = (str(self.value(side)) for side in argument)
            return left == right
        if function == "Fn::Not":
            return not self.holds(argument[0])
        if function == "Fn::And":
            return all(self.holds(part) for part in argument)
        if function == "Fn::Or":
            return any(self.holds(part) for part in argument)
        raise AssertionError(f"a condition this test cannot read: {condition}")

    def reserved(self) -> dict[str, int]:
        """Each function's reserved concurrency, where it has one."""
        found = {}
        for logical_id, resource in self.template["Resources"].items():
            setting = resource.get("Properties", {}).get("ReservedConcurrentExecutions")
            if setting is not None and self.value(setting) is not NO_VALUE:
                found[logical_id] = int(self.value(setting))
        return found


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())


def delivery_function() -> dict:
    (function,) = [f for f in generate.functions(STAGE) if f["name"] == generate.DELIVERY_FUNCTION]
    return function


def test_no_function_reserves_concurrency_by_default(template):
    reserved = Stack(template).reserved()
    assert all(count <= MOST_RESERVED_BY_DEFAULT for count in reserved.values()), reserved
    assert reserved == {}


def test_chalice_config_reserves_no_concurrency():
    # `chalice package` turns a function's `reserved_concurrency` into a reservation the
    # parameters cannot turn off.
    settings = json.loads((generate.CHALICE_DIR / "config.json").read_text())
    stage = settings["stages"][STAGE]
    scopes = [settings, stage, *stage.get("lambda_functions", {}).values()]
    assert not any("reserved_concurrency" in scope for scope in scopes)


def test_reserving_reserves_the_delivery_cap_for_deliveries_only(template):
    stack = Stack(template, ReserveDeliveryConcurrency="true", DeliveryConcurrency=40)
    logical_id = delivery_function()["logical_id"]
    assert stack.reserved() == {logical_id: 40}
    # The queue never starts more deliveries than are reserved: a throttled batch would count
    # a receive towards the dead-letter queue.
    (event_source,) = template["Resources"][logical_id]["Properties"]["Events"].values()
    cap = event_source["Properties"]["ScalingConfig"]["MaximumConcurrency"]
    assert stack.value(cap) == 40


def test_the_delivery_cap_applies_without_a_reservation(template):
    logical_id = delivery_function()["logical_id"]
    (event_source,) = template["Resources"][logical_id]["Properties"]["Events"].values()
    cap = event_source["Properties"]["ScalingConfig"]["MaximumConcurrency"]
    assert Stack(template).value(cap) == template["Parameters"]["DeliveryConcurrency"]["Default"]
