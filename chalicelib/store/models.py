"""The tables. Each model's docstring gives its key pattern.

Page content that only the API reads and writes whole (the profile, the embed config) lives
in map attributes whose shape the pydantic schemas own, so a field is declared once.
"""

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class Organization(Model):
    """hash `id`."""

    Meta = table_meta("organizations")
    id = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()


class UsersByOrganization(GlobalSecondaryIndex):
    class Meta:
        index_name = "by-organization"
        projection = AllProjection()

    organization_id = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class UsersBySignInEmail(GlobalSecondaryIndex):
    """Sparse: users with a `sign_in_email` (their email in lower case), for the console's
    sign-in."""

    class Meta:
        index_name = "by-sign-in-email"
        projection = AllProjection()

    sign_in_email = UnicodeAttribute(hash_key=True)


class User(Model):
    """hash `id`; index `by-organization` (organization_id, created_at); sparse index
    `by-sign-in-email` (sign_in_email).

    `page_roles` maps a page id to its roles ({} for a page without role based access);
    an owner reaches every page of the organization whatever the map says.
    """

    Meta = table_meta("users")
    id = UnicodeAttribute(hash_key=True)
    organization_id = UnicodeAttribute()
    email = UnicodeAttribute()
    first_name = UnicodeAttribute(default="")
    last_name = UnicodeAttribute(default="")
    password_hash = UnicodeAttribute(null=True)
    sign_in_email = UnicodeAttribute(null=True)
    # Console sessions name the generation they were made in; signing out, or a new password,
    # moves it on and so ends every session made before.
    session_generation = NumberAttribute(default=0)
    # A password handed out once (by the admin tool or the console): the console asks for a
    # new one at the first sign-in and shows nothing else until it has it.
    password_is_one_time = BooleanAttribute(default=False)
    # Until when a one-time password signs in (once: the sign-in spends it).
    one_time_until = UTCDateTimeAttribute(null=True)
    owner = BooleanAttribute(default=False)
    page_roles = MapAttribute(default=dict)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()
    by_organization = UsersByOrganization()
    by_sign_in_email = UsersBySignInEmail()


class ApiKeysByUser(GlobalSecondaryIndex):
    class Meta:
        index_name = "by-user"
        projection = AllProjection()

    user_id = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class ApiKey(Model):
    """hash `key_hash` (SHA-256 of the key; the key itself is never stored); index `by-user`
    (user_id, created_at) lists a user's keys, to revoke one."""

    Meta = table_meta("api-keys")
    key_hash = UnicodeAttribute(hash_key=True)
    user_id = UnicodeAttribute()
    organization_id = UnicodeAttribute()
    created_at = UTCDateTimeAttribute()
    by_user = ApiKeysByUser()


class PagesByOrganization(GlobalSecondaryIndex):
    class Meta:
        index_name = "by-organization"
        projection = AllProjection()

    organization_id = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class Page(Model):
    """hash `id`; index `by-organization` (organization_id, created_at).

    `profile` holds the page fields of the schemas; `subdomain` and `domain` are also claimed
    in `Claim` so they stay unique.
    """

    Meta = table_meta("pages")
    id = UnicodeAttribute(hash_key=True)
    organization_id = UnicodeAttribute()
    subdomain = UnicodeAttribute()
    domain = UnicodeAttribute(null=True)
    profile = MapAttribute(default=dict)
    status_embed_config = MapAttribute(default=dict)
    # Signs webhook bodies (X-Webhook-Signature); kept readable because signing needs it.
    webhook_secret = UnicodeAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()
    by_organization = PagesByOrganization()


class Claim(Model):
    """hash `name` (`subdomain#acme`, `domain#status.acme.com`): a unique name and its page."""

    Meta = table_meta("claims")
    name = UnicodeAttribute(hash_key=True)
    page_id = UnicodeAttribute()


class RateWindow(Model):
    """hash `token` (key hash): request counts of the current and the previous minute."""

    Meta = table_meta("rate-windows")
    token = UnicodeAttribute(hash_key=True)
    window = NumberAttribute()
    hits = NumberAttribute(default=0)
    previous_hits = NumberAttribute(default=0)
    expires_at = TTLAttribute()
