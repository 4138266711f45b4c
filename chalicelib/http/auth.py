"""Who is calling: `Authorization: OAuth <key>` or `?api_key=<key>`, and which pages they reach."""

from dataclasses import dataclass

from chalicelib.domain import credentials
from chalicelib.domain.organizations import has_role
from chalicelib.http import errors
from chalicelib.store.base import read_together
from chalicelib.store.models import ApiKey, Page, User

_SCHEMES = ("oauth", "bearer", "token")


@dataclass(frozen=True)
class Principal:
    key_hash: str
    user: User
    # The page the request's path names (`page_id`), read with the user; None when there is
    # no such page.
    page_id: str | None = None
    page: Page | None = None

    @property
    def organization_id(self) -> str:
        return self.user.organization_id


def presented_key(headers: dict, query: dict) -> str | None:
    header = headers.get("authorization")
    if header:
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() in _SCHEMES and value.strip():
            return value.strip()
        return None
    return query.get("api_key") or None


def authenticate(api_key: str | None, page_id: str | None = None) -> Principal:
    """The key's user, with the page `page_id` read in the same round trip (and the key's own
    item too, when the key starts with its user's id)."""
    if not api_key:
        raise errors.unauthenticated()
    key_hash = credentials.api_key_hash(api_key)
    user_id = credentials.user_hint(api_key)
    key_checked = user_id is None
    if key_checked:
        try:
            user_id = ApiKey.get(key_hash).user_id
        except ApiKey.DoesNotExist:
            raise errors.unauthenticated() from None
    wanted_page = [(Page, page_id)] if page_id else []
    wanted_key = [] if key_checked else [(ApiKey, key_hash)]
    user, *others = read_together((User, user_id), *wanted_page, *wanted_key)
    if not key_checked:
        key = others.pop()
        if key is None or key.user_id != user_id:
            raise errors.unauthenticated()
    if user is None:
        raise errors.unauthenticated()
    return Principal(key_hash, user, page_id, others[0] if page_id else None)


def require_organization(principal: Principal, organization_id: str) -> None:
    """Another organization's resources do not exist for this caller."""
    if principal.organization_id != organization_id:
        raise errors.not_found()


def require_owner(principal: Principal) -> None:
    if not principal.user.owner:
        raise errors.forbidden()


def require_role(principal: Principal, page_id: str, role: str | None) -> None:
    """The one role rule: the caller reaches `page_id` and holds `role` there."""
    if not has_role(principal.user, page_id, role):
        raise errors.forbidden()


def page_for(principal: Principal, page_id: str, role: str | None = None) -> Page:
    """The page, if the caller's organization has it and the caller holds `role` there."""
    if principal.page_id == page_id:
        page = principal.page  # read with the user already, found or not
    else:
        try:
            page = Page.get(page_id)
        except Page.DoesNotExist:
            page = None
    if page is None:
        raise errors.not_found()
    require_organization(principal, page.organization_id)
    require_role(principal, page_id, role)
    return page
