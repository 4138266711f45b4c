"""Audience-specific pages: who is viewing, and what their audience sees of the snapshot.

A reader signs in by a link emailed to a page access user's address (`sign_in.py`); the link,
single-use, sets a cookie naming the user and the user's session generation, signed and
expiring. A view reads the page's one snapshot (shared by every reader) and, in the same
BatchGetItem, the viewer's user item, which carries what the user sees, its own grants and its
groups' (kept there by every access change), and its session generation: a cookie of an older
one (the reader signed out, or what the user is or sees changed since) names nobody. The
snapshot is filtered to that: the components (a group shows when a member does), the
incidents that touch them or no component at all, the status they add up to, their uptime
bars and the metrics granted. The filtered content is kept per snapshot version and per
*audience* (what is seen, not who sees it), so readers who see alike share it, its ETag and
its rendered body; nobody's content is rebuilt per viewer.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.domain import page_access, signing
from chalicelib.views import content
from chalicelib.views.snapshot import Snapshot
from chalicelib.web import tokens

if TYPE_CHECKING:
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


def link_token(page_id: str, user_id: str) -> str:
    """A sign-in link's token, valid `LINK_LIFETIME`; its expiry in milliseconds, so that
    two links asked for are two links (a link of the expiry in seconds is expired)."""
    expires = int((clock.now() + LINK_LIFETIME).timestamp() * 1000)
    return signing.token(page_id, f"{user_id}_{expires}", SIGN_IN)


def link_of(page_id: str, value: str | None) -> tuple[str, int] | None:
    """The user a sign-in link names and when it expires (Unix milliseconds), if it is
    genuine and unexpired. Every link lives `LINK_LIFETIME`, so the expiry orders them as they
    were made: opening one spends it and the older ones (`page_access.open_sign_in_link`)."""
    return tokens.named(page_id, value, SIGN_IN, 1000)


def session_token(page_id: str, user_id: str, generation: int) -> str:
    """The cookie's value: the user, in its session `generation`, for `SESSION_LIFETIME`."""
    return tokens.token(page_id, f"{user_id}.{generation}", VIEWER, SESSION_LIFETIME)


def cookie_name(page_id: str) -> str:
    return f"viewer_{page_id}"


def session_cookie(headers: dict[str, str], page_id: str) -> str | None:
    """The page's cookie as sent, genuine or not."""
    return _cookie(headers, cookie_name(page_id))


def session_of(headers: dict[str, str], page_id: str) -> tuple[str, int] | None:
    """The user the page's cookie names and the session generation it was made in, if it is
    genuine and unexpired (a cookie made before generations were: 0)."""
    named = tokens.user_id_of(page_id, session_cookie(headers, page_id), VIEWER)
    user_id, _, generation = (named or "").partition(".")
    if not user_id:
        return None
    return user_id, (int(generation) if generation.isdigit() else 0)


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
        session = session_of(headers, page_id)
        return (page_access.USER, (page_id, session[0])) if session else None

    return key_for


def viewer_from(user: PageAccessUser | None, headers: dict[str, str]) -> Viewer | None:
    """The signed-in reader, from its user item as read with the snapshot (None: no cookie,
    the user was deleted since it signed in, or its session generation moved on: it signed
    out, or what it is or sees changed)."""
    if not isinstance(user, page_access.USER):
        return None
    if session_of(headers, user.page_id) != (user.id, user.session_generation or 0):
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
        # The page as a signed-in reader sees it: with a sign-out button.
        "page": {**data["page"], "signed_in": True},
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
