"""No secret reaches a log line: API keys in the query however their name is encoded, and the
tokens of the links that work without login (sign-in, subscription)."""

import io
import logging
import re

import pytest

from chalicelib.local import logs, server

KEY = "0123456789abcdef." + "K" * 43
TOKEN = "u1_1700000000-" + "f" * 40

# Every way of writing `api_key` that Chalice's and API Gateway's query decoding read as it.
ENCODED_NAMES = ["api_key", "api%5Fkey", "%61pi_key", "api_k%65y", "%61%70%69%5f%6b%65%79"]


def access_line(target: str, capsys) -> str:
    """What the local server's access log writes for a GET of `target`."""
    handler = object.__new__(server._RequestHandler)
    handler.requestline = f"GET {target} HTTP/1.1"
    handler.client_address = ("127.0.0.1", 50000)
    handler.log_request(200, 2)
    return capsys.readouterr().err


@pytest.mark.parametrize("name", ENCODED_NAMES)
def test_access_log_masks_a_key_whatever_the_encoding_of_its_name(name, capsys):
    logged = access_line(f"/v1/pages?{name}=opaque-secret-value&page=1", capsys)
    assert "opaque-secret-value" not in logged
    assert f"/v1/pages?{name}=[masked]&page=1" in logged


@pytest.mark.parametrize(
    "target",
    [
        f"/s/page1/sign-in/{TOKEN}",
        f"/sign-in/{TOKEN}",
        f"/s/page1/subscriptions/{TOKEN}/manage",
        f"/s/page1/subscriptions/{TOKEN}/confirm",
        f"/s/page1/subscriptions/{TOKEN}/unsubscribe",
        f"/s/page1/sign%2Din/{TOKEN}",
        f"http://status.example.com/sign-in/{TOKEN}?x=1",
    ],
)
def test_access_log_masks_the_token_of_a_link(target, capsys):
    logged = access_line(target, capsys)
    assert TOKEN not in logged
    assert "[masked]" in logged


def test_access_log_masks_a_key_sent_anywhere(capsys):
    for target in (f"/v1/pages/{KEY}", f"/v1/pages?token={KEY}", f"/v1/pages?x=1?api_key={KEY}"):
        assert KEY not in access_line(target, capsys)


def test_access_log_keeps_what_is_not_secret(capsys):
    logged = access_line("/v1/pages/p1/incidents?q=down&page=2", capsys)
    assert '"GET /v1/pages/p1/incidents?q=down&page=2 HTTP/1.1" 200 2' in logged


def test_a_malformed_request_line_quoted_in_an_error_is_masked(capsys):
    handler = object.__new__(server._RequestHandler)
    handler.client_address = ("127.0.0.1", 50000)
    line = f"GET /v1/pages?a=1 &api%5Fkey={KEY} /s/p/sign-in/{TOKEN} HTTP/1.1"
    handler.log_error("code %d, message %s", 400, f"Bad request syntax ({line!r})")
    logged = capsys.readouterr().err
    assert KEY not in logged and TOKEN not in logged


@pytest.mark.parametrize(
    ("target", "shown"),
    [
        ("/v1/pages?api_key=s3cret", "/v1/pages?api_key=[masked]"),
        ("/v1/pages?API_KEY=s3cret", "/v1/pages?API_KEY=[masked]"),
        ("/v1/pages?api%255Fkey=s3cret", "/v1/pages?api%255Fkey=[masked]"),
        ("/v1/pages?page=1;api_key=s3cret", "/v1/pages?page=1;api_key=[masked]"),
        ("/v1/pages?api_key=a&api_key=b", "/v1/pages?api_key=[masked]&api_key=[masked]"),
        ("/manage/sign-in?next=/s/p/sign-in/s3cret", "/manage/sign-in?next=[masked]"),
        ("/s/p/sign-in", "/s/p/sign-in"),
        ("/s/p/sign-in/", "/s/p/sign-in/"),
        ("/s/p/subscribe?via=email", "/s/p/subscribe?via=email"),
    ],
)
def test_masked_target(target, shown):
    assert logs.masked_target(target) == shown


def test_every_route_with_a_token_in_its_path_is_masked():
    """A new route with a secret in its path (an integration's token) must be masked too:
    add the segment before it to `logs.SECRET_PATH_AFTER`."""
    from app import app

    secret = re.compile(r"\{([^}]*(token|secret|password)[^}]*)\}")
    checked = 0
    for path in app.routes:
        if not secret.search(path):
            continue
        sample = secret.sub("SECRETVALUE", path)
        sample = re.sub(r"\{[^}]*\}", "p1", sample)
        assert "SECRETVALUE" not in logs.masked_target(sample), path
        checked += 1
    assert checked >= 3  # the sign-in link (two places) and the subscription links


def test_every_log_record_of_the_stack_is_masked(monkeypatch):
    """The front and the other processes log through `logging`: their lines are masked too
    (the front names a target that the app did not answer in time)."""
    stream = io.StringIO()
    # The handler `logs.configure` finds on the root logger, as in a process of the stack.
    monkeypatch.setattr(logging.getLogger(), "handlers", [logging.StreamHandler(stream)])
    levels = {noisy: logging.getLogger(noisy).level for noisy in logs._NOISY}
    try:
        logs.configure()
        logger = logging.getLogger("chalicelib.local.site_server")
        logger.warning("the app did not answer %s %s in time", "GET", f"/sign-in/{TOKEN}")
        try:
            raise RuntimeError(f"failed on /v1/pages?api%5Fkey={KEY}")
        except RuntimeError:
            logger.exception("answering %s failed", f"/s/p/subscriptions/{TOKEN}/manage")
    finally:
        for noisy, level in levels.items():
            logging.getLogger(noisy).setLevel(level)
    logged = stream.getvalue()
    assert "the app did not answer GET /sign-in/[masked] in time" in logged
    assert TOKEN not in logged and KEY not in logged
