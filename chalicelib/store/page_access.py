"""Page access users and groups (SPEC 2.5, 2.6), and which of them each component admits.

Users and groups live in the page's partition (hash `page_id`, range `id`, ids in creation
order). Membership is kept on both sides, as string sets: a user's `group_ids` and a group's
`user_ids`, written in the same transaction, so either list is one GetItem. The components
and metrics a user or group may view are sets on its own item; `ComponentAudience` holds the
reverse of the component grants (who may view a component), so the component-side operations
read one item rather than every user of the page.
"""

from pynamodb.attributes import (
    NumberAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.store.base import table_meta


class AccessUsersByEmail(GlobalSecondaryIndex):
    """Sparse: only users with an email; `email_key` is the lowercased address."""

    class Meta:
        index_name = "by-email"
        projection = AllProjection()

    page_id = UnicodeAttribute(hash_key=True)
    email_key = UnicodeAttribute(range_key=True)


class PageAccessUser(Model):
    """hash `page_id`, range `id`; index `by-email` (page_id, email_key)."""

    Meta = table_meta("page-access-users")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    email = UnicodeAttribute(null=True)
    email_key = UnicodeAttribute(null=True)
    # Stored and returned exactly as sent (CONTRACT.md).
    external_login = UnicodeAttribute(null=True)
    group_ids = UnicodeSetAttribute(null=True)
    component_ids = UnicodeSetAttribute(null=True)
    metric_ids = UnicodeSetAttribute(null=True)
    # What the user sees: its own grants and its groups', kept by every change to either, so
    # a view of an audience-specific page reads the user alone.
    visible_component_ids = UnicodeSetAttribute(null=True)
    visible_metric_ids = UnicodeSetAttribute(null=True)
    # The reader's sessions: a cookie names the generation it was made in, and counts only
    # while the user is still in it; signing out and every change of what the user is or
    # sees move it on (none: 0).
    session_generation = NumberAttribute(null=True)
    # Sign-in links are single-use: when (Unix ms) the last one opened expires. Links all
    # live as long, so one that expires then or before was made no later: it is spent.
    links_spent_through = NumberAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()
    by_email = AccessUsersByEmail()


class PageAccessGroup(Model):
    """hash `page_id`, range `id`."""

    Meta = table_meta("page-access-groups")
    page_id = UnicodeAttribute(hash_key=True)
    id = UnicodeAttribute(range_key=True)
    name = UnicodeAttribute()
    external_identifier = UnicodeAttribute(null=True)
    user_ids = UnicodeSetAttribute(null=True)
    component_ids = UnicodeSetAttribute(null=True)
    metric_ids = UnicodeSetAttribute(null=True)
    created_at = UTCDateTimeAttribute()
    updated_at = UTCDateTimeAttribute()
    version = VersionAttribute()


class ComponentAudience(Model):
    """hash `page_id`, range `component_id`: the users and groups granted the component.

    Written only by set additions and removals, which commute, so no version: it may name a
    user or group that has since lost the grant (readers check the user's own item), never
    miss one that has it."""

    Meta = table_meta("component-audiences")
    page_id = UnicodeAttribute(hash_key=True)
    component_id = UnicodeAttribute(range_key=True)
    user_ids = UnicodeSetAttribute(null=True)
    group_ids = UnicodeSetAttribute(null=True)
