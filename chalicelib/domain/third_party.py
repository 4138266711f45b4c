"""Third-party components: a component that follows a component of another Statuspage-compatible
status page, whose `summary.json` the scheduled poll reads (`chalicelib.jobs.third_party`).

What a user of such a component expects: it shows the source's status, and changes when the
source's does, as an ordinary status change (its uptime day, a `component_update` to its
subscribers, the public page). A status set by hand, or by an incident, holds until the
source's status next changes; then the component follows the source again. An update with an
empty `status` restores the source's status at once (SPEC 3.1). A source that cannot be read,
or answers with something other than a summary, changes nothing: its components keep the
status they have.
"""

import hashlib
import json
import logging

from chalicelib.domain import errors, unit_of_work
from chalicelib.domain.components import STATUSES, Edit, edit_components
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.third_party import SOURCES, ThirdPartyFollower, ThirdPartySource

logger = logging.getLogger(__name__)
# A summary of a page with a thousand components is ~0.5 MB.
MAX_SUMMARY_BYTES = 2 * 1024 * 1024


def components_of(body: bytes | None) -> list[dict] | None:
    """The components a `summary.json` body lists (each an object with a string id), in its
    order; None when the body is not a summary (or there was none)."""
    if body is None:
        return None
    try:
        summary = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    listed = summary.get("components") if isinstance(summary, dict) else None
    if not isinstance(listed, list):
        return None
    return [
        component
        for component in listed
        if isinstance(component, dict) and isinstance(component.get("id"), str)
    ]


def statuses_of(body: bytes | None) -> dict[str, str] | None:
    """The component statuses a `summary.json` body gives, by component id; None when the body
    is not a summary (or there was none)."""
    listed = components_of(body)
    if listed is None:
        return None
    return {
        component["id"]: component["status"]
        for component in listed
        if component.get("status") in STATUSES
    }


def _digest(statuses: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(sorted(statuses.items())).encode()).hexdigest()


def sources() -> list[ThirdPartySource]:
    """Every source some component follows, each once (one Query, never a read of the
    components): what the scheduled poll fetches."""
    return list(ThirdPartySource.query(SOURCES))


def apply(source: ThirdPartySource, statuses: dict[str, str]) -> int:
    """Bring the followers of `source` in line with its `statuses` as just polled; how many
    changed. Followers are read only when the statuses changed since the last poll or a
    component began to follow the source since its last reconciliation."""
    digest = _digest(statuses)
    newly_linked = source.linked_at is not None and (
        source.reconciled_at is None or source.linked_at > source.reconciled_at
    )
    if digest == source.digest and not newly_linked:
        return 0
    followers = list(ThirdPartyFollower.query(source.url))
    if not followers:
        _forget(source)
        return 0
    changed, complete = 0, True
    for follower in followers:
        status = statuses.get(follower.source_component_id)
        if status is None:
            logger.warning(
                "component %s follows %s, which the source no longer lists; status kept",
                follower.component_id,
                follower.source_component_id,
            )
            continue
        try:
            changed += _follow(follower, status)
        except errors.Conflict:
            complete = False  # lost to other writers every time: the next tick tries again
            logger.info("component %s changed under the poll; left for the next", follower.member)
        except Exception:
            complete = False
            logger.exception("applying a source's status to %s failed", follower.member)
    if complete:
        _record(source, digest)
    return changed


def _follow(follower: ThirdPartyFollower, status: str) -> int:
    """Apply the source's `status` to one follower, if it is new to it: 1 if it changed."""

    def change(edit: Edit) -> int | None:
        try:
            component = edit.find(follower.component_id, group=False)
        except errors.NotFound:
            return None
        if (component.third_party_url, component.third_party_component_id) != (
            follower.url,
            follower.source_component_id,
        ):
            return None  # follows something else now
        if component.official_status == status:
            return 0  # not a change at the source: a status set by hand holds
        component.official_status = status
        # The source's word, not a person's: it holds off no integration or check.
        edit.set_status(component, status, by=f"third_party:{follower.url}")
        edit.touch(component)
        return 1

    changed = edit_components(follower.page_id, change)
    if changed is None:
        unit_of_work.run(None, lambda work: work.delete(follower))
        return 0
    return changed


def _record(source: ThirdPartySource, digest: str) -> None:
    """The poll applied: remember what the source said, and that its followers as of
    `linked_at` have it (a later link makes the next poll read the followers again)."""

    def change(work: Work) -> None:
        actions = [
            ThirdPartySource.digest.set(digest),
            ThirdPartySource.checked_at.set(work.moment),
        ]
        if source.linked_at is not None:
            actions.append(ThirdPartySource.reconciled_at.set(source.linked_at))
        # Only while the source is still known: an overlapping tick may have forgotten it.
        work.update(source, actions, ThirdPartySource.url.exists(), versioned=False, intent=True)

    try:
        unit_of_work.run(None, change)
    except errors.Conflict:
        pass


def _forget(source: ThirdPartySource) -> None:
    """A source nobody follows any more stops being polled, unless a component began to
    follow it since it was read (its `linked_at` moved: the delete's condition fails)."""

    def change(work: Work) -> None:
        fresh = ThirdPartySource.get(SOURCES, source.url, consistent_read=True)
        if fresh.linked_at != source.linked_at:
            return
        if next(iter(ThirdPartyFollower.query(source.url, limit=1)), None) is not None:
            return
        work.delete(fresh, condition=ThirdPartySource.linked_at == fresh.linked_at)

    try:
        unit_of_work.run(None, change)
    except (errors.Conflict, ThirdPartySource.DoesNotExist):
        pass  # linked again meanwhile, or already gone
