"""Page access users and groups (SPEC 2.5, 2.6, 4.4, 4.5): who may view an audience-specific
page, and which of its components and metrics each of them sees.

A user or group (a *holder*) keeps the ids of the components and metrics it is granted; a
user sees its own grants and its groups'. Membership is written on both sides in one change
(the user's `group_ids`, the group's `user_ids`), and every component grant also on the
component's `ComponentAudience`, staged before the holder itself: a change that is made again
after a lost race starts from the holder as stored, so the audience never misses a grant.

Access changes are invisible to the public page of a page that is not audience-specific, so
they leave its snapshot as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import TypeVar

from chalicelib import ids
from chalicelib.domain import components, errors, metrics, unit_of_work
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.components import Component
from chalicelib.store.models import Claim
from chalicelib.store.page_access import ComponentAudience, PageAccessGroup, PageAccessUser

Holder = PageAccessUser | PageAccessGroup
H = TypeVar("H", PageAccessUser, PageAccessGroup)
T = TypeVar("T")
COMPONENTS = "component_ids"
METRICS = "metric_ids"


class Grant(Enum):
    """What a write does to a holder's components or metrics (CONTRACT.md)."""

    ADD = "add"
    REPLACE = "replace"
    REMOVE = "remove"  # the ids listed; none listed: all


# Reads -------------------------------------------------------------------------------------


def users_of(page_id: str, limit: int, email: str | None = None) -> list[PageAccessUser]:
    """The page's first `limit` users in creation order (only those with `email`, if given)."""
    if email is not None:
        key = PageAccessUser.by_email.query(
            page_id, PageAccessUser.email_key == _email_key(email), limit=limit
        )
        return sorted(key, key=lambda user: user.id)
    return list(PageAccessUser.query(page_id, limit=limit))


def groups_of(page_id: str, limit: int) -> list[PageAccessGroup]:
    return list(PageAccessGroup.query(page_id, limit=limit))


def get(model: type[H], page_id: str, holder_id: str, consistent: bool = False) -> H:
    """The user or group (`model`), or NotFound."""
    try:
        return model.get(page_id, holder_id, consistent_read=consistent)
    except model.DoesNotExist:
        raise errors.NotFound() from None


def _many(model: type[H], page_id: str, holder_ids: Iterable[str]) -> dict[str, H]:
    """The holders named that exist, by id (one BatchGetItem per 100)."""
    keys = [(page_id, holder_id) for holder_id in dict.fromkeys(holder_ids)]
    return {holder.id: holder for holder in model.batch_get(keys)} if keys else {}


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


# Staging -----------------------------------------------------------------------------------


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


def _audience_field(model: type[Holder]):
    return ComponentAudience.user_ids if model is PageAccessUser else ComponentAudience.group_ids


def _set_grants(work: Work, holder: Holder, field: str, wanted: set[str]) -> None:
    """Make the holder's `field` exactly `wanted` (its component grants on the components'
    audiences first); the caller saves the holder."""
    current = granted(holder, field)
    if field == COMPONENTS:
        audience = _audience_field(type(holder))
        for component_id in sorted(wanted - current):
            item = ComponentAudience(holder.page_id, component_id)
            work.update(item, [audience.add({holder.id})], versioned=False)
        for component_id in sorted(current - wanted):
            item = ComponentAudience(holder.page_id, component_id)
            work.update(item, [audience.delete({holder.id})], versioned=False)
    setattr(holder, field, wanted or None)


def _changed_grants(current: set[str], ids_given: list[str] | None, grant: Grant) -> set[str]:
    if grant is Grant.ADD:
        return current | set(ids_given or ())
    if grant is Grant.REPLACE:
        return set(ids_given or ())
    return current - set(ids_given) if ids_given else set()


def _set_members(work: Work, holder: Holder, wanted: set[str], field: str) -> None:
    """Make a user's groups (or a group's users) exactly `wanted`, each one's side too; a
    wanted id that is not the page's is a 422 naming `field`."""
    user_side = isinstance(holder, PageAccessUser)
    own, other_model, other_field, noun = (
        ("group_ids", PageAccessGroup, "user_ids", "group")
        if user_side
        else ("user_ids", PageAccessUser, "group_ids", "user")
    )
    current = set(getattr(holder, own) or ())
    others = _many(other_model, holder.page_id, sorted(wanted ^ current))
    for other_id in sorted(wanted - current):
        if other_id not in others:
            raise errors.invalid(field, f"{other_id} is not a page access {noun} of this page")
    for other_id, other in others.items():
        theirs = set(getattr(other, other_field) or ())
        theirs = theirs | {holder.id} if other_id in wanted else theirs - {holder.id}
        setattr(other, other_field, theirs or None)
        other.updated_at = work.moment
        work.save(other)
    setattr(holder, own, wanted or None)


def _edit(page_id: str, change: Callable[[Work], T]) -> T:
    def quiet_change(work: Work) -> T:
        work.quiet()
        return change(work)

    return unit_of_work.run(page_id, quiet_change)


# Users and groups ----------------------------------------------------------------------------


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


def _apply_user(work: Work, user: PageAccessUser, fields) -> None:
    if "email" in fields.model_fields_set:
        _stage_email(work, user, fields.email)
    if "external_login" in fields.model_fields_set:
        user.external_login = fields.external_login
    _apply_shared(work, user, fields, fields.page_access_group_ids, "page_access_group_ids")


def _apply_group(work: Work, group: PageAccessGroup, fields) -> None:
    if fields.name is not None:
        group.name = fields.name
    if "external_identifier" in fields.model_fields_set:
        group.external_identifier = fields.external_identifier
    _apply_shared(work, group, fields, fields.page_access_user_ids, "page_access_user_ids")


def _apply_shared(work: Work, holder: Holder, fields, member_ids, members_field: str) -> None:
    """Membership, components and metrics, as a body sets them; then the holder."""
    if member_ids is not None:
        _set_members(work, holder, set(member_ids), members_field)
    if fields.component_ids is not None:
        _check_components(holder.page_id, fields.component_ids)
        _set_grants(work, holder, COMPONENTS, set(fields.component_ids))
    if fields.metric_ids is not None:
        _check_metrics(holder.page_id, fields.metric_ids)
        _set_grants(work, holder, METRICS, set(fields.metric_ids))
    holder.updated_at = work.moment
    work.save(holder)


_APPLY = {PageAccessUser: _apply_user, PageAccessGroup: _apply_group}


def create(page_id: str, model: type[H], fields) -> H:
    """A new user or group (`fields`: `schemas.PageAccessUserFields` or
    `schemas.PageAccessGroupCreateFields`)."""
    if model is PageAccessUser and not fields.email and not fields.external_login:
        raise errors.invalid("email", "email or external_login is required")
    holder_id = ids.new_id()

    def change(work: Work) -> H:
        holder = model(page_id, holder_id, created_at=work.moment, updated_at=work.moment)
        _APPLY[model](work, holder, fields)
        return holder

    return _edit(page_id, change)


def update(page_id: str, model: type[H], holder_id: str, fields) -> H:
    def change(work: Work) -> H:
        holder = get(model, page_id, holder_id, True)
        _APPLY[model](work, holder, fields)
        return holder

    return _edit(page_id, change)


def delete(page_id: str, model: type[H], holder_id: str) -> H:
    """Deletes a user or group, out of its memberships and its components' audiences first;
    returns it as it was."""

    def change(work: Work) -> H:
        holder = get(model, page_id, holder_id, True)
        shown = model.from_raw_data(holder.serialize())
        user_side = model is PageAccessUser
        field = "page_access_group_ids" if user_side else "page_access_user_ids"
        _set_members(work, holder, set(), field)
        _set_grants(work, holder, COMPONENTS, set())
        if user_side and holder.email is not None:
            work.delete(_email_claim(page_id, holder.email))
        work.delete(holder)
        return shown

    return _edit(page_id, change)


# Grants ------------------------------------------------------------------------------------


def change_grants(
    page_id: str, holder_id: str, model: type[H], field: str, grant: Grant, ids_given
) -> H:
    """Add, replace or remove a holder's components or metrics (`field`); ids that are not
    the page's are a 422 naming the field (except when removed)."""

    def change(work: Work) -> H:
        holder = get(model, page_id, holder_id, True)
        if grant is not Grant.REMOVE:
            check = _check_components if field == COMPONENTS else _check_metrics
            check(page_id, ids_given or ())
        _set_grants(work, holder, field, _changed_grants(granted(holder, field), ids_given, grant))
        holder.updated_at = work.moment
        work.save(holder)
        return holder

    return _edit(page_id, change)


def admit(page_id: str, component_id: str, model: type[H], holder_ids: list[str], field: str):
    """Grant the component to each holder listed (a 422 naming `field` for one not the
    page's); returns the component and the page's components."""

    def change(work: Work) -> components.Written:
        records = components.components_of(page_id)
        component = components.find(records, component_id)
        holders = _many(model, page_id, holder_ids)
        for holder_id in holder_ids:
            if holder_id not in holders:
                raise errors.invalid(field, f"{holder_id} is not one of this page's")
        _stage_component_grant(work, component_id, model, list(holders.values()), True)
        return components.Written(component, records)

    return _edit(page_id, change)


def expel_all(page_id: str, component_id: str, model: type[H]) -> components.Written:
    """Take the component from every user (or group) granted it: the component's audience
    names them, one read."""

    def change(work: Work) -> components.Written:
        records = components.components_of(page_id)
        component = components.find(records, component_id)
        try:
            audience = ComponentAudience.get(page_id, component_id, consistent_read=True)
        except ComponentAudience.DoesNotExist:
            return components.Written(component, records)
        named = audience.user_ids if model is PageAccessUser else audience.group_ids
        holders = _many(model, page_id, sorted(named or ())).values()
        _stage_component_grant(work, component_id, model, list(holders), False)
        return components.Written(component, records)

    return _edit(page_id, change)


def _stage_component_grant(
    work: Work, component_id: str, model: type[H], holders: list[H], grant: bool
) -> None:
    """Grant (or take) one component to (from) many holders: the audience item once (a
    transaction may name an item only once), then each holder whose grants change."""
    changing = [
        holder for holder in holders if (component_id in granted(holder, COMPONENTS)) != grant
    ]
    if not changing:
        return
    audience = _audience_field(model)
    holder_ids = {holder.id for holder in changing}
    action = audience.add(holder_ids) if grant else audience.delete(holder_ids)
    work.update(ComponentAudience(work.page_id, component_id), [action], versioned=False)
    for holder in changing:
        mine = granted(holder, COMPONENTS)
        setattr(
            holder, COMPONENTS, (mine | {component_id} if grant else mine - {component_id}) or None
        )
        holder.updated_at = work.moment
        work.save(holder)
