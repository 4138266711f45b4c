"""SendMessage at the message's cost (`moto_queue_costs`): the same generated sequences of
SQS calls on patched and unpatched moto give the same answers and leave the same counts; and
a send into a queue of 2,000 messages looks at none of them."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import boto3
from botocore.exceptions import ClientError
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws

from chalicelib.local import moto_costs
from tests import moto_differential
from tests.moto_differential import DIFFERENTIAL, same_on_both

both_mottos = moto_differential.both_mottos  # the fixture, for this module's tests

REGION = "us-east-1"
QUEUES = {
    "plain": {},
    "slow": {"DelaySeconds": "60"},
    "ordered.fifo": {"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    "keyed.fifo": {"FifoQueue": "true"},
}
COUNTED = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
]
bodies = st.sampled_from(["a", "b", "c", "a" * 300])
queue_names = st.sampled_from(sorted(QUEUES) + ["missing"])


@st.composite
def sends(draw) -> tuple:
    queue = draw(queue_names)
    request: dict = {"MessageBody": draw(bodies)}
    if queue.endswith(".fifo"):
        if draw(st.booleans()):
            request["MessageGroupId"] = draw(st.sampled_from(["g1", "g2"]))
        if draw(st.booleans()):
            request["MessageDeduplicationId"] = draw(st.sampled_from(["d1", "d2"]))
    elif draw(st.booleans()):
        request["DelaySeconds"] = draw(st.sampled_from([0, 60, 901]))
    return ("send", queue, request)


@st.composite
def batches(draw) -> tuple:
    queue = draw(st.sampled_from(["plain", "slow"]))
    entries = [{"Id": str(n), "MessageBody": draw(bodies)} for n in range(draw(st.integers(1, 4)))]
    return ("batch", queue, {"Entries": entries})


@st.composite
def receives(draw) -> tuple:
    request = {
        "MaxNumberOfMessages": draw(st.integers(1, 3)),
        "VisibilityTimeout": draw(st.sampled_from([0, 60])),
    }
    return ("receive", draw(queue_names), request)


@st.composite
def settles(draw) -> tuple:
    """Delete, or make visible again, a message received earlier (by its order)."""
    return (draw(st.sampled_from(["delete", "release"])), draw(st.integers(0, 5)), {})


calls = st.lists(
    st.one_of(sends(), sends(), batches(), receives(), settles()), min_size=3, max_size=25
)


def _run(sequence: list[tuple]) -> tuple[list, dict]:
    """The answers and the queues' counts after `sequence`, on queues of this run's own:
    under the suite's emulated AWS (one worker runs several files) a queue of the first run
    would still hold its messages in the second."""
    run = uuid.uuid4().hex[:8]
    with mock_aws():
        sqs = boto3.client("sqs", region_name=REGION)
        urls = {
            name: sqs.create_queue(QueueName=f"{run}-{name}", Attributes=a)["QueueUrl"]
            for name, a in QUEUES.items()
        }
        try:
            urls["missing"] = urls["plain"].replace("plain", "missing")
            received: list[tuple[str, str]] = []
            answers = [_answer(sqs, urls, received, call) for call in sequence]
            counts = {
                name: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=COUNTED)["Attributes"]
                for name, url in urls.items()
                if name != "missing"
            }
            return answers, counts
        finally:
            for name in QUEUES:
                sqs.delete_queue(QueueUrl=urls[name])


def _answer(sqs, urls: dict, received: list, call: tuple):
    kind, target, request = call
    try:
        if kind == "send":
            answer = sqs.send_message(QueueUrl=urls[target], **request)
            return sorted(k for k in answer if k != "ResponseMetadata")
        if kind == "batch":
            answer = sqs.send_message_batch(QueueUrl=urls[target], **request)
            return sorted(entry["Id"] for entry in answer.get("Successful", []))
        if kind == "receive":
            found = sqs.receive_message(QueueUrl=urls[target], **request).get("Messages", [])
            received += [(urls[target], message["ReceiptHandle"]) for message in found]
            return sorted(message["Body"] for message in found)
        if target >= len(received):
            return None
        url, handle = received[target]
        if kind == "delete":
            sqs.delete_message(QueueUrl=url, ReceiptHandle=handle)
        else:
            sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=0)
        return "done"
    except ClientError as error:
        return error.response["Error"]["Code"]


@settings(DIFFERENTIAL, max_examples=20)
@given(sequence=calls)
def test_patched_moto_answers_and_counts_exactly_what_moto_does(both_mottos, sequence):
    same_on_both(_run, sequence)


@contextmanager
def _long_queue(monkeypatch) -> Iterator[tuple]:
    """An SQS client, a queue of 2,000 messages and the messages moto looks at from then on
    (those whose visibility it asks: each count, each pass over the queue)."""
    from moto.sqs.models import Message

    looked_at: list = []
    visible = Message.visible

    def counted(message):
        looked_at.append(message)
        return visible.fget(message)

    assert moto_costs.install()
    with mock_aws():
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName=f"long-{uuid.uuid4().hex[:8]}")["QueueUrl"]
        for _ in range(200):
            entries = [{"Id": str(n), "MessageBody": "{}"} for n in range(10)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        monkeypatch.setattr(Message, "visible", property(counted))
        try:
            yield sqs, url, looked_at
        finally:
            sqs.delete_queue(QueueUrl=url)


def test_a_send_into_a_long_queue_reads_none_of_its_messages(both_mottos, monkeypatch):
    """Counted in messages looked at, not in seconds: unpatched, each send looked at every
    message of the queue three times."""
    with _long_queue(monkeypatch) as (sqs, url, looked_at):
        sqs.send_message(QueueUrl=url, MessageBody="{}")
        assert looked_at == []
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=COUNTED)
    assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "2001"
    assert len(looked_at) >= 2_001  # what a read of the counts looks at, as moto does


def test_a_receive_from_a_long_queue_looks_at_each_message_once(both_mottos, monkeypatch):
    """Unpatched, each message received had moto count the whole queue nine times (its
    retention read through every attribute): a publish queue fallen behind a burst of writes
    cost the emulator more with every message waiting."""
    with _long_queue(monkeypatch) as (sqs, url, looked_at):
        received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert len(received) == 10
    # moto's own pass: which messages are visible, and each of the 10 again as it takes it
    assert len(looked_at) <= 2_000 + 10
