"""Subscribers in the console: list (by state, kind, search), add, quarantine, reactivate,
export as CSV. The lists read the subscriber listing entries as the API's lists do, and
every change is the API's domain function under `page_configuration`."""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

from chalice import Response

from chalicelib import clock, schemas
from chalicelib.api.pages import PAGE_CONFIGURATION
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import chat_platforms, pages, subscribers
from chalicelib.http import errors
from chalicelib.public import security

SUBSCRIBERS = "/pages/{page_id}/subscribers"
PER_SCREEN = 50
STATES = ("active", "unconfirmed", "quarantined", "all")
KINDS = ("email", "sms", "webhook", *chat_platforms.PLATFORMS)
KIND_LABELS = {
    "email": "Email",
    "sms": "Text message",
    "webhook": "Webhook",
    **chat_platforms.LABELS,
}
# A cell a spreadsheet would run as a formula starts with one of these: quoted as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _filters(screen: Screen) -> dict:
    query = screen.request.query
    state = query.get("state") if query.get("state") in STATES else "active"
    kind = query.get("type") if query.get("type") in KINDS else None
    number = int(query["page"]) if query.get("page", "").isdigit() else 0
    return {"state": state, "kind": kind, "text": query.get("q") or None, "number": number}


def _row(subscriber) -> dict:
    return {
        "id": subscriber.id,
        "kind": subscriber.kind,
        "address": subscribers.address_of(subscriber),
        "state": subscriber.state,
        "created_at": subscriber.created_at,
        "quarantined_at": subscriber.quarantined_at,
    }


@console_view(SUBSCRIBERS)
def list_subscribers(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    chosen = _filters(screen)
    found = subscribers.listed(
        page.id,
        kind=chosen["kind"],
        state=chosen["state"],
        text=chosen["text"],
        offset=chosen["number"] * PER_SCREEN,
        limit=PER_SCREEN + 1,  # one more tells whether a next screen exists
    )
    query = {"state": chosen["state"], "type": chosen["kind"] or "", "q": chosen["text"] or ""}
    return screen.render(
        "subscribers.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        rows=[_row(s) for s in found[:PER_SCREEN]],
        more=len(found) > PER_SCREEN,
        chosen=chosen,
        states=STATES,
        kinds=KINDS,
        kind_labels=KIND_LABELS,
        platforms=chat_platforms.LABELS,
        counts=_counts(page.id),
        query=urlencode(query),
        can_write=screen.may(page.id, PAGE_CONFIGURATION),
        done=screen.request.query.get("done", ""),
    )


def _counts(page_id: str) -> dict[str, dict[str, int]]:
    """Each kind's subscribers by state: email, SMS and webhooks always, a chat platform once
    the page has any of its channels."""
    return {
        kind: by_state
        for kind, by_state in subscribers.counts(page_id).items()
        if not chat_platforms.is_chat(kind) or any(by_state.values())
    }


@console_view(SUBSCRIBERS, ("POST",))
def add_subscriber(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    fields = {k: v for k, v in (screen.form.get("subscriber") or {}).items() if v != ""}
    body = {"subscriber": fields}
    created = subscribers.create(
        page, errors.validated(schemas.SubscriberCreate, body, "subscriber").subscriber
    )
    done = urlencode({"done": f"Added {subscribers.address_of(created)}", "state": "all"})
    return redirect(f"{BASE}/pages/{page.id}/subscribers?{done}")


@console_view(SUBSCRIBERS + "/{subscriber_id}/quarantine", ("POST",))
def quarantine_subscriber(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, screen.request.params["subscriber_id"])
    subscribers.quarantine_by_id(page.id, subscriber.id)
    return redirect(f"{BASE}/pages/{page.id}/subscribers?state=quarantined")


@console_view(SUBSCRIBERS + "/{subscriber_id}/reactivate", ("POST",))
def reactivate_subscriber(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    subscriber = subscribers.find(page.id, screen.request.params["subscriber_id"])
    subscribers.reactivate(subscriber)
    return redirect(f"{BASE}/pages/{page.id}/subscribers?state=active")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


@console_view(SUBSCRIBERS + "/export")
def export_subscribers(screen: Screen) -> Response:
    """The list as the filters choose it, whole, as CSV (reads every entry it holds)."""
    page = screen.page(screen.request.params["page_id"])
    chosen = _filters(screen)
    found = subscribers.listed(
        page.id, kind=chosen["kind"], state=chosen["state"], text=chosen["text"]
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "type", "address", "state", "components", "created_at"])
    for subscriber in found:
        writer.writerow(
            [
                _cell(value)
                for value in (
                    subscriber.id,
                    subscriber.kind,
                    subscribers.address_of(subscriber),
                    subscriber.state,
                    " ".join(subscriber.component_ids or []),
                    clock.iso(subscriber.created_at),
                )
            ]
        )
    headers = {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": f'attachment; filename="subscribers-{page.id}.csv"',
        "Cache-Control": "no-store",
        **security.for_data(),
    }
    return Response(body=out.getvalue(), status_code=200, headers=headers)
