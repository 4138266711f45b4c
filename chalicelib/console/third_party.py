"""Third-party components in the console: the page's components that follow a component of
another status page, following more, and stopping.

Following is the API's: a component created with `third_party` (the source's summary.json URL
and the followed component's id), by its domain function (`components.create_component`),
which refuses an address that is not public; stopping is an update that clears `third_party`.
To offer the source's components by name, the console reads its summary.json first, as the
scheduled poll reads it (the same outbound rules: public addresses only, no redirects, a
size limit).
"""

from __future__ import annotations

from urllib.parse import urlencode

from chalice import Response

from chalicelib import net, schemas
from chalicelib.console.views import BASE, Screen, console_view, page_heading, redirect
from chalicelib.domain import components, third_party
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.notify import webhook

THIRD_PARTY = "/pages/{page_id}/third-party"
URL_FIELD = "third_party.summary_url"


def _back(page_id: str, done: str) -> Response:
    where = THIRD_PARTY.format(page_id=page_id)
    return redirect(f"{BASE}{where}?{urlencode({'done': done})}")


@console_view(THIRD_PARTY)
def show_followed(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"])
    records = components.components_of(page.id, consistent=True)
    return screen.render(
        "third_party.html",
        page=page_heading(page),
        followed=[record for record in records if record.third_party_url],
        can_write=screen.may(page.id, PAGE_CONFIGURATION),
        done=screen.request.query.get("done", ""),
    )


def _summary_url(screen: Screen) -> str:
    """The form's source address, checked as the API checks a `third_party` link's (the
    component to follow is chosen next: a stand-in id passes meanwhile)."""
    url = screen.form.get("summary_url")
    link = {"summary_url": url.strip() if isinstance(url, str) else url, "component_id": "-"}
    body = errors.validated(
        schemas.ComponentUpdate, {"component": {"third_party": link}}, "component"
    )
    return body.component.third_party.summary_url


@console_view(THIRD_PARTY + "/source", ("POST",))
def read_source(screen: Screen) -> Response:
    """The source page's components, to choose from (a POST: it calls out to the source)."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    url = _summary_url(screen)
    if not net.may_call(url):
        raise errors.unprocessable({URL_FIELD: ["must resolve to a public address"]})
    listed = third_party.components_of(webhook.fetch(url, third_party.MAX_SUMMARY_BYTES))
    if listed is None:
        problem = "did not answer with a status page's summary.json"
        raise errors.unprocessable({URL_FIELD: [problem]})
    offered = [
        {
            "id": component["id"],
            "name": component.get("name") if isinstance(component.get("name"), str) else "",
            "status": component.get("status"),
        }
        for component in listed
    ]
    return screen.render("third_party_pick.html", page=page_heading(page), url=url, offered=offered)


@console_view(THIRD_PARTY, ("POST",), again=show_followed)
def follow(screen: Screen) -> Response:
    """A component following each source component chosen, named as the form names it."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    rows = screen.form.get("follow")
    chosen = [
        row
        for row in (rows if isinstance(rows, list) else [])
        if isinstance(row, dict) and row.get("chosen") == "true"
    ]
    if not chosen:
        raise errors.unprocessable({"follow": ["choose at least one component to follow"]})
    url = screen.form.get("summary_url")
    bodies = [
        errors.validated(
            schemas.ComponentCreate,
            {
                "component": {
                    "name": row.get("name") or row.get("component_id"),
                    "third_party": {"summary_url": url, "component_id": row.get("component_id")},
                }
            },
            "component",
        ).component
        for row in chosen
    ]
    for fields in bodies:
        components.create_component(page.id, plain(fields, components.ComponentInput))
    names = ", ".join(fields.name for fields in bodies)
    return _back(page.id, f"Now following: {names}")


@console_view(THIRD_PARTY + "/{component_id}/stop", ("POST",))
def stop_following(screen: Screen) -> Response:
    """The component stays, with the status it has, and no longer follows its source."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    records = components.components_of(page.id, consistent=True)
    record = components.find(records, screen.request.params["component_id"], group=False)
    if not record.third_party_url:
        raise errors.not_found()
    body = errors.validated(schemas.ComponentUpdate, {"component": {"third_party": None}})
    fields = plain(body.component, components.ComponentInput)
    written = components.update_component(page.id, record.id, fields)
    return _back(page.id, f"{written.record.name} no longer follows its source")
