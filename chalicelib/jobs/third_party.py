"""Third-party components: each tick polls every source once, and applies what changed.

The set of sources is one Query (`third_party.sources`), never a read of the components; the
sources are fetched at once, a few at a time, under the outbound rules of webhooks (no private
addresses outside the local stage, 10 s timeout, no redirects).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from chalicelib.domain import third_party
from chalicelib.notify import webhook

if TYPE_CHECKING:
    from chalicelib.store.third_party import ThirdPartySource

logger = logging.getLogger(__name__)
FETCHES_AT_ONCE = 16


def _fetched(source: ThirdPartySource) -> bytes | None:
    """Its summary, or None. One source that raises (a URL stored before the rules refused
    it, say) is logged and skipped: it never keeps the other sources from being polled."""
    try:
        return webhook.fetch(source.url, third_party.MAX_SUMMARY_BYTES)
    except Exception:
        logger.exception(
            "third-party source on %s could not be fetched", webhook.lane_of(source.url)
        )
        return None


def run() -> int:
    """One tick: how many components changed status."""
    sources = third_party.sources()
    if not sources:
        return 0
    with ThreadPoolExecutor(min(FETCHES_AT_ONCE, len(sources))) as pool:
        bodies = list(pool.map(_fetched, sources))
    changed = 0
    for source, body in zip(sources, bodies, strict=True):
        statuses = third_party.statuses_of(body)
        if statuses is None:
            # Only the host: a source URL may carry a token in its path or query.
            logger.warning(
                "third-party source on %s: unreachable or not a summary.json; statuses kept",
                webhook.lane_of(source.url),
            )
            continue
        try:
            changed += third_party.apply(source, statuses)
        except Exception:
            logger.exception("third-party source on %s failed", webhook.lane_of(source.url))
    return changed
