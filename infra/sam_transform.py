"""The SAM template as plain CloudFormation, as CloudFormation's own transform makes it.

    .venv-cfnlint/bin/python -m infra.sam_transform PACKAGED_TEMPLATE OUTPUT_JSON

CloudFormation expands `Transform: AWS::Serverless-2016-10-31` on its side; the rehearsal's
emulator has no such transform, so the rehearsal expands it first, with aws-sam-translator
(the library CloudFormation's transform is built on). It runs in cfn-lint's venv, where the
translator is installed: its pydantic pin is not the app's.
"""

import json
import os
import sys

from cfnlint.data import Serverless
from cfnlint.helpers import load_resource
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse


def managed_policies() -> dict[str, str]:
    """The names of AWS's managed policies and their ARNs, from the copy cfn-lint ships
    (SAM's own loader would ask IAM for them: no AWS call is made here)."""
    return load_resource(Serverless, "ManagedPolicies.json")


def transform(template: dict, region: str) -> dict:
    # The translator builds ARNs for the region in AWS_DEFAULT_REGION.
    os.environ["AWS_DEFAULT_REGION"] = region
    policies = managed_policies()
    translator = Translator(managed_policy_map=policies, sam_parser=Parser())
    return translator.translate(
        sam_template=template, parameter_values={}, get_managed_policy_map=lambda: policies
    )


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    with open(source) as file:
        template = yaml_parse(file.read())  # YAML or JSON, as the CLI reads either
    region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
    with open(target, "w") as file:
        json.dump(transform(template, region), file)


if __name__ == "__main__":
    main()
