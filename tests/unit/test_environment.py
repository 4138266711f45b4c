"""The local stage talks to the local emulator only, whatever AWS settings the shell holds;
`chalice local` without the emulator stops with one line."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from chalicelib import environment
from tests.aws_shell import REAL_LOOKING_AWS
from tests.e2e.stack import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shell():
    """The process environment, restored whole after the test."""
    with mock.patch.dict(os.environ):
        for name in [name for name in os.environ if name.startswith("AWS_")]:
            del os.environ[name]
        yield os.environ


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:5001", True),
        ("http://127.8.0.1", True),
        ("http://localhost:4566", False),
        ("http://[::1]:5001", True),
        ("https://dynamodb.us-east-1.amazonaws.com", False),
        ("http://0.0.0.0:5001", False),
        ("http://10.0.0.5:5001", False),
        ("http://localhost.example.com", False),
        ("", False),
        ("http://[not an address", False),
    ],
)
def test_is_loopback_url(url, loopback):
    assert environment.is_loopback_url(url) is loopback


def test_local_stage_overrides_real_aws_settings(shell, tmp_path):
    shell.update(REAL_LOOKING_AWS, STAGE="local", MOTO_PORT="5123")
    shell["AWS_CONFIG_FILE"] = str(tmp_path / "config")

    environment.use_local_emulator_if_local()

    assert shell["AWS_ENDPOINT_URL"] == "http://127.0.0.1:5123"
    assert (shell["AWS_ACCESS_KEY_ID"], shell["AWS_SECRET_ACCESS_KEY"]) == ("local", "local")
    for gone in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL_DYNAMODB"):
        assert gone not in shell
    assert "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS" not in shell
    assert shell["AWS_CONFIG_FILE"] == shell["AWS_SHARED_CREDENTIALS_FILE"] == os.devnull
    assert shell["AWS_EC2_METADATA_DISABLED"] == "true"
    assert "127.0.0.1" in shell["NO_PROXY"].split(",")


def test_local_stage_keeps_an_endpoint_on_this_machine(shell):
    shell.update(STAGE="local", AWS_ENDPOINT_URL="http://127.0.0.1:4566")
    environment.use_local_emulator_if_local()
    assert shell["AWS_ENDPOINT_URL"] == "http://127.0.0.1:4566"


@pytest.mark.parametrize("stage", ["prod", "test"])
def test_other_stages_keep_the_environment_as_it_is(shell, stage):
    shell.update(REAL_LOOKING_AWS, STAGE=stage)
    before = dict(shell)
    environment.use_local_emulator_if_local()
    assert dict(shell) == before


def test_chalice_local_without_emulator_exits_with_one_line(shell):
    port = free_port()  # nothing listens on it
    shell.update(STAGE="local", AWS_CHALICE_CLI_MODE="true", MOTO_PORT=str(port))
    environment.use_local_emulator_if_local()
    with pytest.raises(SystemExit) as stopped:
        environment.exit_unless_emulator_answers()
    assert str(stopped.value) == (
        f"error: the local emulator is not answering on 127.0.0.1:{port}: "
        "start it first with `make run`"
    )


def test_chalice_local_with_emulator_goes_on(shell):
    with socket.create_server(("127.0.0.1", 0)) as emulator:
        port = emulator.getsockname()[1]
        shell.update(STAGE="local", AWS_CHALICE_CLI_MODE="true", MOTO_PORT=str(port))
        environment.use_local_emulator_if_local()
        environment.exit_unless_emulator_answers()


@pytest.mark.parametrize(
    "settings",
    [
        {"STAGE": "local"},  # `make run`: it imports the app before its emulator answers
        {"STAGE": "test", "AWS_CHALICE_CLI_MODE": "true"},
        {"STAGE": "prod", "AWS_CHALICE_CLI_MODE": "true"},  # `chalice package --stage prod`
    ],
)
def test_only_chalice_local_checks_for_the_emulator(shell, settings):
    shell.update(settings, MOTO_PORT=str(free_port()))
    environment.exit_unless_emulator_answers()


# Run in a process of its own, with the environment above: every connection and name lookup
# is recorded, and any that is not of this machine is refused before it is made, so a failure
# of the test sends nothing anywhere.
_EVERY_CLIENT_OF_THE_APP = """
import ipaddress, json, socket

looked_up, dialled = [], []
LOCAL = ("127.0.0.1", "localhost", "::1")

def is_local(host):
    try:
        return host in LOCAL or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

real_getaddrinfo = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    looked_up.append(str(host))
    if not is_local(str(host)):
        raise socket.gaierror("refused by the test: not this machine")
    return real_getaddrinfo(host, *args, **kwargs)
socket.getaddrinfo = getaddrinfo

real_connect = socket.socket.connect
def connect(self, address):
    dialled.append(str(address[0]))
    if not is_local(str(address[0])):
        raise OSError("refused by the test: not this machine")
    return real_connect(self, address)
socket.socket.connect = connect

import app  # as `chalice local` does: the app points the clients before its own imports
import boto3
from chalicelib import config
from chalicelib.store.components import Component

calls = {
    "dynamodb": lambda c: c.list_tables(),
    "sqs": lambda c: c.list_queues(),
    "ses": lambda c: c.get_send_quota(),
    "sns": lambda c: c.list_topics(),
    "secretsmanager": lambda c: c.list_secrets(),
    "s3": lambda c: c.list_buckets(),
}  # and no CloudFront KeyValueStore: only a stack on AWS has one (SITE_HOSTS_STORE)
endpoints = {}
for service, call in calls.items():
    client = boto3.client(service, region_name=config.region())
    endpoints[service] = client.meta.endpoint_url
    try:
        call(client)
    except Exception:
        pass
try:
    Component.get("page", "component")
except Exception:
    pass
credentials = boto3.Session().get_credentials()
print(json.dumps({
    "looked_up": looked_up,
    "dialled": dialled,
    "endpoints": endpoints,
    "access_key": credentials.access_key,
    "token": credentials.token,
}))
"""


def test_local_stage_reaches_only_the_emulator_whatever_the_shell_holds(tmp_path):
    # A profile that would run a process for its keys, and name an endpoint, were it read.
    marker = tmp_path / "credential_process_ran"
    (tmp_path / "config").write_text(
        "[profile production]\n"
        f"credential_process = touch {marker}\n"
        "endpoint_url = https://0.0.0.0:443\n"
        "[default]\n"
        f"credential_process = touch {marker}\n"
    )
    moto_port = free_port()  # nothing listens: every call is refused, after it was dialled
    env = {
        name: value for name, value in os.environ.items() if not name.startswith(("AWS_", "PYTEST"))
    }
    env.update(
        REAL_LOOKING_AWS,
        STAGE="local",
        MOTO_PORT=str(moto_port),
        AWS_CONFIG_FILE=str(tmp_path / "config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "config"),
        AWS_MAX_ATTEMPTS="1",
    )
    done = subprocess.run(
        [sys.executable, "-c", _EVERY_CLIENT_OF_THE_APP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])

    emulator = f"http://127.0.0.1:{moto_port}"
    assert set(seen["endpoints"].values()) == {emulator}
    assert (seen["access_key"], seen["token"]) == ("local", None)
    assert seen["dialled"], "no call reached the emulator's port"
    assert set(seen["dialled"]) == {"127.0.0.1"}
    assert set(seen["looked_up"]) <= {"127.0.0.1"}
    assert not marker.exists()
