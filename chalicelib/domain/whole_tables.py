"""Reads of whole tables, for the admin's commands on a whole deployment: Scans, which no
request or event function makes (the functions' role is not granted Scan; tests fail a
request path that scans). Kept apart so the code the functions run holds none."""

from collections.abc import Iterable

from chalicelib.store.models import Page
from chalicelib.store.subscribers import Subscriber


def every_page() -> Iterable[Page]:
    """Every page of every organization."""
    return Page.scan()


def every_subscriber() -> Iterable[Subscriber]:
    """Every subscriber of every page."""
    return Subscriber.scan()
