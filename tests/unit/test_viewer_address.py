"""Who a request counts as behind CloudFront: the reader's own address, which CloudFront gives
origin `app` in `CloudFront-Viewer-Address`, believed only from a request that carries the
origin's secret (Secrets Manager); any other request counts as its `sourceIp`, as before."""

import uuid

import boto3
import pytest
from moto import mock_aws

from chalicelib import config
from chalicelib.http import ratelimit
from chalicelib.store.secrets import secret_value

EDGE = "130.176.89.10"  # a CloudFront edge: the `sourceIp` API Gateway sees for its readers
THROUGH_THE_EDGE = {"identity": {"sourceIp": EDGE}}


@pytest.fixture
def origin_secret(monkeypatch) -> str:
    """The origin's secret, in moto's Secrets Manager, named as the template names it to the
    functions; read afresh, as by a new process."""
    with mock_aws():
        client = boto3.client("secretsmanager", region_name=config.region())
        value = uuid.uuid4().hex + uuid.uuid4().hex
        arn = client.create_secret(Name=f"origin-{uuid.uuid4().hex}", SecretString=value)["ARN"]
        monkeypatch.setenv("ORIGIN_VERIFY_SECRET_ID", arn)
        secret_value.cache_clear()
        yield value
        secret_value.cache_clear()


def through_cloudfront(viewer: str, secret: str | None) -> dict[str, str]:
    headers = {"cloudfront-viewer-address": viewer}
    if secret is not None:
        headers["x-origin-verify"] = secret
    return headers


@pytest.mark.parametrize(
    ("viewer", "client"),
    [
        ("198.51.100.7:46532", "198.51.100.7"),
        ("2001:db8:1:2:3:4:5:6:46532", "2001:db8:1:2::/64"),  # the port after the last colon
        ("2001:db8::1:46532", "2001:db8::/64"),
        ("[2001:db8::1]:443", "2001:db8::/64"),
        ("::ffff:198.51.100.7:1024", "198.51.100.7"),
    ],
)
def test_through_the_distribution_a_request_counts_as_the_viewers_address(
    origin_secret, viewer, client
):
    headers = through_cloudfront(viewer, origin_secret)
    assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == client


WRONG_SECRETS = {
    "missing": lambda secret: None,
    "empty": lambda secret: "",
    "another": lambda secret: "x" * len(secret),
    "longer": lambda secret: secret + "x",
    "shorter": lambda secret: secret[:-1],
    "not ascii": lambda secret: secret[:-1] + "\u00e9",
}


@pytest.mark.parametrize("presented", WRONG_SECRETS.values(), ids=WRONG_SECRETS)
def test_a_wrong_or_missing_secret_counts_the_source_address(origin_secret, presented):
    headers = through_cloudfront("198.51.100.7:46532", presented(origin_secret))
    assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == EDGE


@pytest.mark.parametrize("viewer", ["", "198.51.100.7", "not an address:80", "198.51.100.7:x"])
def test_a_verified_request_without_a_viewer_address_counts_the_source_address(
    origin_secret, viewer
):
    headers = through_cloudfront(viewer, origin_secret)
    assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == EDGE


def test_without_the_setting_the_viewer_address_is_never_believed_nor_a_secret_read(
    monkeypatch,
):
    monkeypatch.delenv("ORIGIN_VERIFY_SECRET_ID", raising=False)
    monkeypatch.setattr(ratelimit, "secret_value", lambda secret_id: pytest.fail("read"))
    headers = through_cloudfront("198.51.100.7:46532", "anything")
    assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == EDGE
    # The local front's client, as before (tests/console/test_sign_in_lockout.py).
    local = {"identity": {"sourceIp": "127.0.0.1"}}
    assert ratelimit.client_of(local, {**headers, "x-forwarded-for": "192.0.2.4"}) == "192.0.2.4"


def test_the_secret_is_read_once_and_only_for_a_request_that_presents_one(origin_secret):
    assert ratelimit.client_of(THROUGH_THE_EDGE, {}) == EDGE
    assert secret_value.cache_info().currsize == 0  # no Secrets Manager call
    for _ in range(3):
        headers = through_cloudfront("198.51.100.7:46532", origin_secret)
        assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == "198.51.100.7"
    assert secret_value.cache_info().misses == 1


def test_a_secret_that_cannot_be_read_counts_the_source_address(monkeypatch, caplog):
    with mock_aws():
        missing = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gone-AbCdEf"
        monkeypatch.setenv("ORIGIN_VERIFY_SECRET_ID", missing)
        secret_value.cache_clear()
        headers = through_cloudfront("198.51.100.7:46532", "anything")
        assert ratelimit.client_of(THROUGH_THE_EDGE, headers) == EDGE
    assert "the origin's secret could not be read" in caplog.text
