"""Whether this region can serve: the cheap check Route 53 makes of each region
(`GET /v1/health`, docs/operations.md, Regional outage).

A region whose functions answer but whose table does not is the outage of 2025-10-20
(DynamoDB lost, the rest up): the check reads the table, so Route 53 moves the API away from
exactly that region. One GetItem by key of the settings table, never a scan nor
DescribeTable (a control-plane call, throttled far lower than reads)."""

from pynamodb.exceptions import DoesNotExist, PynamoDBException

from chalicelib.store.subscribers import Setting

# A key no item has: the read proves the table answers without depending on its contents
# (a fresh region's replica may be empty for a moment).
_PROBE = "health-probe"


def table_answers() -> bool:
    try:
        Setting.get(_PROBE)
    except DoesNotExist:
        return True
    except PynamoDBException:
        return False
    return True
