"""Delivery claims made and settled in as few writes as DynamoDB allows, still exactly once:
the recipients of every batch a delivery receives are claimed 100 to a transaction, and the
recipients reached while a settling write is under way are settled together by the next."""

import threading

from chalicelib import ids
from chalicelib.notify import claims
from chalicelib.store.deliveries import DeliveryClaim
from tests.dynamodb_calls import recording

BATCH = 50


def _batches(count: int) -> list[tuple[str, list[str]]]:
    """Batches of events of their own (the tables outlive a test), three to an event."""
    events = [ids.new_id() for _ in range(3)]
    return [
        (events[number % 3], [f"s{number}-{member}" for member in range(BATCH)])
        for number in range(count)
    ]


def test_ten_batches_of_fifty_are_claimed_in_five_transactions(aws):
    with recording() as calls:
        claimed = claims.claim_all(_batches(10))
    assert calls.summary() == {"TransactWriteItems": 5}
    assert [len(batch.ours) for batch in claimed] == [BATCH] * 10
    assert len({batch.batch for batch in claimed}) == 10


def test_batches_claimed_again_send_to_nobody(aws):
    batches = _batches(4)
    claims.claim_all(batches)
    again = claims.claim_all(batches)
    # Held under a live lease by the first delivery: looked at again later, not sent now.
    assert [batch.ours for batch in again] == [[]] * 4
    assert [len(batch.elsewhere) for batch in again] == [BATCH] * 4


def test_one_batch_twice_in_one_receive_is_claimed_once(aws):
    batch = _batches(1)[0]
    first, second = claims.claim_all([batch, batch])
    assert len(first.ours) == BATCH
    assert second.ours == []
    assert len(second.elsewhere) == BATCH


def _outcomes(keys: list[str]) -> set[str]:
    return {DeliveryClaim.get(key).outcome for key in keys}


def test_recipients_reached_together_are_settled_25_to_a_write(aws):
    (event_id, subscriber_ids), *_ = _batches(1)
    many = [(event_id, [f"{n}" for n in range(250)])]
    claims.claim_all(many)
    keys = [f"{event_id}#{n}" for n in range(250)]
    with recording() as calls:
        claims.Reached().settle(keys)
    assert calls.summary() == {"BatchWriteItem": 10}
    assert _outcomes(keys) == {claims.SETTLED}


def test_each_sender_finds_its_recipients_settled_when_it_goes_on(aws):
    batches = _batches(1)
    claims.claim_all(batches)
    event_id, subscriber_ids = batches[0]
    keys = [f"{event_id}#{subscriber_id}" for subscriber_id in subscriber_ids]
    reached = claims.Reached()
    unsettled_after_return = []

    def send(key: str) -> None:
        reached.settle([key])
        if DeliveryClaim.get(key).outcome != claims.SETTLED:
            unsettled_after_return.append(key)

    with recording() as calls:
        threads = [threading.Thread(target=send, args=(key,)) for key in keys]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert unsettled_after_return == []
    assert _outcomes(keys) == {claims.SETTLED}
    assert calls.count("BatchWriteItem") <= len(keys)
