"""Where the signing secret lives: on AWS in Secrets Manager (never in a table item), on the
local stack in the settings table, made once and kept, so signed links outlive a restart."""

import uuid

import boto3
import pytest
from moto import mock_aws

from chalicelib import config
from chalicelib.domain import signing
from chalicelib.store.secrets import secret_value
from tests.dynamodb_calls import recording


@pytest.fixture
def aws(monkeypatch):
    monkeypatch.delenv("SIGNING_SECRET", raising=False)
    monkeypatch.delenv("SIGNING_SECRET_ID", raising=False)
    with mock_aws():
        from chalicelib.store.tables import create_all

        create_all()
        restart()
        yield
        # The next test signs with the secret of its own settings, as a new process would.
        restart()


def restart() -> None:
    """What a new process (a Lambda cold start, the next `make run`) knows: nothing cached."""
    signing._secret.cache_clear()
    secret_value.cache_clear()


def test_on_aws_the_secret_comes_from_secrets_manager_and_no_table_is_read(aws, monkeypatch):
    client = boto3.client("secretsmanager", region_name=config.region())
    value = uuid.uuid4().hex * 2
    arn = client.create_secret(Name=f"signing-{uuid.uuid4().hex}", SecretString=value)["ARN"]
    monkeypatch.setenv("SIGNING_SECRET_ID", arn)

    with recording() as dynamodb:
        token = signing.token("page1", "subscriber1", "manage")
        assert signing._secret() == value.encode()
    assert dynamodb.count() == 0

    restart()
    assert signing.verified_subject("page1", token, "manage") == "subscriber1"


def test_the_secret_is_read_once_per_process(aws, monkeypatch):
    client = boto3.client("secretsmanager", region_name=config.region())
    arn = client.create_secret(Name=f"signing-{uuid.uuid4().hex}", SecretString="first")["ARN"]
    monkeypatch.setenv("SIGNING_SECRET_ID", arn)
    token = signing.token("page1", "subscriber1", "manage")
    client.put_secret_value(SecretId=arn, SecretString="second")
    assert signing.verified_subject("page1", token, "manage") == "subscriber1"
    restart()  # a rotated secret is read by the next cold start; older links then fail
    assert signing.verified_subject("page1", token, "manage") is None


def test_locally_the_secret_is_made_once_and_signed_links_outlive_a_restart(aws):
    token = signing.token("page1", "subscriber1", "confirm")
    restart()
    assert signing.verified_subject("page1", token, "confirm") == "subscriber1"
    assert signing.verified_subject("page2", token, "confirm") is None


def test_an_explicit_secret_wins(aws, monkeypatch):
    monkeypatch.setenv("SIGNING_SECRET", "given")
    monkeypatch.setenv("SIGNING_SECRET_ID", "arn:aws:secretsmanager:us-east-1:1:secret:none")
    with recording() as dynamodb:
        assert signing._secret() == b"given"
    assert dynamodb.count() == 0
