"""Pointing the AWS clients at the local emulator, before any model or client is made.

PynamoDB and boto3 read `AWS_ENDPOINT_URL` when their first connection is made, and table names
are computed from `STAGE` when the models are imported: so this runs first (`app.py` calls it
before its own imports, for `chalice local`; `make run` and the admin CLI before they import
the app).
"""

import ipaddress
import os
import socket
import sys
import threading
from urllib.parse import urlsplit

DEFAULT_MOTO_PORT = 5001

# The emulator takes any credentials: these are the only ones the local stage ever signs with.
LOCAL_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}

# Settings through which the SDK could reach, or sign for, something other than the emulator:
# a profile (its keys, SSO, `credential_process` or role; a named profile that does not exist
# also fails every client), a session token that belongs to real keys, and the switches that
# make the SDK ignore `AWS_ENDPOINT_URL` or refuse a custom endpoint.
_NOT_FOR_THE_EMULATOR = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
    "AWS_USE_FIPS_ENDPOINT",
    "AWS_USE_DUALSTACK_ENDPOINT",
)
# `AWS_ENDPOINT_URL_<SERVICE>` wins over `AWS_ENDPOINT_URL` for its service.
_SERVICE_ENDPOINT_PREFIX = "AWS_ENDPOINT_URL_"
_LOOPBACK_NAMES = ("127.0.0.1", "::1", "localhost")


def emulator_url() -> str:
    return f"http://127.0.0.1:{int(os.environ.get('MOTO_PORT', DEFAULT_MOTO_PORT))}"


def is_loopback_url(url: str) -> bool:
    """Whether `url` names this machine by a loopback address. A name (`localhost` too) is
    not taken: it is looked up, and an S3 client puts a bucket's name before it."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def use_local_emulator_if_local() -> None:
    """On the `local` stage, every AWS call goes to the local emulator and nowhere else.

    Whatever the environment holds is overridden rather than kept: a developer's shell often
    has real keys, a profile or an endpoint of their own, and the local stage must never use
    them against AWS. An `AWS_ENDPOINT_URL` on this machine (another emulator's port) is
    kept; any other is replaced by the emulator's.
    """
    os.environ.setdefault("STAGE", "local")
    if os.environ["STAGE"] != "local":
        return
    if not is_loopback_url(os.environ.get("AWS_ENDPOINT_URL", "")):
        os.environ["AWS_ENDPOINT_URL"] = emulator_url()
    for name in list(os.environ):
        if name in _NOT_FOR_THE_EMULATOR or name.startswith(_SERVICE_ENDPOINT_PREFIX):
            del os.environ[name]
    os.environ.update(LOCAL_CREDENTIALS)
    # No configuration or credentials file: a profile there may name an endpoint, keys or a
    # process that fetches them.
    os.environ["AWS_CONFIG_FILE"] = os.devnull
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    # Never ask an instance's metadata service for a region or credentials.
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    # A proxy of the environment would carry the emulator's calls off this machine.
    for name in ("NO_PROXY", "no_proxy"):
        kept = [entry for entry in os.environ.get(name, "").split(",") if entry.strip()]
        os.environ[name] = ",".join(kept + [n for n in _LOOPBACK_NAMES if n not in kept])
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")


def exit_unless_emulator_answers() -> None:
    """Under `chalice local` on the local stage, stop at once with one line when the emulator
    is not up: every request would otherwise fail with a 500 of its own.

    Only Chalice's command line sets `AWS_CHALICE_CLI_MODE`: `make run` starts its emulator
    itself (and imports the app before the emulator answers), Lambda and the tests run other
    stages.
    """
    if os.environ.get("STAGE") != "local" or os.environ.get("AWS_CHALICE_CLI_MODE") != "true":
        return
    endpoint = urlsplit(os.environ.get("AWS_ENDPOINT_URL") or emulator_url())
    host = endpoint.hostname or "127.0.0.1"
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=2).close()
        return
    except OSError:
        line = (
            f"error: the local emulator is not answering on {host}:{port}: "
            "start it first with `make run`"
        )
    if threading.current_thread() is threading.main_thread():
        raise SystemExit(line)
    # With its reloader on, `chalice local` imports the app in a thread of its worker process,
    # where SystemExit would end only that thread and leave the worker serving nothing.
    print(line, file=sys.stderr, flush=True)
    os._exit(1)
