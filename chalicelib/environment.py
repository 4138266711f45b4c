"""Pointing the AWS clients at the local emulator, before any model or client is made.

PynamoDB and boto3 read `AWS_ENDPOINT_URL` when their first connection is made, and table names
are computed from `STAGE` when the models are imported: so this runs first.
"""

import os

DEFAULT_MOTO_PORT = 5001


def emulator_url() -> str:
    return f"http://127.0.0.1:{int(os.environ.get('MOTO_PORT', DEFAULT_MOTO_PORT))}"


def use_local_emulator_if_local() -> None:
    """On the `local` stage with no endpoint chosen, talk to the local emulator."""
    os.environ.setdefault("STAGE", "local")
    if os.environ["STAGE"] != "local" or os.environ.get("AWS_ENDPOINT_URL"):
        return
    os.environ["AWS_ENDPOINT_URL"] = emulator_url()
    # The emulator takes any credentials; real ones are never sent to it.
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
