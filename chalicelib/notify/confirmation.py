"""The confirmation link a new subscriber must open: a text message for an SMS subscriber, an
email for the others (a webhook subscriber's goes to its contact address)."""

from chalicelib.domain import pages, subscribers
from chalicelib.notify import content, email, sms
from chalicelib.store.models import Page
from chalicelib.store.subscribers import Subscriber


def send(page: Page, subscriber: Subscriber) -> None:
    confirm_link = subscribers.link(subscriber, subscribers.CONFIRM)
    if subscriber.kind == "sms":
        name = pages.profile_of(page).get("name", "")
        text = f"[{name}] Confirm your subscription: {confirm_link}"
        sms.send_sms(subscribers.e164(subscriber), text)
        return
    what = f"webhook notifications to {subscriber.endpoint}" if subscriber.endpoint else ""
    message = content.confirmation_content(page, what or "notifications", confirm_link)
    email.send_email(
        subscriber.email, message["sender"], message["subject"], message["text"], message["html"]
    )
