"""The confirmation link a new subscriber must open: a text message for an SMS subscriber, an
email for the others (a webhook or chat subscriber's goes to its contact address)."""

from chalicelib.domain import chat_platforms, pages, subscribers
from chalicelib.notify import content, email, sms
from chalicelib.store.models import Page
from chalicelib.store.subscribers import Subscriber

# A page name cut to fit keeps at least this many characters, else it is left out.
_LEAST_NAME = 4


def send(page: Page, subscriber: Subscriber) -> None:
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
