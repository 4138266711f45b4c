"""The admin CLI: organizations, users, API keys and pages, against the local stack or AWS.

    python -m chalicelib.admin bootstrap
    python -m chalicelib.admin create-key --user USER_ID
    python -m chalicelib.admin set-password --user USER_ID
    python -m chalicelib.admin index-recipients
    python -m chalicelib.admin repair-journal [--data-dir .data]
    python -m chalicelib.admin redrive [--queue deliveries]
    python -m chalicelib.admin import --from-url URL --from-key KEY --page PAGE_ID \
        --organization ORGANIZATION_ID [--into OUR_PAGE_ID] [--rate 1] [--dry-run]
    python -m chalicelib.admin export --page PAGE_ID --to FILE
    python -m chalicelib.admin import --from-file FILE --organization ORGANIZATION_ID ...

On the `local` stage (the default) it talks to the running local stack; with `STAGE=prod`
and AWS credentials, to the deployed tables. `repair-journal` works on the local stack's data
directory, with the stack stopped (docs/local-data.md).
"""

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from chalicelib.environment import use_local_emulator_if_local
from chalicelib.notify import queues


def bootstrap(
    organization_name: str = "My organization", page_name: str = "My status page"
) -> dict:
    """An organization, its owner, an API key and one page."""
    from chalicelib.domain import organizations, pages

    organization = organizations.create_organization(organization_name)
    owner = organizations.create_user(organization.id, "owner@example.com", owner=True)
    api_key = organizations.create_api_key(owner)
    page = pages.create_page(organization.id, pages.PageInput(name=page_name))
    return {
        "organization_id": organization.id,
        "user_id": owner.id,
        "api_key": api_key,
        "page_id": page.id,
    }


def one_time_password(user_id: str) -> str:
    """A new random password for a user, to sign in to the console (`/manage`); it is
    printed once and only its hash is kept."""
    from chalicelib.domain import credentials, organizations

    user = organizations.get_user(user_id)
    if user is None:
        raise SystemExit(f"error: no user {user_id}")
    password = credentials.new_one_time_password()
    organizations.set_password(user, password, one_time=True)
    return password


def _set_password(args) -> dict:
    return {"password": one_time_password(args.user)}


def index_recipients() -> int:
    """Give subscribers stored before the recipient items existed their items (once; a Scan,
    so never on a request path). The local stack runs it at start; on AWS run it once after
    deploying this version."""
    from chalicelib.domain import subscribers, whole_tables

    if subscribers.recipient_items_are_current():
        return 0
    return subscribers.index_recipients(whole_tables.every_subscriber())


def _index_recipients(args) -> dict:
    return {"indexed_subscribers": index_recipients()}


def _create_org(args) -> dict:
    from chalicelib.domain import organizations

    return {"organization_id": organizations.create_organization(args.name).id}


def _create_user(args) -> dict:
    from chalicelib.domain import organizations

    user = organizations.create_user(
        args.organization,
        args.email,
        first_name=args.first_name,
        last_name=args.last_name,
        password=args.password,
        owner=args.owner,
    )
    return {"user_id": user.id}


def _create_key(args) -> dict:
    from chalicelib.domain import organizations

    user = organizations.get_user(args.user)
    if user is None:
        raise SystemExit(f"error: no user {args.user}")
    return {"api_key": organizations.create_api_key(user)}


def _create_page(args) -> dict:
    from chalicelib.domain import pages

    return {"page_id": pages.create_page(args.organization, pages.PageInput(name=args.name)).id}


def _delete_page(args) -> dict:
    from chalicelib.domain import pages
    from chalicelib.domain.errors import NotFound

    try:
        page = pages.get_page(args.page)
    except NotFound:
        raise SystemExit(f"error: no page {args.page}") from None
    pages.delete_page(page)
    return {"deleted": page.id}


def publish_all(every: bool = False) -> int:
    """Ask for a publish of every page whose files were never published, or published under
    other settings (the first start after an upgrade, or after `PUBLIC_DOMAIN` changed), or
    of every page (`every`: a region of `make run-regions` that starts serving, whose files
    lack what the other region published); returns how many."""
    from chalicelib.domain import whole_tables
    from chalicelib.public import publish

    asked = 0
    for page in whole_tables.every_page():
        if every or not publish.is_published(page.id):
            publish.request(page.id, force=True)
            asked += 1
    return asked


def _publish_all(args) -> dict:
    return {"publishes_asked": publish_all(args.every)}


def _import(args) -> dict:
    from chalicelib.importer import from_file, run
    from chalicelib.importer.source import SourceError

    if bool(args.from_url) == bool(args.from_file):
        raise SystemExit("error: one of --from-url and --from-file is required")
    key, document = "", None
    try:
        if args.from_file:
            document = from_file.load(args.from_file)
        else:
            key = args.from_key or os.environ.get("IMPORT_SOURCE_KEY")
            if not key:
                raise SystemExit("error: --from-key (or IMPORT_SOURCE_KEY) is required")
            if not args.page:
                raise SystemExit("error: --page (the source page's id) is required")
        request = run.Request(
            from_url=args.from_url or "",
            from_key=key,
            source_page_id=document["page"]["id"] if document else args.page,
            organization_id=args.organization,
            into=args.into,
            rate=args.rate,
            dry_run=args.dry_run,
            document=document,
        )
        return run.run(request)
    except (SourceError, run.ImportRefused) as error:
        raise SystemExit(f"error: {error}") from None


def _export(args) -> dict:
    from app import app
    from chalicelib.importer import export

    try:
        document = export.document(app, args.page)
    except export.ExportRefused as error:
        raise SystemExit(f"error: {error}") from None
    written = export.write(document, args.to)
    counts = {kind: len(items) for kind, items in document.items() if isinstance(items, list)}
    return {"exported": str(written), "page_id": args.page, "counts": counts}


def _repair_journal(args) -> dict:
    from chalicelib.local.journal_files import JournalBusy
    from chalicelib.local.journal_repair import repair

    data_dir = Path(args.data_dir).resolve()
    try:
        report = repair(data_dir)
    except JournalBusy as busy:
        raise SystemExit(f"error: {busy}") from None
    site = Path(os.environ.get("SITE_DIR") or data_dir / "site").resolve()
    if report["repaired"] and site.is_dir():
        # Its files show writes the repair dropped: the next start publishes every page anew.
        shutil.move(site, Path(report["kept_in"]) / "site")
        report["site_set_aside"] = str(site)
    return report


# The queues a function reads, each with its dead-letter queue (infra/generate.py; locally
# chalicelib/local/emulator.py).
REDRIVABLE = (queues.NOTIFICATIONS, queues.DELIVERIES, queues.METRIC_DATA, queues.PUBLISH)
# Messages a redrive holds hidden while it moves them: its sends and deletes take far less.
REDRIVE_VISIBILITY_SECONDS = 60


def redrive(short_name: str) -> dict:
    """Move every message of the queue's dead-letter queue back to the queue: each is sent
    again, then deleted from the dead letters (a crash in between leaves a copy in both, which
    is safe: a redelivered delivery finds its recipients claimed and sends nothing twice)."""
    import boto3

    from chalicelib import config

    sqs = boto3.client("sqs", region_name=config.region())
    name = config.queue_name(short_name)
    queue = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    dead_letters = sqs.get_queue_url(QueueName=config.dead_letter_queue_name(name))["QueueUrl"]
    moved = 0
    while True:
        messages = sqs.receive_message(
            QueueUrl=dead_letters,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            VisibilityTimeout=REDRIVE_VISIBILITY_SECONDS,
        ).get("Messages", [])
        if not messages:
            break
        sent = sqs.send_message_batch(
            QueueUrl=queue,
            Entries=[
                {"Id": str(number), "MessageBody": message["Body"]}
                for number, message in enumerate(messages)
            ],
        ).get("Successful", [])
        handles = [messages[int(ok["Id"])]["ReceiptHandle"] for ok in sent]
        if handles:
            sqs.delete_message_batch(
                QueueUrl=dead_letters,
                Entries=[{"Id": str(n), "ReceiptHandle": h} for n, h in enumerate(handles)],
            )
        moved += len(handles)
        if len(handles) < len(messages):
            break  # SQS refused some: they come back to the dead letters for the next run
    left = sqs.get_queue_attributes(
        QueueUrl=dead_letters,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return {
        "queue": short_name,
        "moved": moved,
        "left_in_dead_letters": sum(int(count) for count in left.values()),
    }


def _redrive(args) -> dict:
    return {"redriven": [redrive(short_name) for short_name in args.queue or REDRIVABLE]}


def _bootstrap(args) -> dict:
    return bootstrap(args.organization_name, args.page_name)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="python -m chalicelib.admin", description=__doc__.split("\n")[0]
    )
    commands = root.add_subparsers(dest="command", required=True)

    command = commands.add_parser("bootstrap", help="an organization, owner, API key and page")
    command.add_argument("--organization-name", default="My organization")
    command.add_argument("--page-name", default="My status page")
    command.set_defaults(run=_bootstrap)

    command = commands.add_parser("create-org", help="an organization")
    command.add_argument("--name", required=True)
    command.set_defaults(run=_create_org)

    command = commands.add_parser("create-user", help="a user of an organization")
    command.add_argument("--organization", required=True)
    command.add_argument("--email", required=True)
    command.add_argument("--first-name", default="")
    command.add_argument("--last-name", default="")
    command.add_argument("--password")
    command.add_argument("--owner", action="store_true", help="reaches every page")
    command.set_defaults(run=_create_user)

    command = commands.add_parser("create-key", help="an API key for a user (printed once)")
    command.add_argument("--user", required=True)
    command.set_defaults(run=_create_key)

    command = commands.add_parser(
        "set-password", help="a new one-time password for a user's console sign-in (printed once)"
    )
    command.add_argument("--user", required=True)
    command.set_defaults(run=_set_password)

    command = commands.add_parser("create-page", help="a page of an organization")
    command.add_argument("--organization", required=True)
    command.add_argument("--name", required=True)
    command.set_defaults(run=_create_page)

    command = commands.add_parser(
        "import", help="bring a page along from a Statuspage-compatible v1 API"
    )
    command.add_argument("--from-url", help="the source API's base URL")
    command.add_argument("--from-file", help="a document `export` wrote, in place of a source")
    command.add_argument(
        "--from-key", help="the source's API key (or IMPORT_SOURCE_KEY); never printed"
    )
    command.add_argument("--page", help="the source page's id (a --from-file names its own)")
    command.add_argument(
        "--organization", required=True, help="our organization the page is imported into"
    )
    command.add_argument("--into", help="a page of that organization (default: a new one)")
    command.add_argument("--rate", type=float, default=1.0, help="source requests a second")
    command.add_argument("--dry-run", action="store_true", help="count, write nothing")
    command.set_defaults(run=_import)

    command = commands.add_parser(
        "export", help="a page, everything an import brings, as one JSON document (a backup)"
    )
    command.add_argument("--page", required=True)
    command.add_argument("--to", required=True, help="the file to write (0600)")
    command.set_defaults(run=_export)

    command = commands.add_parser(
        "delete-page", help="a page and its published site (its other items are left)"
    )
    command.add_argument("--page", required=True)
    command.set_defaults(run=_delete_page)

    command = commands.add_parser(
        "publish-all", help="publish every page not published yet (after an upgrade)"
    )
    command.add_argument("--every", action="store_true", help="every page, published or not")
    command.set_defaults(run=_publish_all)

    command = commands.add_parser(
        "region", help="make run-regions: stop a region's every process, or resume them"
    )
    which = command.add_mutually_exclusive_group(required=True)
    which.add_argument("--fail", metavar="REGION")
    which.add_argument("--restore", metavar="REGION")
    command.set_defaults(run=_region)

    command = commands.add_parser(
        "index-recipients", help="recipient items for subscribers stored before they existed"
    )
    command.set_defaults(run=_index_recipients)

    command = commands.add_parser(
        "repair-journal",
        help="after damage the local stack refused to start on: keep a copy, drop the damage",
    )
    command.add_argument("--data-dir", default=os.environ.get("DATA_DIR", ".data"))
    command.set_defaults(run=_repair_journal)

    command = commands.add_parser(
        "redrive", help="move a queue's dead letters back to it (every queue's by default)"
    )
    command.add_argument("--queue", action="append", choices=REDRIVABLE)
    command.set_defaults(run=_redrive)
    return root


def _region(args) -> dict:
    from chalicelib.local import regions

    if args.fail:
        return regions.fail(args.fail)
    return regions.restore(args.restore)


def main(argv: list[str] | None = None) -> int:
    from chalicelib.local import region_state

    args = parser().parse_args(argv)
    # Under `make run-regions`: the serving region's emulator, data and site folders.
    region_state.use_serving_region()
    use_local_emulator_if_local()
    try:
        result = args.run(args)
    except SystemExit:
        raise
    except Exception as error:  # noqa: BLE001 - a CLI says what went wrong, without a traceback
        print(f"error: {error.__class__.__name__}: {error}", file=sys.stderr)
        print(
            "Is the stack running (make run)? Are STAGE and the AWS credentials right?",
            file=sys.stderr,
        )
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
