"""A page access user made with `subscribe_to_components` (SPEC 2.5): the user, then an email
subscriber in its name following the components it sees.

Its own module because it joins two resources: page access users know nothing of
subscribers, and subscribers need page access (SPEC 4.10) to know what a user may follow.
"""

from chalicelib.domain import page_access, pages, subscribers
from chalicelib.store.page_access import PageAccessUser


def create_user(page_id: str, fields: page_access.UserInput) -> PageAccessUser:
    """The user; subscribed when asked for, it has an email and sees some component. Made
    by the page's team, the subscription needs no confirmation."""
    user = page_access.create(page_id, PageAccessUser, fields)
    seen = sorted(user.visible_component_ids or ())
    if fields.subscribe_to_components and user.email and seen:
        subscriber = subscribers.SubscriberInput(
            email=user.email,
            component_ids=seen,
            page_access_user=user.id,
            skip_confirmation_notification=True,
        )
        subscribers.create(pages.get_page(page_id), subscriber)
    return user
