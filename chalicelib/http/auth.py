"""Who is calling: `Authorization: OAuth <key>` or `?api_key=<key>`, and which pages they reach."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.domain import credentials, pages
from chalicelib.domain.errors import NotFound
from chalicelib.domain.organizations import has_role
from chalicelib.http import errors
from chalicelib.observability import logs as structured_logs

if TYPE_CHECKING:
    from chalicelib.store.models import Page, User

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
    """The key's user, with the page `page_id` read in the same round trip (a 401 for a key
    nobody holds)."""
    if not api_key:
        raise errors.unauthenticated()
    holder = credentials.key_holder(api_key, page_id)
    if holder is None:
        raise errors.unauthenticated()
    return Principal(holder.key_hash, holder.user, page_id, holder.page)


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
            page = pages.get_page(page_id)
        except NotFound:
            page = None
    if page is None:
        raise errors.not_found()
    require_organization(principal, page.organization_id)
    structured_logs.annotate(page_id=page.id)  # the caller's page: its lines may name it
    require_role(principal, page_id, role)
    return page
