"""The console's sign-in limits: failures count per address and client, so one who fails with
the owner's address locks out only themselves; past a per-address ceiling, only clients
without a recent failure may try, and the owner's right password still signs them in."""

from datetime import UTC, datetime, timedelta

import boto3
import pytest

from chalicelib import config
from chalicelib.console import sign_in
from chalicelib.http import ratelimit
from chalicelib.ids import new_id
from tests.console.conftest import PASSWORD, Console

ATTACKER, OWNER, OTHER, ANOTHER = "198.51.100.7", "192.0.2.10", "198.51.100.8", "198.51.100.9"
EDGE = "130.176.89.10"  # one CloudFront edge, which every reader below comes through


class _From:
    """The test client, as requests from `address` reach the app behind the local front."""

    def __init__(self, client, address: str):
        self.client, self.address = client, address

    @property
    def http(self) -> "_From":
        return self

    def request(self, method, path, headers, body):
        headers = {**headers, "X-Forwarded-For": self.address}
        return self.client.http.request(method, path, headers=headers, body=body)


class _ThroughCloudFront(_From):
    """The test client, as CloudFront's origin `app` reaches the app for a reader at
    `address`: from the edge's own address, with the reader's and the origin's secret."""

    def __init__(self, client, address: str, secret: str):
        super().__init__(client, EDGE)
        self.viewer, self.secret = address, secret

    def request(self, method, path, headers, body):
        sent = {"CloudFront-Viewer-Address": f"{self.viewer}:46532", "X-Origin-Verify": self.secret}
        return super().request(method, path, {**headers, **sent}, body)


@pytest.fixture
def browser_at(http):
    """`browser_at(address)`: a browser of its own at that address."""
    return lambda address: Console(_From(http, address))


@pytest.fixture
def origin_secret(aws, monkeypatch) -> str:
    """The secret origin `app` sends, in (moto's) Secrets Manager as the template keeps it."""
    client = boto3.client("secretsmanager", region_name=config.region())
    value = new_id() + new_id()
    arn = client.create_secret(Name=f"origin-verify-{new_id()}", SecretString=value)["ARN"]
    monkeypatch.setenv("ORIGIN_VERIFY_SECRET_ID", arn)
    return value


@pytest.fixture
def browser_behind_edge(http, origin_secret):
    """`browser_behind_edge(address, secret=None)`: a browser at that address whose requests
    come through the CloudFront edge `EDGE`, with the origin's secret or `secret`."""
    return lambda address, secret=None: Console(
        _ThroughCloudFront(http, address, origin_secret if secret is None else secret)
    )


@pytest.fixture
def later(freeze_clock):
    """The clock stopped at the start of a minute (a test's attempts all fall in one
    window); `later(seconds)` moves it on."""
    moment = datetime(2026, 3, 2, 9, 0, 1, tzinfo=UTC)
    freeze_clock(moment)

    def later(seconds: float) -> None:
        nonlocal moment
        moment += timedelta(seconds=seconds)
        freeze_clock(moment)

    return later


def test_the_limits_by_default():
    assert sign_in.FAILURES_PER_CLIENT == 5
    assert (sign_in.FAILURES_PER_ADDRESS, sign_in.ADDRESS_WINDOW_SECONDS) == (50, 15 * 60)


def test_failing_with_the_owners_address_locks_out_only_that_client(browser_at, make_user, later):
    email = make_user()
    attacker = browser_at(ATTACKER)
    for _ in range(5):
        assert attacker.sign_in(email, "guess").status == 401
    refused = attacker.sign_in(email, PASSWORD)  # the right password too, from this client
    assert refused.status == 429 and "retry-after" in refused.headers
    assert "manage_session" not in attacker.cookies

    owner = browser_at(OWNER)
    assert owner.sign_in(email, PASSWORD).status == 303
    assert "manage_session" in owner.cookies
    assert browser_at(OTHER).sign_in(email, "a typo").status == 401  # not locked out either


def test_behind_one_cloudfront_edge_readers_are_counted_by_their_own_address(
    browser_behind_edge, make_user, later
):
    email = make_user()
    attacker = browser_behind_edge(ATTACKER)
    for _ in range(5):
        assert attacker.sign_in(email, "guess").status == 401
    assert attacker.sign_in(email, PASSWORD).status == 429

    # The owner comes through the same edge: a client of its own, not locked out.
    owner = browser_behind_edge(OWNER)
    assert owner.sign_in(email, PASSWORD).status == 303
    assert "manage_session" in owner.cookies


def test_a_viewer_address_without_the_origins_secret_is_not_believed(
    browser_behind_edge, make_user, later
):
    """Straight to API Gateway, anyone may send `CloudFront-Viewer-Address`: without the
    secret the request counts as its source, however the header changes."""
    email = make_user()
    guesses = [browser_behind_edge(f"203.0.113.{n}", secret="guessed") for n in range(1, 7)]
    for guesser in guesses[:5]:
        assert guesser.sign_in(email, "guess").status == 401
    assert guesses[5].sign_in(email, PASSWORD).status == 429  # all of them the edge's


def test_past_the_address_ceiling_a_client_without_recent_failures_still_signs_in(
    browser_at, make_user, later, monkeypatch
):
    monkeypatch.setattr(sign_in, "FAILURES_PER_ADDRESS", 6)
    email = make_user()
    attacker, other = browser_at(ATTACKER), browser_at(OTHER)
    for _ in range(5):
        assert attacker.sign_in(email, "guess").status == 401
    for _ in range(2):
        assert other.sign_in(email, "guess").status == 401
    # 7 failures: past the ceiling. A client that failed lately is refused, even under its
    # own limit and with the right password...
    assert other.sign_in(email, PASSWORD).status == 429
    # ...one that did not may try: the right password signs in,
    assert browser_at(OWNER).sign_in(email, PASSWORD).status == 303
    # and a wrong one is a failure, after which that client waits as well.
    guesser = browser_at(ANOTHER)
    assert guesser.sign_in(email, "guess").status == 401
    refused = guesser.sign_in(email, "guess again")
    assert refused.status == 429
    assert 60 <= int(refused.headers["retry-after"]) <= 120

    # Once its failures are forgotten (the address is still past its ceiling), a client
    # tries again.
    later(125)
    assert other.sign_in(email, PASSWORD).status == 303


def test_an_unknown_address_gets_the_same_answers(browser_at, later, monkeypatch):
    monkeypatch.setattr(sign_in, "FAILURES_PER_ADDRESS", 6)
    email = f"nobody-{new_id()}@example.com"
    attacker, other = browser_at(ATTACKER), browser_at(OTHER)
    for _ in range(5):
        assert attacker.sign_in(email, "guess").status == 401
    assert attacker.sign_in(email, "guess").status == 429
    for _ in range(2):
        assert other.sign_in(email, "guess").status == 401
    assert other.sign_in(email, "guess").status == 429
    assert browser_at(ANOTHER).sign_in(email, "guess").status == 401


@pytest.mark.parametrize(
    ("source", "forwarded", "client"),
    [
        ("203.0.113.5", "198.51.100.7", "203.0.113.5"),  # API Gateway's source, not the header
        ("127.0.0.1", "198.51.100.7", "198.51.100.7"),  # behind the local front
        ("127.0.0.1", "6.6.6.6, 198.51.100.7", "198.51.100.7"),  # the last hop's
        ("127.0.0.1", "not an address", "127.0.0.1"),
        ("127.0.0.1", None, "127.0.0.1"),
        ("2001:db8:1:2:3:4:5:6", None, "2001:db8:1:2::/64"),  # a host holds a whole /64
        ("::ffff:198.51.100.7", None, "198.51.100.7"),
        ("", None, "unknown"),
    ],
)
def test_the_client_a_request_counts_as(source, forwarded, client):
    headers = {} if forwarded is None else {"x-forwarded-for": forwarded}
    assert ratelimit.client_of({"identity": {"sourceIp": source}}, headers) == client
