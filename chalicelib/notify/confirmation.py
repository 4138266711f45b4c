"""The confirmation link a new subscriber must open: a text message for an SMS subscriber, an
email for the others (a webhook or chat subscriber's goes to its contact address)."""

import logging

from chalicelib.domain import chat_platforms, pages, subscribers
from chalicelib.http import ratelimit
from chalicelib.notify import content, email, sms
from chalicelib.store.models import Page
from chalicelib.store.subscribers import Subscriber

logger = logging.getLogger(__name__)
# A page name cut to fit keeps at least this many characters, else it is left out.
_LEAST_NAME = 4
# One address is asked by one page at most once in this long.
ASK_AGAIN_AFTER_SECONDS = 3600


def send(page: Page, subscriber: Subscriber, by_reader: bool = False) -> None:
    """The confirmation; of a subscription a reader made (its address the caller's choice),
    only when the page asked that address nothing within the hour. The page's team, who make
    or send one again through the API or the console, are not held to it."""
    if by_reader and not _first_ask_within_the_hour(page, subscriber):
        logger.info(
            "confirmation of subscriber %s of page %s not sent: the page asked that address "
            "within the hour",
            subscriber.id,
            page.id,
        )
        return
    confirm_link = subscribers.link(subscriber, subscribers.CONFIRM)
    if subscriber.kind == "sms":
        name = pages.profile_of(page).get("name", "")
        sms.send_sms(subscribers.e164(subscriber), sms_text(name, confirm_link))
        return
    what = f"webhook notifications to {subscriber.endpoint}" if subscriber.endpoint else ""
    if chat_platforms.is_chat(subscriber.kind):
        what = "notifications in " + chat_platforms.described(subscriber.kind, subscriber.endpoint)
    message = content.confirmation_content(page, what or "notifications", confirm_link)
    email.send_email(
        subscriber.email, message["sender"], message["subject"], message["text"], message["html"]
    )


def _first_ask_within_the_hour(page: Page, subscriber: Subscriber) -> bool:
    """Whether the page asked this address nothing within the hour (and count this ask): a
    page asks one address once an hour at most, however often its form is sent with it (the
    subscriptions of each incident, a subscription cancelled and made again), so no page's
    form mails or texts a third party again and again. The link it sent still works."""
    if subscriber.kind == "sms":
        address = subscribers.e164(subscriber)
    else:
        address = subscriber.email or ""
    asked = ratelimit.token_for(f"confirmation#{page.id}", address)
    if ratelimit.counted(asked, ASK_AGAIN_AFTER_SECONDS) > 0:
        return False
    ratelimit.count(asked, ASK_AGAIN_AFTER_SECONDS)
    return True


def sms_text(name: str, link: str) -> str:
    """The confirmation text message in one segment (160 GSM-7 characters, the link ~120 of
    them): the page's name and the whole sentence where they fit, else a shorter sentence,
    else the name cut (at a word where it can) with an ellipsis, else no name (one that needs
    UCS-2, whose segment is 70 characters, or a link too long for more); when nothing fits,
    the whole text."""
    name = " ".join(name.split())
    whole = f"[{name}] Confirm your subscription: {link}" if name else ""
    candidates = [whole, f"[{name}] Confirm: {link}" if name else ""]
    room = sms.GSM7_SEGMENT - sms.size(f"[{sms.ELLIPSIS}] Confirm: {link}", gsm7=True)
    cut = name
    while cut and sms.size(cut, gsm7=True) > room:
        cut = cut[:-1]
    if cut != name and " " in cut:  # at a word, where that keeps enough
        at_word = cut.rsplit(" ", 1)[0]
        cut = at_word if len(at_word.rstrip(" .,;:-")) >= _LEAST_NAME else cut
    cut = cut.rstrip(" .,;:-")
    if len(cut) >= _LEAST_NAME and cut != name:
        candidates.append(f"[{cut}{sms.ELLIPSIS}] Confirm: {link}")
    candidates.append(f"Confirm your subscription: {link}")
    for text in candidates:
        if text and sms.segments(text) == 1:
            return text
    return whole or candidates[-1]
