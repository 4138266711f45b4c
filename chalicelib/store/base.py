"""What every table shares: its name from the stage, its region, on-demand billing."""

from functools import lru_cache

from pynamodb.connection import Connection
from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import config


def table_meta(short_name: str) -> type:
    """A PynamoDB `Meta` for the table `short_name` of the current stage.

    `host` stays unset so PynamoDB follows `AWS_ENDPOINT_URL` (the local emulator) when set.
    """

    class Meta:
        table_name = config.table_name(short_name)
        region = config.region()
        billing_mode = "PAY_PER_REQUEST"

    return Meta


def plain_dict(value) -> dict:
    """A raw map attribute as a plain dict, whether freshly set or read back from DynamoDB."""
    if value is None:
        return {}
    return value.as_dict() if hasattr(value, "as_dict") else dict(value)


@lru_cache(maxsize=1)
def _connection() -> Connection:
    # Made once: a botocore client costs tens of milliseconds to build.
    return Connection(region=config.region())


def transaction() -> TransactWrite:
    """A DynamoDB transaction: every write in it lands, or none does."""
    return TransactWrite(connection=_connection())


# Why DynamoDB cancelled a transaction, per item: another transaction held the item
# (`TransactionConflict`, always worth another try) or the item's condition failed.
LOST_RACE = "TransactionConflict"
CONDITION_FAILED = "ConditionalCheckFailed"


def cancellation_codes(error: TransactWriteError) -> list[str | None]:
    """The reason code of each item of a cancelled transaction, in the order staged (None for
    an item that was fine); empty when DynamoDB gave no reasons."""
    if error.cause_response_code == "TransactionConflictException":
        return [LOST_RACE]
    return [
        reason.code if reason is not None else None for reason in error.cancellation_reasons or []
    ]
