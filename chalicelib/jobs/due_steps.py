"""Taking the steps the due index says are due, one incident at a time: one incident's
trouble never stops the others'."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib.domain import errors

if TYPE_CHECKING:
    from chalicelib.store.incidents import IncidentRecord

logger = logging.getLogger(__name__)


def take(records: list[IncidentRecord], step: Callable[[IncidentRecord], None], what: str) -> None:
    for record in records:
        try:
            step(record)
        except (errors.Conflict, errors.NotFound):
            # Changed (or deleted) by someone else, or another tick, since it was read: the
            # next tick sees the new state.
            logger.info(
                "%s of incident %s: changed under this tick; left for the next", what, record.id
            )
        except Exception:
            # Anything else is a fault: say which incident, and go on with the others.
            logger.exception("%s of incident %s failed", what, record.id)
