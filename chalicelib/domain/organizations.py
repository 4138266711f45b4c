"""Organizations, their users and API keys."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pynamodb.exceptions import UpdateError

from chalicelib import clock, ids
from chalicelib.domain import credentials, errors
from chalicelib.store.base import plain_dict
from chalicelib.store.models import ApiKey, Organization, User

PAGE_CONFIGURATION = "page_configuration"
INCIDENT_MANAGER = "incident_manager"
MAINTENANCE_MANAGER = "maintenance_manager"
ROLES = (PAGE_CONFIGURATION, INCIDENT_MANAGER, MAINTENANCE_MANAGER)


@dataclass(frozen=True)
class UserInput:
    """A new user who signs in with `password`."""

    email: str
    password: str
    first_name: str
    last_name: str


def incident_role(scheduled: bool) -> str:
    """The role that writes an incident: maintenances have their own (the API and the
    console both ask this)."""
    return MAINTENANCE_MANAGER if scheduled else INCIDENT_MANAGER


def create_organization(name: str) -> Organization:
    organization = Organization(ids.new_id(), name=name, created_at=clock.now())
    organization.save()
    return organization


def create_user(
    organization_id: str,
    email: str,
    *,
    first_name: str = "",
    last_name: str = "",
    password: str | None = None,
    one_time: bool = False,
    owner: bool = False,
) -> User:
    """A user of the organization; with a `password`, one who signs in to the console (to
    choose another at once when it is `one_time`)."""
    moment = clock.now()
    user = User(
        ids.new_id(),
        organization_id=organization_id,
        email=email,
        first_name=first_name,
        last_name=last_name,
        password_hash=credentials.password_hash(password) if password else None,
        sign_in_email=email.lower() if password else None,  # only users who may sign in
        password_is_one_time=bool(password) and one_time,
        one_time_until=_one_time_until(moment) if password and one_time else None,
        owner=owner,
        page_roles={},
        created_at=moment,
        updated_at=moment,
    )
    user.save()
    return user


def add_user(organization_id: str, fields: UserInput, *, one_time_password: bool = False) -> User:
    """A new user of the organization who signs in with the body's password (with
    `one_time_password`: handed out by the console, to be changed at the first sign-in); an email the organization
    already has is refused (the API and the console both add users so)."""
    if email_taken(organization_id, fields.email):
        raise errors.invalid("email", "has already been taken")
    problem = credentials.password_problem(fields.password)
    if problem:
        raise errors.invalid("password", problem)
    return create_user(
        organization_id,
        fields.email,
        first_name=fields.first_name,
        last_name=fields.last_name,
        password=fields.password,
        one_time=one_time_password,
    )


def create_api_key(user: User) -> str:
    """A new key for `user`; the key itself is returned once and never stored."""
    api_key = credentials.new_api_key(user.id)
    ApiKey(
        credentials.api_key_hash(api_key),
        user_id=user.id,
        organization_id=user.organization_id,
        created_at=clock.now(),
    ).save()
    return api_key


def get_user(user_id: str) -> User | None:
    """The user, of whichever organization (None: there is none, or it was deleted)."""
    try:
        return User.get(user_id)
    except User.DoesNotExist:
        return None


def find_organization(organization_id: str) -> Organization | None:
    try:
        return Organization.get(organization_id)
    except Organization.DoesNotExist:
        return None


def find_user(organization_id: str, user_id: str) -> User | None:
    user = get_user(user_id)
    return user if user is not None and user.organization_id == organization_id else None


def users_of(organization_id: str) -> list[User]:
    return list(User.by_organization.query(organization_id))


def email_taken(organization_id: str, email: str) -> bool:
    return any(user.email.lower() == email.lower() for user in users_of(organization_id))


def delete_user(user: User, *, by: User | None = None) -> None:
    """Delete `user`; `by`, the user asking, may not delete themselves."""
    if by is not None and by.id == user.id:
        raise errors.invalid("user_id", "can't delete yourself")
    user.delete()


def set_page_roles(user: User, page_roles: dict[str, dict[str, bool]]) -> User:
    """Replace the user's pages: every page left out is no longer reachable."""
    user.update(
        actions=[User.page_roles.set(page_roles), User.updated_at.set(clock.now())],
    )
    return user


def set_roles_on_page(user: User, page_id: str, roles: dict[str, bool] | None) -> User:
    """Change the user's roles on one page, keeping its others; None takes the page away."""
    page_roles = page_roles_of(user)
    if roles is None:
        page_roles.pop(page_id, None)
    else:
        page_roles[page_id] = roles
    return set_page_roles(user, page_roles)


def keys_of(user: User) -> list[ApiKey]:
    """The user's API keys (their hashes and dates: the keys themselves are never stored)."""
    return list(ApiKey.by_user.query(user.id))


def revoke_api_key(user: User, key_hash: str) -> None:
    try:
        key = ApiKey.get(key_hash)
    except ApiKey.DoesNotExist:
        raise errors.NotFound() from None
    if key.user_id != user.id:
        raise errors.NotFound()
    key.delete()


def page_roles_of(user: User) -> dict[str, dict[str, bool]]:
    """The user's roles on each page it is given, as stored ({} for a page: every role). An
    owner reaches every page of its organization, named here or not."""
    return plain_dict(user.page_roles)


def has_role(user: User, page_id: str, role: str | None) -> bool:
    """Whether `user` reaches `page_id`, and holds `role` there when one is asked for."""
    if user.owner:
        return True
    roles = page_roles_of(user)
    if page_id not in roles:
        return False
    page_roles = roles[page_id] or {}
    # A page without role based access control maps to {}: full access.
    if role is None or not page_roles:
        return True
    return bool(page_roles.get(role))


def users_by_email(email: str) -> list[User]:
    """The users who sign in with `email` (one per organization at most), by the sparse
    `by-sign-in-email` index: a sign-in reads no other user."""
    return list(User.by_sign_in_email.query(email.strip().lower()))


def set_password(user: User, password: str, *, one_time: bool = False) -> None:
    """Store the password's hash (never the password), index the user's email for sign-in,
    and end the sessions the old password opened. A `one_time` password is to be changed at
    the next sign-in."""
    moment = clock.now()
    user.update(
        actions=[
            User.password_hash.set(credentials.password_hash(password)),
            User.sign_in_email.set(user.email.lower()),
            User.password_is_one_time.set(one_time),
            User.one_time_until.set(_one_time_until(moment) if one_time else None),
            User.session_generation.add(1),
            User.updated_at.set(moment),
        ]
    )


def _one_time_until(moment: datetime) -> datetime:
    return moment + timedelta(hours=credentials.ONE_TIME_PASSWORD_HOURS)


def one_time_password_expired(user: User) -> bool:
    """Whether the user's one-time password is past its hours (one handed out before they
    were kept counts from the user's last change)."""
    until = user.one_time_until or _one_time_until(user.updated_at)
    return clock.now() >= until


def spend_one_time_password(user: User) -> bool:
    """The sign-in that a one-time password allows: it expires as it signs in, so it signs
    in no other (its hash is kept, so the password chosen next cannot be it). False when
    another sign-in spent it first (the two raced)."""
    moment = clock.now()
    try:
        user.update(
            actions=[User.one_time_until.set(moment), User.updated_at.set(moment)],
            condition=User.one_time_until == user.one_time_until
            if user.one_time_until
            else User.one_time_until.does_not_exist(),
        )
    except UpdateError:
        return False
    return True


def end_sessions(user: User) -> None:
    """End every console session of the user, on every device."""
    user.update(actions=[User.session_generation.add(1)])
