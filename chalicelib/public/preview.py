"""The public status page as it would read with a page's settings changed but not saved (the
console's preview): the page's current snapshot with its page part rebuilt from the changed
page, rendered by the public page's own template. Metric charts, read when a page is viewed,
are left out of a preview."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.domain.pages import profile_of
from chalicelib.public import html
from chalicelib.views import content, snapshot

if TYPE_CHECKING:
    from chalicelib.store.models import Page


def status_page_of(page: Page) -> str:
    data = snapshot.load(page.id).content
    # The decoded snapshot is shared by the process's views: a copy is changed, never it.
    changed = content.page_part(page, profile_of(page), clock.iso(page.updated_at))
    return html.status_page({**data, "page": changed}, f"/s/{page.id}", clock.now())
