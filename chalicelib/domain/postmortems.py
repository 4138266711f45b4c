"""Postmortems (SPEC 3.3): none -> draft -> published, revert, delete.

The postmortem is a map on its incident's item, so the incident shows it with no extra read.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib import clock
from chalicelib.domain import errors, incidents, pages, unit_of_work
from chalicelib.domain.markdown_text import strip_harmful
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.base import plain_dict
from chalicelib.store.incidents import IncidentRecord
from chalicelib.store.models import Page

POSTMORTEM_EVENT = "postmortem_published"


@dataclass(frozen=True)
class PublishOptions:
    """What a client asks of a publication: emails to subscribers, a social post (its text,
    or None for the default one)."""

    notify_subscribers: bool
    notify_social: bool
    custom_post: str | None


def postmortem_of(record: IncidentRecord) -> dict | None:
    postmortem = plain_dict(record.postmortem)
    return postmortem or None


def _existing(record: IncidentRecord) -> dict:
    postmortem = postmortem_of(record)
    if postmortem is None:
        raise errors.NotFound()
    return postmortem


def _change(
    page_id: str, incident_id: str, edit: Callable[[IncidentRecord, Work], dict | None]
) -> dict | None:
    """Read the incident item, let `edit` decide its postmortem (and stage any event), and
    write it on the version read (a concurrent write makes it again)."""

    def change(work: Work) -> dict | None:
        record = incidents.get_record(page_id, incident_id, consistent=True)
        with work.together():  # the event (if any) lands with the postmortem
            postmortem = edit(record, work)
            record.postmortem = postmortem
            record.updated_at = work.moment
            work.update(
                record,
                [
                    IncidentRecord.postmortem.set(postmortem)
                    if postmortem
                    else IncidentRecord.postmortem.remove(),
                    IncidentRecord.updated_at.set(work.moment),
                ],
            )
        return postmortem

    return unit_of_work.run(page_id, change)


def get(page_id: str, incident_id: str) -> dict:
    return _existing(incidents.get_record(page_id, incident_id))


def blank(moment: str) -> dict:
    """A postmortem made at `moment` with nothing written yet: every field a read shows, so
    one made elsewhere (the importer) reads and edits as one made here."""
    return {
        "created_at": moment,
        "preview_key": secrets.token_hex(16),
        "body": None,
        "body_updated_at": None,
        "body_draft": None,
        "body_draft_updated_at": None,
        "published_at": None,
        "notify_subscribers": False,
        "notify_social": False,
        "custom_post": None,
        "updated_at": moment,
        "notified_subscribers": False,
        "notified_social": False,
    }


def save_draft(page_id: str, incident_id: str, body_draft: str) -> dict:
    """Create the postmortem or replace its draft; never notifies."""

    def edit(record: IncidentRecord, work: Work) -> dict:
        return _with_draft(record, clock.iso(work.moment), body_draft)

    return _change(page_id, incident_id, edit)


def _with_draft(record: IncidentRecord, moment: str, body_draft: str) -> dict:
    """The record's postmortem (or a new one) with `body_draft` as its draft."""
    postmortem = postmortem_of(record) or blank(moment)
    postmortem.update(
        body_draft=strip_harmful(body_draft), body_draft_updated_at=moment, updated_at=moment
    )
    return postmortem


def publish(
    page_id: str,
    incident_id: str,
    *,
    notify_subscribers: bool,
    notify_social: bool,
    custom_post: str | None,
    emails_allowed: bool,
    social_account: bool,
    body_draft: str | None = None,
) -> dict:
    """Publish the draft; `body_draft`: saved as the draft first, in the same change, so
    what is published is the text the writer holds (never an older saved draft)."""
    if notify_subscribers and not emails_allowed:
        raise errors.Refused()
    if notify_social and not social_account:
        raise errors.Refused()

    def edit(record: IncidentRecord, work: Work) -> dict:
        moment = clock.iso(work.moment)
        if body_draft is None:
            postmortem = _existing(record)
        else:
            postmortem = _with_draft(record, moment, body_draft)
        first_publication = not postmortem.get("ever_published")
        postmortem.update(
            body=postmortem.get("body_draft"),
            body_updated_at=moment,
            published_at=moment,
            notify_subscribers=notify_subscribers,
            notify_social=notify_social,
            custom_post=custom_post,
            updated_at=moment,
            ever_published=True,
        )
        # Subscribers and followers hear of a postmortem on its first publication only.
        if first_publication and notify_subscribers:
            postmortem["notified_subscribers"] = True
            work.event(POSTMORTEM_EVENT, {"incident_id": incident_id})
        if first_publication and notify_social:
            postmortem["notified_social"] = True
        return postmortem

    return _change(page_id, incident_id, edit)


def publish_on_page(
    page: Page, incident_id: str, options: PublishOptions, body_draft: str | None = None
) -> dict:
    """Publish with the options a client chose, as far as the page allows them (emails to
    subscribers only where the page has email subscribers, a social post only with an
    account)."""
    profile = pages.profile_of(page)
    return publish(
        page.id,
        incident_id,
        notify_subscribers=options.notify_subscribers,
        notify_social=options.notify_social,
        custom_post=options.custom_post,
        emails_allowed=bool(profile.get("allow_email_subscribers")),
        social_account=bool(profile.get("social_username")),
        body_draft=body_draft,
    )


def revert(page_id: str, incident_id: str) -> dict:
    def edit(record: IncidentRecord, work: Work) -> dict:
        postmortem = _existing(record)
        if not postmortem.get("published_at"):
            raise errors.NotFound()
        moment = clock.iso(work.moment)
        postmortem.update(
            body_draft=postmortem.get("body"),
            body_draft_updated_at=moment,
            body=None,
            published_at=None,
            updated_at=moment,
        )
        return postmortem

    return _change(page_id, incident_id, edit)


def delete(page_id: str, incident_id: str) -> None:
    def edit(record: IncidentRecord, work: Work) -> None:
        _existing(record)
        return None

    _change(page_id, incident_id, edit)
