"""Subscribers in the console: the list (by state, kind, search; a screen of rows at a time),
one subscriber with its components, and each row's actions: unsubscribe, resend the
confirmation, quarantine, reactivate; export as CSV. The lists read the subscriber listing
entries as the API's lists do, and every change is the API's domain call under
`page_configuration` (adding is `subscriber_adding`, importing `subscriber_import`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from urllib.parse import urlencode

from chalice import Response

from chalicelib import clock, schemas
from chalicelib.console import html
from chalicelib.console.views import (
    BASE,
    Screen,
    confirmation,
    confirmed,
    console_view,
    page_heading,
    redirect,
)
from chalicelib.domain import chat_platforms, components, incidents, pages, subscribers
from chalicelib.domain import component_choices as by_group
from chalicelib.domain.errors import NotFound
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.web import security

SUBSCRIBERS = "/pages/{page_id}/subscribers"
ONE = SUBSCRIBERS + "/{subscriber_id}"
PER_SCREEN = 50
STATES = ("active", "unconfirmed", "quarantined", "unsubscribed", "all")
KINDS = ("email", "sms", "webhook", *chat_platforms.PLATFORMS)
# A cell a spreadsheet would run as a formula starts with one of these: quoted as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _filters(screen: Screen) -> dict:
    query = screen.request.query
    state = query.get("state") if query.get("state") in STATES else "active"
    kind = query.get("type") if query.get("type") in KINDS else None
    number = int(query["page"]) if query.get("page", "").isdigit() else 0
    return {"state": state, "kind": kind, "text": query.get("q") or None, "number": number}


def _row(subscriber, component_names: dict[str, str]) -> dict:
    chosen = subscriber.component_ids or []
    return {
        "id": subscriber.id,
        "kind": subscriber.kind,
        "address": subscribers.address_of(subscriber),
        "state": subscriber.state,
        "created_at": subscriber.created_at,
        "quarantined_at": subscriber.quarantined_at,
        "incident_id": subscriber.incident_id,
        "components": [component_names.get(c, c) for c in chosen],
    }


def component_choices(page_id: str) -> list[dict]:
    """The components a subscriber may follow, in page order (groups are headings, not
    choices)."""
    return [{"id": c.id, "name": c.name} for c in components.components_of(page_id) if not c.group]


def component_sections(page_id: str) -> list[dict]:
    """The components a subscriber may follow, under their groups' headings."""
    return by_group.sections(by_group.listed_of(page_id))


def with_whole_groups(screen: Screen, page_id: str, chosen: object) -> object:
    """The components `chosen` (as posted), with every member of each group the form chose
    whole (`whole_groups[]`, which the form's script checks the members of)."""
    whole = by_group.ids_of(screen.form.get("whole_groups"))
    if not whole:
        return chosen
    return by_group.with_whole_groups(chosen, whole, by_group.listed_of(page_id))


def form_object(screen: Screen, wrapper: str) -> dict:
    """The form's `wrapper[...]` fields (none: empty); a plain value there is a 422."""
    fields = screen.form.get(wrapper, {})
    if not isinstance(fields, dict):
        raise errors.unprocessable({wrapper: ["must be fields, not a value"]})
    return fields


def form_text(screen: Screen, name: str) -> str:
    """The form's plain field `name` ("" when absent); nested fields there are a 422."""
    value = screen.form.get(name, "")
    if not isinstance(value, str):
        raise errors.unprocessable({name: ["must be a value"]})
    return value


def back_to_list(page_id: str, done: str, state: str = "all") -> Response:
    return redirect(
        f"{BASE}/pages/{page_id}/subscribers?{urlencode({'state': state, 'done': done})}"
    )


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
    names = {c["id"]: c["name"] for c in component_choices(page.id)}
    query = {"state": chosen["state"], "type": chosen["kind"] or "", "q": chosen["text"] or ""}
    return screen.render(
        "subscribers.html",
        page=page_heading(page),
        rows=[_row(s, names) for s in found[:PER_SCREEN]],
        more=len(found) > PER_SCREEN,
        chosen=chosen,
        states=STATES,
        kinds=KINDS,
        kind_labels=html.KIND_LABELS,
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


@console_view(ONE)
def show_subscriber(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    subscriber = subscribers.find(page.id, screen.request.params["subscriber_id"])
    choices = component_choices(page.id)
    incident_name = None
    if subscriber.incident_id:
        try:
            incident = incidents.get_incident(page.id, subscriber.incident_id)
            incident_name = incident.record.name
        except NotFound:
            incident_name = None  # deleted since: the subscriber hears of nothing more
    return screen.render(
        "subscriber_detail.html",
        page=page_heading(page),
        row=_row(subscriber, {c["id"]: c["name"] for c in choices}),
        sections=component_sections(page.id),
        chosen_ids=set(subscriber.component_ids or []),
        incident_name=incident_name,
        kind_labels=html.KIND_LABELS,
        can_write=screen.may(page.id, PAGE_CONFIGURATION),
        done=screen.request.query.get("done", ""),
    )


def _subscriber_to_change(screen: Screen):
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    return page, subscribers.find(page.id, screen.request.params["subscriber_id"])


@console_view(ONE + "/components", ("POST",))
def choose_components(screen: Screen) -> Response:
    """The API's update (`component_ids`), or every component: none chosen, as a page
    subscriber (what the subscriber's own manage link saves for "all")."""
    page, subscriber = _subscriber_to_change(screen)
    chosen: list[str] = []
    if form_text(screen, "scope") != "page":
        body = {"subscriber": form_object(screen, "subscriber")}
        fields = body["subscriber"]
        fields["component_ids"] = with_whole_groups(screen, page.id, fields.get("component_ids"))
        chosen = errors.validated(schemas.SubscriberUpdate, body, "subscriber").subscriber
        chosen = chosen.component_ids
    subscribers.set_components(page.id, subscriber, chosen)
    done = urlencode({"done": "Components saved"})
    return redirect(f"{BASE}/pages/{page.id}/subscribers/{subscriber.id}?{done}")


def _act(screen: Screen, act: Callable, done: str, state: str) -> Response:
    """`act(page, subscriber)`, the API's domain call, then the list of `state`, saying `done`
    with the subscriber's address."""
    page, subscriber = _subscriber_to_change(screen)
    act(page, subscriber)
    return back_to_list(page.id, f"{done} {subscribers.address_of(subscriber)}", state)


@console_view(ONE + "/unsubscribe", ("GET", "POST"))
def unsubscribe_subscriber(screen: Screen) -> Response:
    """Shown first as a confirmation naming the address (the console cannot subscribe it
    again, nor may an import); posted from there, the API's delete."""
    if not confirmed(screen):
        page, subscriber = _subscriber_to_change(screen)
        address = subscribers.address_of(subscriber)
        name = pages.profile_of(page).get("name", "")
        one = ONE.format(page_id=page.id, subscriber_id=subscriber.id)
        return confirmation(
            screen,
            page,
            action=one + "/unsubscribe",
            question=f"Unsubscribe {address} from {name}'s notifications?",
            consequence=(
                f"{address} hears of nothing more. This cannot be undone from the console:"
                " only they can subscribe again, and an import does not add them back."
            ),
            button=f"Unsubscribe {address}",
            cancel=SUBSCRIBERS.format(page_id=page.id),
        )
    return _act(screen, lambda _, one: subscribers.unsubscribe(one), "Unsubscribed", "unsubscribed")


@console_view(ONE + "/resend_confirmation", ("POST",))
def resend_confirmation(screen: Screen) -> Response:
    sent = "Confirmation sent again to"
    return _act(screen, subscribers.resend_confirmation, sent, "unconfirmed")


@console_view(ONE + "/quarantine", ("POST",))
def quarantine_subscriber(screen: Screen) -> Response:
    return _act(
        screen,
        lambda page, one: subscribers.quarantine_by_id(page.id, one.id),
        "Quarantined",
        "quarantined",
    )


@console_view(ONE + "/reactivate", ("POST",))
def reactivate_subscriber(screen: Screen) -> Response:
    return _act(screen, lambda _, one: subscribers.reactivate(one), "Reactivated", "active")


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
