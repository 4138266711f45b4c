"""What an operator reads: one JSON log line per invocation (request id, function, page,
organization, duration, outcome), the same keys on every line logged within, and the custom
metrics as CloudWatch embedded-metric-format lines. The app runs over moto's AWS."""

import io
import json
import logging

import pytest
from chalice.test import Client
from moto import mock_aws

from chalicelib import config
from chalicelib.notify import queues
from chalicelib.observability import logs as structured_logs
from chalicelib.observability import metrics


@pytest.fixture(scope="module")
def app():
    with mock_aws():
        from app import app
        from chalicelib.local.emulator import create_resources

        create_resources()
        yield app


@pytest.fixture
def client(app):
    with Client(app) as client:
        yield client


@pytest.fixture
def world(app):
    from chalicelib.domain import organizations, pages
    from chalicelib.domain.pages import PageInput

    organization = organizations.create_organization("Acme Inc")
    owner = organizations.create_user(organization.id, "owner@example.com", owner=True)
    key = organizations.create_api_key(owner)
    page = pages.create_page(organization.id, PageInput(name="Acme"))
    return {"organization_id": organization.id, "key": key, "page_id": page.id}


@pytest.fixture
def root_logger():
    """The root logger, restored after the test (configuring replaces its handlers)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def logged(root_logger):
    """The JSON lines written by the handler the functions have on Lambda, parsed."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structured_logs.JsonLines())
    structured_logs.install(handler)
    return lambda: [json.loads(line) for line in stream.getvalue().splitlines()]


def invocations(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["message"] == structured_logs.INVOCATION]


def metric_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"_aws"')]


def as_owner(world: dict) -> dict:
    return {"Authorization": f"OAuth {world['key']}"}


def test_a_request_is_one_json_line_with_its_id_handler_page_status_and_duration(
    client, world, logged
):
    path = f"/v1/pages/{world['page_id']}"
    assert client.http.get(path, headers=as_owner(world)).status_code == 200
    assert client.http.get(path, headers=as_owner(world)).status_code == 200

    first, second = invocations(logged())
    assert first["level"] == "INFO"
    assert first["service"] == "statuspage"
    assert first["function"] == "get_page"
    assert first["route"] == "GET /v1/pages/{page_id}"
    assert first["page_id"] == world["page_id"]
    assert first["status"] == 200
    assert isinstance(first["duration_ms"], float) and first["duration_ms"] >= 0
    assert first["timestamp"].endswith("+00:00")
    assert first["request_id"] and first["request_id"] != second["request_id"]


def test_a_refused_request_is_logged_with_its_status_and_no_string_the_caller_chose(
    client, world, logged
):
    path = f"/v1/organizations/{world['organization_id']}/users"
    assert client.http.get(path).status_code == 401

    (line,) = invocations(logged())
    assert (line["function"], line["status"]) == ("list_users", 401)
    assert line["organization_id"] == structured_logs.UNKNOWN  # nobody's, to an anonymous caller


def test_a_key_pasted_into_a_path_is_never_a_logged_id(client, world, logged):
    """The path's ids are logged once the app found them the caller's; a key pasted where an
    id goes (a careless client), or any string of an anonymous caller, is `<unknown>`."""
    key = world["key"]
    assert client.http.get(f"/v1/pages/{key}", headers=as_owner(world)).status_code == 404
    client.http.get(f"/v1/organizations/{key}/users")
    client.http.get(f"/s/{key}")
    client.http.get(f"/s/{world['page_id']}")
    lines = invocations(logged())
    assert key not in json.dumps(lines)
    assert [line.get("page_id") for line in lines] == [
        structured_logs.UNKNOWN,
        None,
        structured_logs.UNKNOWN,
        world["page_id"],
    ]


def test_lines_logged_within_an_event_function_carry_its_keys(client, world, logged):
    # An outbox event that does not exist: the fan-out logs why it sends nothing.
    body = json.dumps({"event_id": "gone", "page_id": world["page_id"]})
    event = client.events.generate_sqs_event(
        queue_name=config.queue_name(queues.NOTIFICATIONS), message_bodies=[body]
    )
    client.lambda_.invoke("fan_out_notifications", event)

    lines = logged()
    (warning,) = [line for line in lines if line["level"] == "WARNING"]
    (ended,) = invocations(lines)
    assert "nothing to send" in warning["message"]
    for line in (warning, ended):
        assert line["function"] == "fan_out_notifications"
        assert line["page_id"] == world["page_id"]
    assert warning["request_id"] == ended["request_id"]
    assert (ended["messages"], ended["handled"], ended["failed"]) == (1, 1, 0)


def test_a_batch_that_raises_is_logged_as_failed_and_still_raises(client, logged):
    event = client.events.generate_sqs_event(
        queue_name=config.queue_name(queues.METRIC_DATA), message_bodies=["not json", "{}"]
    )
    with pytest.raises(ValueError):
        client.lambda_.invoke("write_metric_data", event)

    (ended,) = invocations(logged())
    assert ended["level"] == "ERROR"
    assert (ended["messages"], ended["handled"], ended["failed"]) == (2, 0, 2)


def test_a_fan_out_reports_how_many_recipients_it_enqueued(client, world, capsys):
    import boto3

    sqs = boto3.client("sqs", region_name=config.region())
    url = sqs.get_queue_url(QueueName=config.queue_name(queues.NOTIFICATIONS))["QueueUrl"]
    sqs.purge_queue(QueueUrl=url)  # what tests before this one in the process left is theirs
    pages_path = f"/v1/pages/{world['page_id']}"
    for email in ("one@example.com", "two@example.com"):
        client.http.post(
            f"{pages_path}/subscribers",
            headers={**as_owner(world), "Content-Type": "application/json"},
            body=json.dumps(
                {"subscriber": {"email": email, "skip_confirmation_notification": True}}
            ),
        )
    client.http.post(
        f"{pages_path}/incidents",
        headers={**as_owner(world), "Content-Type": "application/json"},
        body=json.dumps({"incident": {"name": "Down", "body": "Looking"}}),
    )
    bodies = [
        m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    ]
    capsys.readouterr()
    event = client.events.generate_sqs_event(
        queue_name=config.queue_name(queues.NOTIFICATIONS), message_bodies=bodies
    )
    client.lambda_.invoke("fan_out_notifications", event)

    (line,) = metric_lines(capsys.readouterr().err)
    (directive,) = line["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "Statuspage"
    assert directive["Dimensions"] == [["Stage"]]
    assert directive["Metrics"] == [{"Name": metrics.FAN_OUT_RECIPIENTS, "Unit": "Count"}]
    assert line["Stage"] == "test"
    assert line[metrics.FAN_OUT_RECIPIENTS] == 2
    assert line["event"] == "incident_update"


def test_a_publish_reports_the_delay_since_the_write_it_shows(client, world, capsys):
    from chalicelib.public import publish

    answer = client.http.post(
        f"/v1/pages/{world['page_id']}/components",
        headers={**as_owner(world), "Content-Type": "application/json"},
        body=json.dumps({"component": {"name": "API"}}),
    )
    assert answer.status_code == 201
    capsys.readouterr()
    assert publish.publish_page(world["page_id"], force=True) == "published"

    (line,) = metric_lines(capsys.readouterr().err)
    assert line["_aws"]["CloudWatchMetrics"][0]["Metrics"] == [
        {"Name": metrics.PUBLISH_DELAY, "Unit": "Seconds"}
    ]
    assert 0 <= line[metrics.PUBLISH_DELAY] < 60
    assert line["page_id"] == world["page_id"]

    # Published again with no write since (the clock's republish): no delay to report.
    assert publish.publish_page(world["page_id"], force=True) == "published"
    assert metric_lines(capsys.readouterr().err) == []


def test_on_lambda_every_line_is_json_on_standard_output(root_logger, monkeypatch, capsys):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "statuspage-prod-every_minute")
    structured_logs.configure_on_lambda()
    logging.getLogger("chalicelib.jobs.schedule").warning("step %s was late", "reminders")

    (line,) = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert line["level"] == "WARNING"
    assert line["message"] == "step reminders was late"
    assert line["location"].startswith("test_on_lambda_every_line_is_json")


def test_the_local_stack_writes_json_lines_masked_or_text_when_asked(root_logger, monkeypatch):
    from chalicelib.local import logs as local_logs

    stream = io.StringIO()
    root_logger.handlers[:] = [logging.StreamHandler(stream)]
    local_logs.configure()
    token = "tok3n-0f-a-sign-in-link"
    try:
        raise RuntimeError(f"failed on /s/p/sign-in/{token}")
    except RuntimeError:
        logging.getLogger("chalicelib.public.sign_in").exception("opening /sign-in/%s", token)
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert line["message"] == "opening /sign-in/[masked]"
    assert line["exception_name"] == "RuntimeError"
    assert "/s/p/sign-in/[masked]" in line["exception"]
    assert token not in stream.getvalue()

    monkeypatch.setenv("LOG_FORMAT", "text")
    stream.seek(0), stream.truncate()
    local_logs.configure()
    logging.getLogger("chalicelib.local.server").warning("slow %s", "/sign-in/" + token)
    assert (
        stream.getvalue().split(" ", 2)[2]
        == "WARNING chalicelib.local.server slow /sign-in/[masked]\n"
    )


class _Writes:
    def __init__(self):
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_metric_line_is_written_whole_in_one_write(monkeypatch):
    # The local stack's processes share one standard error, which writes through: a line
    # written in two parts was cut in two by another process's line (seen in a run's log).
    written = _Writes()
    monkeypatch.setattr("sys.stderr", written)
    metrics.emit({metrics.FAN_OUT_RECIPIENTS: ("Count", 3)})
    (line,) = written.calls
    assert line.endswith("}\n") and line.count("\n") == 1
    assert json.loads(line)[metrics.FAN_OUT_RECIPIENTS] == 3
