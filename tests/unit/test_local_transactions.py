"""The local emulator's transactions: all or nothing, whatever the size of the table."""

import pytest
from moto import mock_aws
from pynamodb.exceptions import TransactWriteError

from chalicelib import clock
from chalicelib.local import transactions
from chalicelib.store.base import transaction
from chalicelib.store.deliveries import DeliveryClaim


@pytest.fixture
def claims():
    transactions.install()
    with mock_aws():
        DeliveryClaim.create_table(wait=True, billing_mode="PAY_PER_REQUEST")
        yield


def test_a_cancelled_transaction_leaves_every_item_as_it_was(claims):
    DeliveryClaim("kept", expires_at=clock.now()).save()
    DeliveryClaim("changed", expires_at=clock.now()).save()
    with pytest.raises(TransactWriteError), transaction() as writes:
        writes.save(DeliveryClaim("new", expires_at=clock.now()))
        writes.update(DeliveryClaim("changed"), [DeliveryClaim.outcome.set("sent")])
        writes.save(
            DeliveryClaim("kept", expires_at=clock.now()),
            condition=DeliveryClaim.id.does_not_exist(),
        )
    assert DeliveryClaim.count("new") == 0
    assert DeliveryClaim.get("changed").outcome == "sending"
    with transaction() as writes:
        writes.save(DeliveryClaim("new", expires_at=clock.now()))
        writes.update(DeliveryClaim("changed"), [DeliveryClaim.outcome.set("sent")])
    assert DeliveryClaim.get("changed").outcome == "sent"
    assert DeliveryClaim.count("new") == 1
