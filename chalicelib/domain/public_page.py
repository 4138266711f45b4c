"""Keeping the public page's precomputed snapshot in step with every write that it shows."""

import logging

logger = logging.getLogger(__name__)


def refresh_public_page(page_id: str) -> None:
    """Rebuild the page's snapshot after a committed change."""
    # Imported here: the snapshot reads pages, components and incidents, which call this.
    from chalicelib.domain import page_snapshot

    try:
        page_snapshot.refresh(page_id)
    except Exception:
        # The change is committed and the client must hear so; the next write refreshes again.
        logger.exception("public page of %s not refreshed", page_id)
