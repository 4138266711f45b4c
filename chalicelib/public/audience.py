"""Audience-specific pages: who is viewing, and what their audience sees of the snapshot.

A reader signs in by a link emailed to a page access user's address (`sign_in.py`); the
link sets a cookie naming the user, signed and expiring. A view reads the page's one
snapshot (shared by every reader) and, in the same BatchGetItem, the viewer's user item,
which carries what the user sees, its own grants and its groups' (kept there by every access change). The snapshot is
filtered to that: the components (a group shows when a member does), the incidents that
touch them or no component at all, the status they add up to, their uptime bars and the
metrics granted. The filtered content is kept per snapshot version and per *audience*
(what is seen, not who sees it), so readers who see alike share it, its ETag and its
rendered body; nobody's content is rebuilt per viewer.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta

from chalicelib import clock
from chalicelib.domain import signing
from chalicelib.public import content
from chalicelib.public.snapshot import Snapshot
from chalicelib.store.page_access import PageAccessUser

SIGN_IN = "sign-in"  # the emailed link's token
VIEWER = "viewer"  # the cookie's
LINK_LIFETIME = timedelta(minutes=30)
SESSION_LIFETIME = timedelta(days=7)
_FILTERED_CACHE_SIZE = 64


@dataclass(frozen=True)
class Viewer:
    user_id: str
    components: frozenset[str]
    metrics: frozenset[str]

    @property
    def audience(self) -> str:
        """What this viewer sees, as a name: viewers who see alike share it."""
        seen = ",".join(sorted(self.components)) + "|" + ",".join(sorted(self.metrics))
        return hashlib.sha256(seen.encode()).hexdigest()[:24]


def token(page_id: str, user_id: str, purpose: str, lifetime: timedelta) -> str:
    """A signed token naming the user until `lifetime` from now (ids hold no `_`)."""
    expires = int((clock.now() + lifetime).timestamp())
    return signing.token(page_id, f"{user_id}_{expires}", purpose)


def user_id_of(page_id: str, value: str | None, purpose: str) -> str | None:
    """The user a token names, if it is genuine and has not expired."""
    subject = signing.verified_subject(page_id, value or "", purpose)
    if subject is None:
        return None
    user_id, _, expires = subject.partition("_")
    if not expires.isdigit() or int(expires) < clock.now().timestamp():
        return None
    return user_id


def cookie_name(page_id: str) -> str:
    return f"viewer_{page_id}"


def _cookie(headers: dict[str, str], name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def viewer_key(headers: dict[str, str]):
    """For `snapshot.load`'s `alongside`: the key of the user a page's signed cookie names,
    so that the view reads it with the snapshot, in one round trip (no read for a request
    without a genuine, unexpired cookie for that page)."""

    def key_for(page_id: str) -> tuple | None:
        user_id = user_id_of(page_id, _cookie(headers, cookie_name(page_id)), VIEWER)
        return (PageAccessUser, (page_id, user_id)) if user_id else None

    return key_for


def viewer_from(user: PageAccessUser | None) -> Viewer | None:
    """The signed-in reader, from its user item as read with the snapshot (None: no cookie,
    or the user was deleted since it signed in)."""
    if not isinstance(user, PageAccessUser):
        return None
    return Viewer(
        user.id,
        frozenset(user.visible_component_ids or ()),
        frozenset(user.visible_metric_ids or ()),
    )


def shown_to(snapshot: Snapshot, viewer: Viewer) -> Snapshot:
    """The snapshot as the viewer's audience sees it."""
    key = (snapshot.etag, viewer.audience)
    data = _filtered.get(key)
    if data is None:
        data = filtered(snapshot.content, viewer)
        _filtered[key] = data
        if len(_filtered) > _FILTERED_CACHE_SIZE:
            _filtered.popitem(last=False)
    return Snapshot(snapshot.page_id, f"{snapshot.etag}.{viewer.audience}", data)


def visible_ids(data: dict, viewer: Viewer) -> set[str]:
    """The components the viewer sees: those granted, the members of a granted group, and a
    group any of whose members is seen."""
    seen = set(viewer.components)
    groups = [component for component in data["components"] if component.get("group")]
    for group in groups:
        if group["id"] in seen:
            seen.update(group.get("components") or [])
    for group in groups:
        if seen.intersection(group.get("components") or []):
            seen.add(group["id"])
    return seen


def keeps(entry_component_ids: list[str], seen: set[str]) -> bool:
    """An incident is shown when it touches a component seen, or no component at all."""
    return not entry_component_ids or bool(seen.intersection(entry_component_ids))


def filtered(data: dict, viewer: Viewer) -> dict:
    seen = visible_ids(data, viewer)
    shown_components = [
        {**component, "components": [m for m in component["components"] if m in seen]}
        if component.get("group")
        else component
        for component in data["components"]
        if component["id"] in seen
    ]
    entries = [
        entry_shown(entry, seen)
        for entry in data["incidents"]
        if keeps(entry.get("component_ids") or [], seen)
    ]
    statuses = [c["status"] for c in shown_components if not c.get("group")]
    return {
        **data,
        "status": content.status_of(statuses, entries),
        "components": shown_components,
        "uptime": {key: value for key, value in data["uptime"].items() if key in seen},
        "incidents": entries,
        "metrics": [metric for metric in data["metrics"] if metric["id"] in viewer.metrics],
    }


def entry_shown(entry: dict, seen: set[str]) -> dict:
    """An incident without the components the viewer does not see, in it or its updates."""
    incident = entry["incident"]
    components = [c for c in incident.get("components") or [] if c["id"] in seen]
    updates = [
        {**update, "affected_components": [a for a in affected if a.get("code") in seen]}
        if (affected := update.get("affected_components"))
        else update
        for update in incident.get("incident_updates") or []
    ]
    shown = {**incident, "components": components, "incident_updates": updates}
    return {
        **entry,
        "component_ids": [i for i in entry.get("component_ids") or [] if i in seen],
        "incident": shown,
    }


_filtered: OrderedDict[tuple[str, str], dict] = OrderedDict()
