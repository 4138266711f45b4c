"""`make deploy-rehearsal`: the deploy of docs/deploy.md, rehearsed on this machine.

    .venv/bin/python -m infra.rehearsal [DIST]     (after `make package`)

1. Starts an emulator of its own (moto's server on a free loopback port, `rehearsal_emulator`).
2. Runs docs/deploy.md's commands as written (read from the doc, `deploy_doc`) with the AWS
   CLI from PyPI (.venv-awscli), pointed at the emulator: the artifact bucket, `package`,
   `deploy` with the doc's parameters, `describe-stacks`. One change: `deploy` gets the
   packaged template as plain CloudFormation, transformed here with aws-sam-translator
   (`sam_transform`), as CloudFormation does on its side with the SAM transform; and without
   the resources the emulator's CloudFormation cannot create (`emulated_template`), which are
   listed by name and checked by tests/infra instead.
3. Checks the stack it made through the emulator's APIs against the code (`stack_checks`).
4. Runs the app against it: the doc's first-organization command, then a write and a read
   through the API, with the environment the stack gave the API's function.

Nothing leaves the machine: every AWS client, the CLI's included, is given the emulator's
endpoint, dummy credentials and no instance metadata, and any other address goes to a proxy
that is not there.
"""

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AWS_CLI = ROOT / ".venv-awscli" / "bin" / "aws"
SAM_PYTHON = ROOT / ".venv-cfnlint" / "bin" / "python"
REGION = "us-east-1"
# docs/deploy.md's second region (section 10), made from the same template beside the first.
SECONDARY_REGION = "us-west-2"
STAGE = "prod"
# CloudFormation's largest template, even from S3 (`deploy --s3-bucket` sends it from there).
TEMPLATE_URL_LIMIT = 1_000_000
# Any address but the emulator's is sent here, where nothing listens.
NOWHERE = "http://127.0.0.1:9"
# Variables of the doc's commands that are the reader's own account: the rehearsal's
# emulator stands in for them.
READERS_OWN = ("AWS_PROFILE", "AWS_DEFAULT_REGION")


class RehearsalFailed(Exception):
    """A step of the deploy, or a check of what it made, failed: the message says which."""


def aws_environment(endpoint: str | None) -> dict[str, str]:
    """What every AWS client of the rehearsal runs with: the emulator only."""
    variables = {
        "AWS_ACCESS_KEY_ID": "rehearsal",
        "AWS_SECRET_ACCESS_KEY": "rehearsal",
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "AWS_EC2_METADATA_DISABLED": "true",
        # The CLI's `package` and `deploy` make their S3 clients without `--endpoint-url`:
        # without this they would upload to AWS.
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "HTTP_PROXY": NOWHERE,
        "HTTPS_PROXY": NOWHERE,
        "NO_PROXY": "localhost,127.0.0.1",
        "STAGE": STAGE,
    }
    return {key: value for key, value in variables.items() if value is not None}


def _without_aws(environment: dict[str, str]) -> dict[str, str]:
    """The environment less every AWS setting and proxy of the machine's (a profile, a
    session token, a proxy of its own): the rehearsal's own replace them."""
    proxies = ("http_proxy", "https_proxy", "no_proxy", "all_proxy")
    return {
        key: value
        for key, value in environment.items()
        if not key.startswith("AWS_") and key.lower() not in proxies
    }


def _environment_of_processes(variables: dict[str, str]) -> dict[str, str]:
    return {**_without_aws(dict(os.environ)), **variables}


def _run(command: list[str], variables: dict[str, str]) -> str:
    """A command of the rehearsal, from the checkout, in the emulator's environment; what it
    printed."""
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=_environment_of_processes(variables),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RehearsalFailed(
            f"`{' '.join(command)}` failed ({done.returncode}):\n{done.stdout[-3000:]}"
            f"{done.stderr[-3000:]}"
        )
    return done.stdout


def run_cli(words: list[str], endpoint: str, variables: dict[str, str]) -> str:
    """A doc's `aws ...` command, with the CLI of .venv-awscli and the emulator's endpoint."""
    assert words[0] == "aws", words
    return _run([str(AWS_CLI), *words[1:], "--endpoint-url", endpoint], variables)


def emulated_template(packaged: Path, target: Path, variables: dict[str, str]) -> dict[str, str]:
    """The packaged SAM template as plain CloudFormation the emulator creates, at `target`;
    the resources left out, by logical id."""
    from infra import emulated_template as emulated
    from infra.rehearsal_emulator import creatable_types

    transformed = target.with_suffix(".transformed.json")
    _run([str(SAM_PYTHON), "-m", "infra.sam_transform", str(packaged), str(transformed)], variables)
    template, skipped = emulated.for_emulator(
        emulated.with_plain_tables(json.loads(transformed.read_text())), creatable_types()
    )
    target.write_text(json.dumps(template))
    return skipped


def _physical_ids(stack_name: str) -> dict[str, str]:
    import boto3

    cloudformation = boto3.client("cloudformation", region_name=REGION)
    pages = cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack_name)
    return {
        resource["LogicalResourceId"]: resource["PhysicalResourceId"]
        for page in pages
        for resource in page["StackResourceSummaries"]
    }


def _failed_events(stack_name: str) -> str:
    import boto3

    cloudformation = boto3.client("cloudformation", region_name=REGION)
    try:
        events = cloudformation.describe_stack_events(StackName=stack_name)["StackEvents"]
    except Exception as error:  # noqa: BLE001 (only said, after the failure it explains)
        return f"(no stack events: {error})"
    return "\n".join(
        f"  {event['LogicalResourceId']}: {event.get('ResourceStatusReason')}"
        for event in events
        if "FAILED" in event.get("ResourceStatus", "")
    )


def deploy(endpoint: str, variables: dict[str, str], dist: Path, report: list[str]):
    """docs/deploy.md's section 2, run; the stack as the checks see it, and the skipped."""
    from infra import deploy_doc
    from infra.stack_checks import Stack

    commands = deploy_doc.deploy_commands()
    by_verb = {tuple(words[1:3]): words for words in commands}
    deploy_words = by_verb[("cloudformation", "deploy")]
    packaged = ROOT / deploy_doc.option(deploy_words, "--template-file")
    emulated = dist / "emulated.json"
    skipped: dict[str, str] = {}
    outputs: list[dict] = []
    for words in commands:
        started = time.monotonic()
        as_written = " ".join(words[:3])
        if words[1:3] == ["cloudformation", "deploy"]:
            size = packaged.stat().st_size
            report.append(
                f"packaged template {packaged.relative_to(ROOT)}: {size:,} bytes "
                f"(CloudFormation takes {TEMPLATE_URL_LIMIT:,})"
            )
            if size > TEMPLATE_URL_LIMIT:
                raise RehearsalFailed(f"{packaged} is over CloudFormation's template limit")
            skipped = emulated_template(packaged, emulated, variables)
            report.append(f"SAM transform: {time.monotonic() - started:.1f} s")
            started = time.monotonic()
            words = deploy_doc.with_option(words, "--template-file", str(emulated))
            as_written += f" (of {emulated.relative_to(ROOT)}, the SAM transform's)"
            try:
                run_cli(words, endpoint, variables)
            except RehearsalFailed as failure:
                stack_name = deploy_doc.option(words, "--stack-name")
                raise RehearsalFailed(f"{failure}\n{_failed_events(stack_name)}") from None
        else:
            printed = run_cli(words, endpoint, variables)
            if words[1:3] == ["cloudformation", "describe-stacks"]:
                outputs = json.loads(printed)
        report.append(f"ran {as_written}: {time.monotonic() - started:.1f} s")
    stack_name = deploy_doc.option(deploy_words, "--stack-name")
    template = json.loads(emulated.read_text())
    missing = set(template.get("Outputs", {})) - {output["OutputKey"] for output in outputs}
    if missing:
        raise RehearsalFailed(f"describe-stacks lacks the outputs {sorted(missing)}")
    stack = Stack(
        name=stack_name,
        template=template,
        parameters=deploy_doc.parameter_overrides(deploy_words),
        physical_ids=_physical_ids(stack_name),
    )
    return stack, skipped


def deploy_secondary(
    endpoint: str, variables: dict[str, str], dist: Path, primary, report: list[str]
) -> list[str]:
    """The second region's stack of docs/deploy.md section 10: the same template with
    `Role=secondary`, given the primary's bucket, in another region of the emulator. What
    exists once (tables, secrets, the distribution) must not be made again; what each region
    needs must be. Its problems, if any."""
    import boto3

    from infra import deploy_doc

    started = time.monotonic()
    words = next(
        found
        for found in deploy_doc.deploy_commands()
        if found[1:3] == ["cloudformation", "deploy"]
    )
    overrides = {
        **deploy_doc.parameter_overrides(words),
        "Role": "secondary",
        "PeerSiteBucket": primary.physical_ids["SiteBucket"],
        # The primary's outputs for them name resources the emulator does not make.
        "SiteDistributionId": "E2REHEARSAL",
        "SiteHostsStoreId": "00000000-0000-4000-8000-000000000000",
    }
    bucket = f"{deploy_doc.ARTIFACT_BUCKET}-{SECONDARY_REGION}"
    regional = ["--region", SECONDARY_REGION]
    run_cli(["aws", "s3", "mb", f"s3://{bucket}", *regional], endpoint, variables)
    command = [
        "aws", "cloudformation", "deploy", "--template-file", str(dist / "emulated.json"),
        "--s3-bucket", bucket, "--stack-name", primary.name, "--capabilities", "CAPABILITY_IAM",
        *regional, "--parameter-overrides", *(f"{key}={value}" for key, value in overrides.items()),
    ]  # fmt: skip
    try:
        run_cli(command, endpoint, variables)
    except RehearsalFailed as failure:
        raise RehearsalFailed(f"the secondary region's stack: {failure}") from None
    cloudformation = boto3.client("cloudformation", region_name=SECONDARY_REGION)
    pages = cloudformation.get_paginator("list_stack_resources").paginate(StackName=primary.name)
    # moto lists the resources a condition left out too, with no type.
    made = Counter(
        resource["ResourceType"]
        for page in pages
        for resource in page["StackResourceSummaries"]
        if resource["ResourceType"]
    )
    report.append(
        f"deployed the secondary region's stack ({SECONDARY_REGION}, Role=secondary): "
        f"{sum(made.values())} resources, {time.monotonic() - started:.1f} s: "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(made.items()))
    )
    in_primary = Counter(
        resource["Type"]
        for logical_id, resource in primary.template["Resources"].items()
        if logical_id in primary.physical_ids
    )
    problems = [
        f"the secondary region made {kind} (the primary's stack makes it once)"
        for kind in ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret")
        if made[kind]
    ]
    problems += [
        f"the secondary region made {made[kind]} {kind}, the primary {in_primary[kind]}"
        for kind in ("AWS::Lambda::Function", "AWS::SQS::Queue", "AWS::S3::Bucket")
        if made[kind] != in_primary[kind]
    ]
    return problems


def stop_event_sources() -> int:
    """Turns the queues' event source mappings off: moto would run the function on each
    message sent, in Docker, which this machine lacks. Messages then stay in the queues."""
    import boto3

    lambda_ = boto3.client("lambda", region_name=REGION)
    mappings = lambda_.list_event_source_mappings()["EventSourceMappings"]
    for mapping in mappings:
        lambda_.update_event_source_mapping(UUID=mapping["UUID"], Enabled=False)
    return len(mappings)


def api_function_environment() -> dict[str, str]:
    """The environment the stack gave the API's function."""
    import boto3

    from infra import stack_checks

    configuration = boto3.client("lambda", region_name=REGION).get_function_configuration(
        FunctionName=stack_checks.api_function()["function_name"]
    )
    return configuration["Environment"]["Variables"]


def first_organization(variables: dict[str, str]) -> dict:
    """docs/deploy.md's section 3 command, run as written but on the emulator."""
    from infra import deploy_doc

    doc_variables, words = deploy_doc.first_organization_command()
    own = {key: value for key, value in doc_variables.items() if key not in READERS_OWN}
    return json.loads(_run(words, {**variables, **own}))


def api_round_trip(organization: dict) -> list[str]:
    """A component made through the API and read back with the same key; the write's
    request to publish the page reaches the stack's publish queue."""
    import boto3
    from chalice.test import Client

    from app import app
    from chalicelib import config
    from chalicelib.notify import queues

    headers = {
        "Authorization": f"OAuth {organization['api_key']}",
        "Content-Type": "application/json",
    }
    path = f"/v1/pages/{organization['page_id']}/components"
    with Client(app, stage_name=STAGE, project_dir=str(ROOT)) as client:
        made = client.http.post(
            path, headers=headers, body=json.dumps({"component": {"name": "Rehearsed"}})
        )
        if made.status_code != 201:
            raise RehearsalFailed(f"POST {path}: {made.status_code} {made.body[:500]!r}")
        component = json.loads(made.body)
        read = client.http.get(f"{path}/{component['id']}", headers=headers)
        if read.status_code != 200 or json.loads(read.body).get("name") != "Rehearsed":
            raise RehearsalFailed(f"GET {path}/{component['id']}: {read.status_code}")
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.get_queue_url(QueueName=config.queue_name(queues.PUBLISH))["QueueUrl"]
    waiting = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]["ApproximateNumberOfMessages"]
    if int(waiting) < 1:
        raise RehearsalFailed("the write asked for no publish on the stack's publish queue")
    return [
        f"POST {path} 201, GET {path}/{component['id']} 200 (key of organization "
        f"{organization['organization_id']}), {waiting} publish request(s) queued"
    ]


def _by_type(resources: dict[str, str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for logical_id, kind in sorted(resources.items()):
        grouped.setdefault(kind, []).append(logical_id)
    return dict(sorted(grouped.items()))


def _use_in_this_process(variables: dict[str, str]) -> None:
    kept = _without_aws(dict(os.environ))
    os.environ.clear()
    os.environ.update({**kept, **variables})


def rehearse(dist: Path) -> list[str]:
    report = []
    template_size = (dist / "sam.json").stat().st_size
    compact = len(json.dumps(json.loads((dist / "sam.json").read_text()), separators=(",", ":")))
    report.append(f"template dist/sam.json: {template_size:,} bytes ({compact:,} compact)")
    # Before moto is imported (it reads the AWS profile then); the endpoint once it listens.
    _use_in_this_process(aws_environment(None))
    from infra.rehearsal_emulator import RehearsalEmulator

    emulator = RehearsalEmulator()
    endpoint = emulator.start()
    variables = aws_environment(endpoint)
    # The rehearsal's own clients (the checks, the app) see the emulator only, and the
    # models are named for the prod stage before anything imports them.
    _use_in_this_process(variables)
    try:
        stack, skipped = deploy(endpoint, variables, dist, report)
        created = Counter(
            resource["Type"]
            for logical_id, resource in stack.template["Resources"].items()
            if logical_id in stack.physical_ids
        )
        report.append(
            f"created {sum(created.values())} resources: "
            + ", ".join(f"{kind} {count}" for kind, count in sorted(created.items()))
        )
        report.append(
            f"skipped {len(skipped)} (the emulator's CloudFormation does not create them; "
            "tests/infra checks them):"
        )
        report += [f"  {kind}: {', '.join(ids)}" for kind, ids in _by_type(skipped).items()]
        from infra import stack_checks

        failed = []
        for name, check in stack_checks.CHECKS.items():
            problems = check(stack)
            report.append(f"check {name}: {'passed' if not problems else 'FAILED'}")
            report += [f"  {problem}" for problem in problems]
            failed += problems
        secondary = deploy_secondary(endpoint, variables, dist, stack, report)
        report.append(f"check secondary region: {'passed' if not secondary else 'FAILED'}")
        report += [f"  {problem}" for problem in secondary]
        failed += secondary
        if failed:
            raise RehearsalFailed(f"{len(failed)} problem(s) in the stack (above)")
        stopped = stop_event_sources()
        report.append(f"{stopped} queue triggers turned off (moto runs functions in Docker)")
        api_environment = api_function_environment()
        os.environ.update(api_environment)
        organization = first_organization({**variables, **api_environment})
        report += api_round_trip(organization)
    except RehearsalFailed as failure:
        report.append(f"FAILED: {failure}")
        raise RehearsalFailed("\n".join(report)) from None
    finally:
        emulator.stop()
    return report


def main() -> None:
    started = time.monotonic()
    dist = Path(sys.argv[1] if len(sys.argv) > 1 else "dist").resolve()
    try:
        report = rehearse(dist)
    except RehearsalFailed as failure:
        for line in str(failure).splitlines():
            print(f"deploy rehearsal: {line}", file=sys.stderr)
        sys.exit(1)
    for line in report:
        print(f"deploy rehearsal: {line}")
    print(f"deploy rehearsal: passed in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
