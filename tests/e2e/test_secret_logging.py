"""The local stack writes no secret to its logs: an API key sent in the query (however its name
is encoded), the tokens of sign-in links and of subscription links, console passwords and
sessions, the page's webhook signing secret, an integration's token, the importer's source
key. Every secret the tests create is looked for in every line the stack logged, and in the
importer's own output; the lines are the JSON lines the functions write on AWS."""

import http.client
import json
import re
import subprocess
import sys

import pytest
import requests

from tests.e2e.stack import ROOT, LocalStack, wait_for
from tests.sent_mail import Mail, sent_mail_over_http
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e

# Every way of writing `api_key` that authenticates (the app reads decoded names).
KEY_NAMES = ["api_key", "api%5Fkey", "%61pi_key", "api_k%65y"]
# Every secret the module's tests made, for the last test's scan of the whole log.
CREATED: list[str] = []


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secret-logging")
    running = LocalStack(folder / "data", log=folder / "stack.log").start()
    yield running
    running.stop()


def mails_to(stack: LocalStack, address: str, count: int) -> list[Mail]:
    found: list[Mail] = []

    def arrived() -> bool:
        sent = sent_mail_over_http(f"http://127.0.0.1:{stack.moto_port}")
        found[:] = [mail for mail in sent if mail.to == [address]]
        return len(found) >= count

    assert wait_for(arrived, timeout=30), f"no mail to {address}"
    return found


def raw_get(stack: LocalStack, target: str) -> int:
    """GET `target` as written (`requests` would decode `%5F` and the like first)."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
    try:
        connection.request("GET", target)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def path_of(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def test_keys_and_link_tokens_never_reach_the_logs(stack):
    created = stack.admin("bootstrap")
    key, page_id = created["api_key"], created["page_id"]
    secrets = [key]

    for name in KEY_NAMES:
        # It authenticates: so it must be masked.
        assert raw_get(stack, f"/v1/pages?{name}={key}&page=1") == 200, name

    # A reader subscribes, confirms through the emailed link, then opens the manage link.
    address = f"reader-{page_id}@example.com"
    subscribed = requests.post(
        f"{stack.url}/s/{page_id}/subscribe",
        data={"subscriber[email]": address},
        timeout=30,
    )
    assert subscribed.status_code == 200, subscribed.text
    (confirmation,) = mails_to(stack, address, 1)
    confirm = re.search(r"https?://\S+/subscriptions/(\S+)/confirm", confirmation.body)
    secrets.append(confirm.group(1))
    confirmed = requests.post(confirm.group(0), timeout=30)
    assert "Subscription confirmed" in confirmed.text
    manage = re.search(r'href="([^"]*/subscriptions/([^/"]+)/manage)"', confirmed.text)
    secrets.append(manage.group(2))
    assert requests.get(stack.url + path_of(manage.group(1)), timeout=30).status_code == 200

    # A page access user signs in to an audience-specific page through the emailed link.
    viewer = f"viewer-{page_id}@example.com"
    added = stack.send(
        "POST",
        f"/v1/pages/{page_id}/page_access_users",
        key,
        {"page_access_user": {"email": viewer}},
    )
    assert added.status_code == 201, added.text
    changed = stack.send(
        "PATCH", f"/v1/pages/{page_id}", key, {"page": {"audience_specific": True}}
    )
    assert changed.status_code == 200, changed.text
    asked = requests.post(f"{stack.url}/s/{page_id}/sign-in", data={"email": viewer}, timeout=30)
    assert asked.status_code == 200, asked.text
    (invitation,) = mails_to(stack, viewer, 1)
    sign_in = re.search(r"https?://\S+/sign-in/(\S+)", invitation.body)
    secrets.append(sign_in.group(1))
    assert requests.get(sign_in.group(0), timeout=30).status_code == 200  # its page
    opened = requests.post(sign_in.group(0), allow_redirects=False, timeout=30)
    assert opened.status_code == 303
    cookie = opened.headers["Set-Cookie"].split(";")[0]
    # The same link on the page's own host (`/sign-in/{token}` at the root); used already, so
    # it may be refused: what counts is the line it leaves in the log.
    summary = stack.get(f"/s/{page_id}/api/v2/summary.json", headers={"Cookie": cookie}).json()
    host = summary["page"]["url"].removeprefix("http://")
    at_root = requests.get(
        f"{stack.url}/sign-in/{sign_in.group(1)}",
        headers={"Host": host},
        allow_redirects=False,
        timeout=30,
    )
    assert at_root.status_code in (303, 400)

    def logged_every_request() -> bool:
        logged = stack.logged()
        return logged.count("/sign-in/[masked]") >= 2 and "/manage" in logged

    assert wait_for(logged_every_request, timeout=10), stack.logged()
    logged = stack.logged()
    for name in KEY_NAMES:
        assert f"/v1/pages?{name}=[masked]&page=1" in logged
    assert f"/s/{page_id}/subscriptions/[masked]/confirm" in logged
    assert f"/s/{page_id}/subscriptions/[masked]/manage" in logged
    for secret in secrets:
        assert secret not in logged
    CREATED.extend(secrets)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def console_secrets(stack: LocalStack, user_id: str) -> list[str]:
    """The owner signs in with a one-time password and chooses their own: both passwords,
    the sign-in form's token and both sessions are secrets."""
    one_time = stack.admin("set-password", "--user", user_id)["password"]
    browser = requests.Session()
    form = browser.get(f"{stack.url}/manage/sign-in", timeout=30)
    signed_in = browser.post(
        f"{stack.url}/manage/sign-in",
        data={"email": "owner@example.com", "password": one_time, "csrf": csrf_of(form.text)},
        allow_redirects=False,
        timeout=30,
    )
    assert signed_in.status_code == 303, signed_in.text
    first_session = browser.cookies["manage_session"]
    chosen = "a-password-of-my-own-" + user_id
    choose = browser.get(f"{stack.url}/manage/password", timeout=30)
    changed = browser.post(
        f"{stack.url}/manage/password",
        data={"password": chosen, "confirmation": chosen, "csrf": csrf_of(choose.text)},
        allow_redirects=False,
        timeout=30,
    )
    assert changed.status_code == 303, changed.text
    assert browser.get(f"{stack.url}/manage", timeout=30).status_code == 200
    sign_in_token = csrf_of(form.text)
    return [one_time, chosen, sign_in_token, first_session, browser.cookies["manage_session"]]


def webhook_secrets(stack: LocalStack, key: str, page_id: str) -> list[str]:
    """A webhook subscriber is sent an incident, signed with the page's secret; the secret is
    read, rotated and read again."""
    pages = f"/v1/pages/{page_id}"
    secrets = [stack.get(f"{pages}/webhook_secret", key).json()["webhook_secret"]]
    with WebhookSink() as sink:
        added = stack.send(
            "POST",
            f"{pages}/subscribers",
            key,
            {"subscriber": {"endpoint": sink.url, "email": "ops@example.com"}},
        )
        assert added.status_code == 201, added.text
        opened = stack.send(
            "POST", f"{pages}/incidents", key, {"incident": {"name": "Down", "body": "Looking"}}
        )
        assert opened.status_code == 201, opened.text
        assert wait_for(lambda: sink.received, timeout=30), "no webhook arrived"
    rotated = stack.send("POST", f"{pages}/webhook_secret/rotate", key, {})
    assert rotated.status_code == 200, rotated.text
    secrets.append(stack.get(f"{pages}/webhook_secret", key).json()["webhook_secret"])
    assert secrets[0] != secrets[1]
    return secrets


def integration_secrets(stack: LocalStack, key: str, page_id: str) -> list[str]:
    """An integration's token, in its alert address and as a bearer token."""
    made = stack.send(
        "POST", f"/v1/pages/{page_id}/integrations", key, {"integration": {"kind": "generic"}}
    )
    assert made.status_code == 201, made.text
    url = made.json()["url"]
    token = re.search(r"/integrations/([^/]+)/alerts", url).group(1)
    # Not a generic alert: refused, and logged as a refusal.
    assert (
        requests.post(stack.url + path_of(url), json={"nothing": 1}, timeout=30).status_code == 400
    )
    bearer = requests.post(
        f"{stack.url}/v1/integrations/alerts",
        json={"nothing": 1},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert bearer.status_code == 400, bearer.text
    return [token]


def careless_client_secrets(stack: LocalStack, key: str, page_id: str) -> list[str]:
    """Secrets where no secret goes: a key pasted as a path's id (authenticated and not, a
    public page's), an integration's token and a form's CSRF token in a query."""
    made = stack.send(
        "POST", f"/v1/pages/{page_id}/integrations", key, {"integration": {"kind": "generic"}}
    )
    token = re.search(r"/integrations/([^/]+)/alerts", made.json()["url"]).group(1)
    form = requests.get(f"{stack.url}/manage/sign-in", timeout=30)
    csrf = csrf_of(form.text)
    for path in (
        f"/v1/pages/{key}",
        f"/v1/pages/{key}/components",
        f"/v1/organizations/{key}/users",
    ):
        assert stack.get(path, key).status_code in (401, 404), path
        assert stack.get(path).status_code in (401, 404), path
    assert stack.get(f"/s/{key}").status_code == 404
    assert stack.get(f"/s/{key}/api/v2/summary.json").status_code == 404
    posted = requests.post(
        f"{stack.url}/v1/integrations/alerts?token={token}", json={"nothing": 1}, timeout=30
    )
    assert posted.status_code in (401, 404), posted.text
    assert raw_get(stack, f"/manage/sign-in?csrf={csrf}&next=/manage") == 200
    return [token, csrf]


def import_with_source_key(
    stack: LocalStack, organization_id: str, page_id: str, user_id: str
) -> tuple[str, str]:
    """The importer copies the page into a new one with a key of its own; its output too."""
    source_key = stack.admin("create-key", "--user", user_id)["api_key"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "chalicelib.admin",
            "import",
            "--from-url",
            stack.url,
            "--from-key",
            source_key,
            "--page",
            page_id,
            "--organization",
            organization_id,
            "--rate",
            "50",
        ],
        cwd=ROOT,
        env=stack.environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return source_key, done.stdout + done.stderr


def test_no_secret_of_any_kind_reaches_any_log_line(stack):
    created = stack.admin("bootstrap")
    key, page_id, user_id = created["api_key"], created["page_id"], created["user_id"]
    secrets = [key]
    secrets += console_secrets(stack, user_id)
    secrets += webhook_secrets(stack, key, page_id)
    secrets += integration_secrets(stack, key, page_id)
    secrets += careless_client_secrets(stack, key, page_id)
    source_key, importer_output = import_with_source_key(
        stack, created["organization_id"], page_id, user_id
    )
    secrets.append(source_key)

    def logged_the_last_request() -> bool:
        return '"function":"get_page"' in stack.logged()

    assert wait_for(logged_the_last_request, timeout=10)
    logged = stack.logged()
    for secret in [*CREATED, *secrets]:
        assert len(secret) >= 8
        assert secret not in logged, "a secret reached the stack's log"
        assert secret not in importer_output, "a secret reached the importer's output"

    # The app's lines are JSON: each invocation names its function, page and outcome.
    lines = [json.loads(line) for line in logged.splitlines() if line.startswith("{")]
    ended = [line for line in lines if line.get("message") == "invocation"]
    functions = {line["function"] for line in ended}
    assert {"get_webhook_secret", "fan_out_notifications", "deliver_notifications"} <= functions
    read = next(line for line in ended if line["function"] == "get_webhook_secret")
    assert (read["page_id"], read["status"]) == (page_id, 200)
    assert read["request_id"] and read["duration_ms"] >= 0
