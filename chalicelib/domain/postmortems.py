"""Postmortems (SPEC 3.3): none -> draft -> published, revert, delete.

The postmortem is a map on its incident's item, so the incident shows it with no extra read.
"""

import secrets

from chalicelib import clock
from chalicelib.domain import incidents
from chalicelib.domain.markdown_text import strip_harmful
from chalicelib.domain.public_page import refresh_public_page
from chalicelib.http import errors
from chalicelib.notify import outbox
from chalicelib.schemas.incidents import PostmortemPublishFields
from chalicelib.store.base import plain_dict, transaction
from chalicelib.store.incidents import IncidentRecord

POSTMORTEM_EVENT = "postmortem_published"


def postmortem_of(record: IncidentRecord) -> dict | None:
    postmortem = plain_dict(record.postmortem)
    return postmortem or None


def _existing(page_id: str, incident_id: str) -> tuple[IncidentRecord, dict]:
    record = incidents.get_incident(page_id, incident_id).record
    postmortem = postmortem_of(record)
    if postmortem is None:
        raise errors.not_found()
    return record, postmortem


def _save(record: IncidentRecord, postmortem: dict | None) -> None:
    record.postmortem = postmortem
    record.updated_at = clock.now()
    record.save()
    refresh_public_page(record.page_id)


def get(page_id: str, incident_id: str) -> dict:
    return _existing(page_id, incident_id)[1]


def save_draft(page_id: str, incident_id: str, body_draft: str) -> dict:
    """Create the postmortem or replace its draft; never notifies."""
    record = incidents.get_incident(page_id, incident_id).record
    moment = clock.iso(clock.now())
    postmortem = postmortem_of(record) or {
        "created_at": moment,
        "preview_key": secrets.token_hex(16),
        "body": None,
        "body_updated_at": None,
        "published_at": None,
        "notify_subscribers": False,
        "notify_social": False,
        "custom_post": None,
        "notified_subscribers": False,
        "notified_social": False,
    }
    postmortem.update(
        body_draft=strip_harmful(body_draft), body_draft_updated_at=moment, updated_at=moment
    )
    _save(record, postmortem)
    return postmortem


def publish(
    page_id: str,
    incident_id: str,
    options: PostmortemPublishFields,
    *,
    emails_allowed: bool,
    social_account: bool,
) -> dict:
    record, postmortem = _existing(page_id, incident_id)
    if options.notify_subscribers and not emails_allowed:
        raise errors.bad_request()
    if options.notify_social and not social_account:
        raise errors.bad_request()
    moment = clock.iso(clock.now())
    first_publication = not postmortem.get("ever_published")
    postmortem.update(
        body=postmortem.get("body_draft"),
        body_updated_at=moment,
        published_at=moment,
        notify_subscribers=options.notify_subscribers,
        notify_social=options.notify_social,
        custom_post=options.custom_post,
        updated_at=moment,
        ever_published=True,
    )
    # Subscribers and followers hear of a postmortem on its first publication only.
    notify_subscribers = first_publication and options.notify_subscribers
    if notify_subscribers:
        postmortem["notified_subscribers"] = True
    if first_publication and options.notify_social:
        postmortem["notified_social"] = True
    record.postmortem = postmortem
    record.updated_at = clock.now()
    events = []
    with transaction() as writes:
        writes.save(record)
        if notify_subscribers:
            events.append(
                outbox.stage_event(writes, page_id, POSTMORTEM_EVENT, {"incident_id": incident_id})
            )
    outbox.publish(events)
    refresh_public_page(page_id)
    return postmortem


def revert(page_id: str, incident_id: str) -> dict:
    record, postmortem = _existing(page_id, incident_id)
    if not postmortem.get("published_at"):
        raise errors.not_found()
    moment = clock.iso(clock.now())
    postmortem.update(
        body_draft=postmortem.get("body"),
        body_draft_updated_at=moment,
        body=None,
        published_at=None,
        updated_at=moment,
    )
    _save(record, postmortem)
    return postmortem


def delete(page_id: str, incident_id: str) -> None:
    record, _ = _existing(page_id, incident_id)
    _save(record, None)
