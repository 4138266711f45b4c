"""Organization users and their per-page roles (SPEC 2.3, 2.4, 4.1)."""

from pydantic import Field

from chalicelib.domain import credentials
from chalicelib.schemas.common import Email, Name, OutSchema, Schema


class UserFields(Schema):
    email: Email
    # The length is the document's; the rest of the rule is the domain's (`password_problem`).
    password: str = Field(
        min_length=credentials.MINIMUM_PASSWORD_LENGTH,
        max_length=credentials.MAXIMUM_PASSWORD_LENGTH,
        description="at least 12 characters, and not a common or easily guessed password",
    )
    first_name: Name
    last_name: Name


class UserCreate(Schema):
    user: UserFields


class UserOut(OutSchema):
    id: str
    organization_id: str
    email: str
    first_name: str
    last_name: str
    created_at: str
    updated_at: str


class PageRoles(Schema):
    page_configuration: bool | None = None
    incident_manager: bool | None = None
    maintenance_manager: bool | None = None


class PermissionsUpdate(Schema):
    pages: dict[str, PageRoles] = Field(
        description="page id to its roles ({} for a page without role based access control); "
        "pages left out are no longer reachable"
    )


class PagePermissionOut(OutSchema):
    page_id: str
    page_configuration: bool
    incident_manager: bool
    maintenance_manager: bool


class PermissionsOut(OutSchema):
    user_id: str
    pages: list[PagePermissionOut]
