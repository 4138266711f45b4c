"""Postmortems in the console: write the Markdown draft with a preview (rendered by the
server, so it needs no script), save it, publish it, revert it to a draft. The role and the
domain functions are the API's (`incident_manager`; `postmortems.save_draft`,
`publish_on_page`, `revert`)."""

from __future__ import annotations

from chalice import Response

from chalicelib import schemas
from chalicelib.console.views import BASE, Screen, console_view, redirect
from chalicelib.domain import incidents, organizations, pages, postmortems
from chalicelib.http import errors
from chalicelib.http.inputs import plain

INCIDENT_MANAGER = organizations.INCIDENT_MANAGER
POSTMORTEM = "/pages/{page_id}/incidents/{incident_id}/postmortem"


def _ids(screen: Screen) -> tuple[str, str]:
    return screen.request.params["page_id"], screen.request.params["incident_id"]


def _screen(screen: Screen, draft: str | None = None, preview: bool = False) -> Response:
    page_id, incident_id = _ids(screen)
    page = screen.page(page_id, INCIDENT_MANAGER)
    record = incidents.get_record(page.id, incident_id)
    postmortem = postmortems.postmortem_of(record) or {}
    text = (postmortem.get("body_draft") or "") if draft is None else draft
    return screen.render(
        "postmortem.html",
        page={"id": page.id, "name": pages.profile_of(page).get("name", "")},
        incident={"id": record.id, "name": record.name or ""},
        postmortem=postmortem,
        draft=text,
        preview=preview,
    )


@console_view(POSTMORTEM)
def show_postmortem(screen: Screen) -> Response:
    return _screen(screen)


@console_view(POSTMORTEM, ("POST",), again=show_postmortem)
def save_postmortem(screen: Screen) -> Response:
    """`Preview` shows the text as the page will (nothing saved); `Save draft` saves it."""
    draft = screen.form.get("body_draft")
    if not isinstance(draft, str):
        raise errors.unprocessable({"body_draft": ["is missing"]})
    if screen.form.get("action") == "preview":
        return _screen(screen, draft, preview=True)
    page_id, incident_id = _ids(screen)
    screen.page(page_id, INCIDENT_MANAGER)
    body = {"postmortem": {"body_draft": draft}}
    fields = errors.validated(schemas.PostmortemDraft, body, "postmortem").postmortem
    postmortems.save_draft(page_id, incident_id, fields.body_draft)
    return redirect(f"{BASE}{POSTMORTEM.format(page_id=page_id, incident_id=incident_id)}")


@console_view(POSTMORTEM + "/publish", ("POST",), again=show_postmortem)
def publish_postmortem(screen: Screen) -> Response:
    """Publish the text the form holds (the write form's own Publish button posts it here),
    saved as the draft in the same change; without a text, the saved draft."""
    page_id, incident_id = _ids(screen)
    page = screen.page(page_id, INCIDENT_MANAGER)
    body = {"postmortem": screen.form.get("postmortem") or {}}
    parsed = errors.validated(schemas.PostmortemPublish, body, "postmortem").postmortem
    text = screen.form.get("body_draft")
    if text is not None:
        draft = {"postmortem": {"body_draft": text}}
        text = errors.validated(schemas.PostmortemDraft, draft, "postmortem").postmortem.body_draft
    options = plain(parsed, postmortems.PublishOptions)
    postmortems.publish_on_page(page, incident_id, options, body_draft=text)
    return redirect(f"{BASE}{POSTMORTEM.format(page_id=page_id, incident_id=incident_id)}")


@console_view(POSTMORTEM + "/revert", ("POST",))
def revert_postmortem(screen: Screen) -> Response:
    page_id, incident_id = _ids(screen)
    screen.page(page_id, INCIDENT_MANAGER)
    postmortems.revert(page_id, incident_id)
    return redirect(f"{BASE}{POSTMORTEM.format(page_id=page_id, incident_id=incident_id)}")
