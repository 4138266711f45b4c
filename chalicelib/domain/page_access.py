"""Page access users and groups (SPEC 2.5, 2.6, 4.4, 4.5): who may view an audience-specific
page, and which of its components and metrics each of them sees.

A user or group (a *holder*) keeps the ids of the components and metrics it is granted; a
user sees its own grants and its groups'. Every change is one `AccessEdit`: it reads the
holders it touches (consistently, once), changes them in memory and stages together

- membership on both sides (the user's `group_ids`, the group's `user_ids`),
- each component grant on the component's `ComponentAudience` (staged before the holders, so
  a change made again after a lost race starts from the holders as stored and the audience
  never misses a grant),
- the view of every user whose grants or groups moved (`visible_component_ids`,
  `visible_metric_ids`: what a public view of the page reads, the user alone),
- the session generation of every user whose email, grants, groups or view moved: its
  readers sign in again, as whoever the address now names, to what it now grants.

Access changes are invisible to the public page's snapshot (an audience-specific page is
filtered per viewer when shown), so they leave it as it is.

A reader's session (`chalicelib.public.audience`) ends with its generation: signing out moves
it on (`end_sessions`), so every copy of the cookie stops working. A sign-in link is spent by
opening it (`open_sign_in_link`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from chalicelib import ids
from chalicelib.domain import components, errors, metrics, unit_of_work
from chalicelib.domain.inputs import UNSET, Unset
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.components import Component
from chalicelib.store.models import Claim
from chalicelib.store.page_access import ComponentAudience, PageAccessGroup, PageAccessUser

Holder = PageAccessUser | PageAccessGroup
H = TypeVar("H", PageAccessUser, PageAccessGroup)
# The two kinds of holder, as callers above the domain name them (they import no store model).
USER = PageAccessUser
GROUP = PageAccessGroup
T = TypeVar("T")
COMPONENTS = "component_ids"
METRICS = "metric_ids"


@dataclass(frozen=True)
class UserInput:
    """A new user (an email or an external login at least), or what an update changes: None
    leaves a list as it is; `email` and `external_login` are UNSET when not given (null
    clears them). `subscribe_to_components`: a new user's email follows what the user sees
    (`access_subscriptions`)."""

    email: str | None | Unset = UNSET
    external_login: str | None | Unset = UNSET
    page_access_group_ids: list[str] | None = None
    component_ids: list[str] | None = None
    metric_ids: list[str] | None = None
    subscribe_to_components: bool = False


@dataclass(frozen=True)
class GroupInput:
    """A new group (a name at least), or what an update changes: None leaves a field as it
    is; `external_identifier` is UNSET when not given (null clears it)."""

    name: str | None = None
    external_identifier: str | None | Unset = UNSET
    page_access_user_ids: list[str] | None = None
    component_ids: list[str] | None = None
    metric_ids: list[str] | None = None


class Grant(Enum):
    """What a write does to a holder's components or metrics (CONTRACT.md)."""

    ADD = "add"
    REPLACE = "replace"
    REMOVE = "remove"  # the ids listed; none listed: all


# Reads -------------------------------------------------------------------------------------


def users_of(page_id: str, limit: int, email: str | None = None) -> list[PageAccessUser]:
    """The page's first `limit` users in creation order (only those with `email`, if given)."""
    if email is not None:
        if not _email_key(email):
            return []  # no user has a blank address (and DynamoDB takes no empty key)
        found = PageAccessUser.by_email.query(
            page_id, PageAccessUser.email_key == _email_key(email), limit=limit
        )
        return sorted(found, key=lambda user: user.id)
    return list(PageAccessUser.query(page_id, limit=limit))


def groups_of(page_id: str, limit: int) -> list[PageAccessGroup]:
    return list(PageAccessGroup.query(page_id, limit=limit))


def get(model: type[H], page_id: str, holder_id: str, consistent: bool = False) -> H:
    """The user or group (`model`), or NotFound."""
    try:
        return model.get(page_id, holder_id, consistent_read=consistent)
    except model.DoesNotExist:
        raise errors.NotFound() from None


def users_named(page_id: str, user_ids: list[str]) -> dict[str, PageAccessUser]:
    """The users of those ids that exist, by id (one BatchGetItem per 100)."""
    keys = [(page_id, user_id) for user_id in dict.fromkeys(user_ids)]
    return {user.id: user for user in PageAccessUser.batch_get(keys)} if keys else {}


def user_by_email(page_id: str, email: str) -> PageAccessUser | None:
    found = users_of(page_id, 1, email)
    return found[0] if found else None


def subscribable(page_id: str, user_id: str | None, component_ids: list[str]) -> list[str]:
    """What a subscriber of an audience-specific page may follow (SPEC 4.10): it names its
    page access user, and follows components that user sees (all of them, when it names
    none); anything else is a 422 naming the field."""
    if not user_id:
        raise errors.invalid("page_access_user", "is required on an audience-specific page")
    try:
        user = get(PageAccessUser, page_id, user_id)
    except errors.NotFound:
        raise errors.invalid("page_access_user", "is not a page access user of this page") from None
    # A grant of a component deleted since is no longer seen.
    existing = {record.id for record in components.components_of(page_id)}
    seen = granted(user, "visible_component_ids") & existing
    if not seen:
        # A subscriber following no component hears of everything on the page.
        raise errors.invalid("page_access_user", "sees no component of this page")
    for component_id in component_ids:
        if component_id not in seen:
            raise errors.invalid("component_ids", f"{component_id} is not seen by this user")
    return component_ids or sorted(seen)


def granted(holder: Holder, field: str) -> set[str]:
    return set(getattr(holder, field) or ())


def members(holder: Holder) -> list[str]:
    """The other side of a holder's membership: a user's groups, a group's users."""
    field = "group_ids" if isinstance(holder, PageAccessUser) else "user_ids"
    return sorted(getattr(holder, field) or ())


def granted_components(page_id: str, holder: Holder) -> tuple[list[Component], list[Component]]:
    """The page's components and, of them, the holder's own grants, in page order (one
    Query: a grant of a component deleted since is not shown)."""
    records = components.components_of(page_id)
    mine = granted(holder, COMPONENTS)
    return records, [record for record in records if record.id in mine]


def granted_metrics(page_id: str, holder: Holder) -> list:
    mine = granted(holder, METRICS)
    return [metric for metric in metrics.metrics_of(page_id) if metric.id in mine]


# One change --------------------------------------------------------------------------------


def _audience_field(model: type[Holder]):
    return ComponentAudience.user_ids if model is PageAccessUser else ComponentAudience.group_ids


class AccessEdit:
    """One change to a page's users and groups: each holder read once, changed in memory,
    staged with the audiences and views it moves."""

    def __init__(self, work: Work):
        self.work = work
        self.page_id = work.page_id
        self._read: dict[tuple[type, str], Holder] = {}
        self._changed: dict[tuple[type, str], Holder] = {}
        self._deleted: dict[tuple[type, str], Holder] = {}
        # component id -> audience field name -> (holder ids added, holder ids removed)
        self._audiences: dict[str, dict[str, tuple[set[str], set[str]]]] = {}
        self._viewers: set[str] = set()  # users whose view may have moved
        self._readdressed: set[str] = set()  # users whose email moved

    def get(self, model: type[H], holder_id: str) -> H:
        found = self.many(model, [holder_id])
        if holder_id not in found:
            raise errors.NotFound()
        return found[holder_id]

    def many(self, model: type[H], holder_ids: Iterable[str]) -> dict[str, H]:
        """The holders named that exist, by id (the unread ones in one BatchGetItem per 100,
        consistently: their versions are the ones the commit is conditioned on)."""
        wanted = list(dict.fromkeys(holder_ids))
        unread = [(self.page_id, i) for i in wanted if (model, i) not in self._read]
        if unread:
            for holder in model.batch_get(unread, consistent_read=True):
                self._read[(model, holder.id)] = holder
        return {
            holder_id: self._read[(model, holder_id)]
            for holder_id in wanted
            if (model, holder_id) in self._read and (model, holder_id) not in self._deleted
        }

    def add(self, holder: Holder) -> None:
        self._read[(type(holder), holder.id)] = holder
        self.touch(holder)

    def touch(self, holder: Holder) -> None:
        holder.updated_at = self.work.moment
        self._changed[(type(holder), holder.id)] = holder

    def _viewers_of(self, holder: Holder) -> set[str]:
        return {holder.id} if isinstance(holder, PageAccessUser) else granted(holder, "user_ids")

    def set_grants(self, holder: Holder, field: str, wanted: set[str]) -> None:
        """Make the holder's `field` (components or metrics) exactly `wanted`."""
        current = granted(holder, field)
        if current == wanted:
            return
        if field == COMPONENTS:
            name = _audience_field(type(holder)).attr_name
            for component_id, joined in [(c, True) for c in wanted - current] + [
                (c, False) for c in current - wanted
            ]:
                added, removed = self._audiences.setdefault(component_id, {}).setdefault(
                    name, (set(), set())
                )
                (added if joined else removed).add(holder.id)
        setattr(holder, field, wanted or None)
        self._viewers |= self._viewers_of(holder)
        self.touch(holder)

    def set_members(self, holder: Holder, wanted: set[str], field: str) -> None:
        """Make a user's groups (or a group's users) exactly `wanted`, each one's side too; a
        wanted id that is not the page's is a 422 naming `field`."""
        user_side = isinstance(holder, PageAccessUser)
        own, other_model, other_field, noun = (
            ("group_ids", PageAccessGroup, "user_ids", "group")
            if user_side
            else ("user_ids", PageAccessUser, "group_ids", "user")
        )
        current = set(getattr(holder, own) or ())
        if current == wanted:
            return
        others = self.many(other_model, sorted(wanted ^ current))
        for other_id in sorted(wanted - current):
            if other_id not in others:
                raise errors.invalid(field, f"{other_id} is not a page access {noun} of this page")
        for other_id, other in others.items():
            theirs = set(getattr(other, other_field) or ())
            theirs = theirs | {holder.id} if other_id in wanted else theirs - {holder.id}
            setattr(other, other_field, theirs or None)
            self.touch(other)
        self._viewers |= {holder.id} if user_side else current | wanted
        setattr(holder, own, wanted or None)
        self.touch(holder)

    def delete(self, holder: Holder) -> None:
        """Out of its memberships and its components' audiences, then gone."""
        self._viewers |= self._viewers_of(holder)
        field = "page_access_group_ids" if isinstance(holder, PageAccessUser) else "user_ids"
        self.set_members(holder, set(), field)
        self.set_grants(holder, COMPONENTS, set())
        key = (type(holder), holder.id)
        self._changed.pop(key, None)
        self._deleted[key] = holder

    def _refresh_views(self) -> None:
        """Each affected user's view: its own grants and its groups' (the groups as changed)."""
        users = self.many(PageAccessUser, sorted(self._viewers))
        group_ids = sorted({g for user in users.values() for g in granted(user, "group_ids")})
        groups = self.many(PageAccessGroup, group_ids)
        for user in users.values():
            theirs = [groups[g] for g in sorted(granted(user, "group_ids")) if g in groups]
            for field, view in (
                (COMPONENTS, "visible_component_ids"),
                (METRICS, "visible_metric_ids"),
            ):
                seen = granted(user, field).union(*(granted(group, field) for group in theirs))
                if seen != set(getattr(user, view) or ()):
                    setattr(user, view, seen or None)
                    self._changed[(PageAccessUser, user.id)] = user

    def readdressed(self, user: PageAccessUser) -> None:
        """The user's email changed: sessions opened by links sent to the old one end."""
        self._readdressed.add(user.id)

    def _end_sessions(self) -> None:
        """Each user written whose email, grants, groups or view moved: a new session
        generation, so a reader signed in as it signs in again."""
        moved = self._viewers | self._readdressed
        for (model, holder_id), holder in self._changed.items():
            if model is PageAccessUser and holder_id in moved:
                holder.session_generation = (holder.session_generation or 0) + 1

    def stage(self) -> None:
        """Audiences first, then the holders and views, deletions last."""
        self._refresh_views()
        self._end_sessions()
        for component_id, fields in sorted(self._audiences.items()):
            actions = []
            for name, (added, removed) in fields.items():
                attribute = getattr(ComponentAudience, name)
                if added:
                    actions.append(attribute.add(added))
                elif removed:
                    # One expression may not both add to and delete from a set: an audience
                    # may name a holder that lost the grant (readers check), so keep the add.
                    actions.append(attribute.delete(removed))
            if actions:
                item = ComponentAudience(self.page_id, component_id)
                self.work.update(item, actions, versioned=False)
        for holder in self._changed.values():
            self.work.save(holder)
        for holder in self._deleted.values():
            self.work.delete(holder)


def _edit(page_id: str, change: Callable[[AccessEdit], T]) -> T:
    def staged(work: Work) -> T:
        work.quiet()
        edit = AccessEdit(work)
        result = change(edit)
        edit.stage()
        return result

    return unit_of_work.run(page_id, staged)


# Users and groups --------------------------------------------------------------------------


def _check_components(page_id: str, component_ids: Iterable[str]) -> None:
    wanted = list(component_ids)
    if wanted:
        components.check_named(components.components_of(page_id), wanted, COMPONENTS)


def _check_metrics(page_id: str, metric_ids: Iterable[str]) -> None:
    wanted = list(metric_ids)
    if not wanted:
        return
    known = {metric.id for metric in metrics.metrics_of(page_id)}
    for metric_id in wanted:
        if metric_id not in known:
            raise errors.invalid(METRICS, f"{metric_id} is not a metric of this page")


_CHECKS = {COMPONENTS: _check_components, METRICS: _check_metrics}


def require_on_page(page_id: str, field: str, item_id: str) -> None:
    """A component or metric named by a path is one of the page's, or the path names nothing
    (another page's, or another organization's, is a 404 as a missing one is)."""
    try:
        _CHECKS[field](page_id, [item_id])
    except errors.Invalid:
        raise errors.NotFound() from None


def _email_key(email: str) -> str:
    return email.strip().lower()


def _email_claim(page_id: str, email: str) -> Claim:
    return Claim(f"page-access-email#{page_id}#{_email_key(email)}", page_id=page_id)


def _stage_email(work: Work, user: PageAccessUser, email: str | None) -> None:
    """A page's users have distinct emails: taking one another user has is a conflict."""
    old = user.email
    if old is not None and email is not None and _email_key(old) == _email_key(email):
        user.email = email
        return
    if email is not None:
        claim = _email_claim(user.page_id, email)
        work.save(claim, condition=Claim.name.does_not_exist(), intent=True)
    if old is not None:
        work.delete(_email_claim(user.page_id, old))
    user.email = email
    user.email_key = _email_key(email) if email is not None else None


def _apply_user(edit: AccessEdit, user: PageAccessUser, fields: UserInput) -> None:
    if fields.email is not UNSET:
        before = user.email_key
        _stage_email(edit.work, user, fields.email)
        if user.email_key != before:
            edit.readdressed(user)
    if fields.external_login is not UNSET:
        user.external_login = fields.external_login
    _apply_shared(edit, user, fields, fields.page_access_group_ids, "page_access_group_ids")


def _apply_group(edit: AccessEdit, group: PageAccessGroup, fields: GroupInput) -> None:
    if fields.name is not None:
        group.name = fields.name
    if fields.external_identifier is not UNSET:
        group.external_identifier = fields.external_identifier
    _apply_shared(edit, group, fields, fields.page_access_user_ids, "page_access_user_ids")


def _apply_shared(
    edit: AccessEdit, holder: Holder, fields: UserInput | GroupInput, member_ids, members_field
) -> None:
    """Membership, components and metrics, as a body sets them."""
    if member_ids is not None:
        edit.set_members(holder, set(member_ids), members_field)
    for field in (COMPONENTS, METRICS):
        wanted = getattr(fields, field)
        if wanted is not None:
            _CHECKS[field](holder.page_id, wanted)
            edit.set_grants(holder, field, set(wanted))
    edit.touch(holder)


_APPLY = {PageAccessUser: _apply_user, PageAccessGroup: _apply_group}


def create(page_id: str, model: type[H], fields: UserInput | GroupInput) -> H:
    """A new user (`model` USER, `fields` a UserInput) or group (GROUP, a GroupInput)."""
    if model is PageAccessUser and not fields.email and not fields.external_login:
        raise errors.invalid("email", "email or external_login is required")
    holder_id = ids.new_id()

    def change(edit: AccessEdit) -> H:
        moment = edit.work.moment
        holder = model(page_id, holder_id, created_at=moment, updated_at=moment)
        edit.add(holder)
        _APPLY[model](edit, holder, fields)
        return holder

    return _edit(page_id, change)


def update(page_id: str, model: type[H], holder_id: str, fields: UserInput | GroupInput) -> H:
    def change(edit: AccessEdit) -> H:
        holder = edit.get(model, holder_id)
        _APPLY[model](edit, holder, fields)
        return holder

    return _edit(page_id, change)


def delete(page_id: str, model: type[H], holder_id: str) -> H:
    """Deletes a user or group; returns it as it was."""

    def change(edit: AccessEdit) -> H:
        holder = edit.get(model, holder_id)
        shown = model.from_raw_data(holder.serialize())
        edit.delete(holder)
        if model is PageAccessUser and holder.email is not None:
            edit.work.delete(_email_claim(page_id, holder.email))
        return shown

    return _edit(page_id, change)


def set_membership(page_id: str, group_id: str, user_id: str, member: bool) -> PageAccessGroup:
    """Put the user in the group (`member`) or take it out, the group's other members as
    they are when the change is made (a 422 naming `page_access_user_ids` for a user that is
    not the page's)."""

    def change(edit: AccessEdit) -> PageAccessGroup:
        group = edit.get(PageAccessGroup, group_id)
        current = granted(group, "user_ids")
        wanted = current | {user_id} if member else current - {user_id}
        edit.set_members(group, wanted, "page_access_user_ids")
        edit.touch(group)
        return group

    return _edit(page_id, change)


# Grants ------------------------------------------------------------------------------------


def _changed_grants(current: set[str], ids_given: list[str] | None, grant: Grant) -> set[str]:
    if grant is Grant.ADD:
        return current | set(ids_given or ())
    if grant is Grant.REPLACE:
        return set(ids_given or ())
    return current - set(ids_given) if ids_given else set()


def change_grants(
    page_id: str, holder_id: str, model: type[H], field: str, grant: Grant, ids_given
) -> H:
    """Add, replace or remove a holder's components or metrics (`field`); ids that are not
    the page's are a 422 naming the field (except when removed)."""

    def change(edit: AccessEdit) -> H:
        holder = edit.get(model, holder_id)
        if grant is not Grant.REMOVE:
            _CHECKS[field](page_id, ids_given or ())
        edit.set_grants(holder, field, _changed_grants(granted(holder, field), ids_given, grant))
        edit.touch(holder)
        return holder

    return _edit(page_id, change)


def admit(page_id: str, component_id: str, model: type[H], holder_ids: list[str], field: str):
    """Grant the component to each holder listed (a 422 naming `field` for one not the
    page's); returns the component and the page's components."""

    def change(edit: AccessEdit) -> components.Written:
        records = components.components_of(page_id)
        component = components.find(records, component_id)
        holders = edit.many(model, holder_ids)
        for holder_id in holder_ids:
            if holder_id not in holders:
                raise errors.invalid(field, f"{holder_id} is not one of this page's")
        for holder in holders.values():
            edit.set_grants(holder, COMPONENTS, granted(holder, COMPONENTS) | {component_id})
        return components.Written(component, records)

    return _edit(page_id, change)


def expel_all(page_id: str, component_id: str, model: type[H]) -> components.Written:
    """Take the component from every user (or group) granted it: the component's audience
    names them, one read."""

    def change(edit: AccessEdit) -> components.Written:
        records = components.components_of(page_id)
        component = components.find(records, component_id)
        try:
            audience = ComponentAudience.get(page_id, component_id, consistent_read=True)
        except ComponentAudience.DoesNotExist:
            return components.Written(component, records)
        named = audience.user_ids if model is PageAccessUser else audience.group_ids
        for holder in edit.many(model, sorted(named or ())).values():
            edit.set_grants(holder, COMPONENTS, granted(holder, COMPONENTS) - {component_id})
        return components.Written(component, records)

    return _edit(page_id, change)


# Readers' sessions -------------------------------------------------------------------------


def sign_in_link_unspent(page_id: str, user_id: str, expires: int) -> bool:
    """Whether the user's sign-in link that `expires` (Unix ms) would still sign in: what its
    page says before its button spends it (`open_sign_in_link`)."""
    try:
        user = PageAccessUser.get(page_id, user_id, consistent_read=True)
    except PageAccessUser.DoesNotExist:
        return False
    return expires > (user.links_spent_through or 0)


def open_sign_in_link(page_id: str, user_id: str, expires: int) -> int | None:
    """Spend the user's sign-in link that `expires` (Unix ms): the session generation of
    the session it opens, or None when the user is gone or that link, or one made after it,
    was opened already. A link is single-use; links all live as long, so one that expires no
    later than the last opened was made no later: spent."""

    def change(work: Work) -> int | None:
        work.quiet()
        try:
            user = PageAccessUser.get(page_id, user_id, consistent_read=True)
        except PageAccessUser.DoesNotExist:
            return None
        if expires <= (user.links_spent_through or 0):
            return None
        # On the user's version: of two opening one link at once, one loses the race, reads
        # the user again and finds the link spent.
        work.update(user, [PageAccessUser.links_spent_through.set(expires)])
        return user.session_generation or 0

    return unit_of_work.run(page_id, change)


def end_sessions(page_id: str, user_id: str, generation: int) -> None:
    """Sign the user's readers out everywhere: when `generation` (a cookie's) is still the
    user's, move it on, so that no copy of any cookie made in it is read again. A cookie of
    an ended session ends nothing more."""

    def change(work: Work) -> None:
        work.quiet()
        try:
            user = PageAccessUser.get(page_id, user_id, consistent_read=True)
        except PageAccessUser.DoesNotExist:
            return
        if (user.session_generation or 0) == generation:
            work.update(user, [PageAccessUser.session_generation.set(generation + 1)])

    unit_of_work.run(page_id, change)


# Imports -----------------------------------------------------------------------------------


def import_holder(
    page_id: str,
    model: type[H],
    holder_id: str,
    fields: UserInput | GroupInput,
    stamps: dict[str, tuple],
) -> bool:
    """A user or group as another status page has it (`admin import`): made under
    `holder_id`, or brought to `fields`, with the memberships, grants and views any change
    keeps. Every holder it touches keeps the source's (created_at, updated_at) from `stamps`
    (by our id), and one that ends as it was stored is not written, so importing what is
    already here writes nothing. Whether anything was written."""

    def change(edit: AccessEdit) -> bool:
        holder = edit.many(model, [holder_id]).get(holder_id)
        if holder is None:
            holder = model(page_id, holder_id)
            edit.add(holder)
        _APPLY[model](edit, holder, fields)
        edit._refresh_views()
        for key, changed in list(edit._changed.items()):
            if changed.id in stamps:
                changed.created_at, changed.updated_at = stamps[changed.id]
            try:
                stored = type(changed).get(page_id, changed.id, consistent_read=True)
            except type(changed).DoesNotExist:
                continue
            if stored.serialize() == changed.serialize():
                del edit._changed[key]
        return bool(edit._changed or edit._audiences)

    return _edit(page_id, change)
