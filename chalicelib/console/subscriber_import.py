"""Importing email subscribers from CSV in the console: a file (multipart/form-data) or pasted
text, one subscriber a line, `email[,components]`, under an optional header line. A preview
lists the rows to add and each refused row (its number, its value, why); the confirmation
reads the same text again and adds the good rows through the API's create, so an address
subscribed meanwhile is skipped, never added twice (its claim refuses a second subscriber). An
address that unsubscribed from the page is refused: a list does not add back who left."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from chalice import Response

from chalicelib import schemas
from chalicelib.console.subscribers import (
    SUBSCRIBERS,
    back_to_list,
    component_choices,
    form_object,
)
from chalicelib.console.views import Screen, console_view, page_heading
from chalicelib.domain import subscribers
from chalicelib.domain.errors import Invalid
from chalicelib.domain.organizations import PAGE_CONFIGURATION
from chalicelib.http import errors
from chalicelib.http.inputs import plain
from chalicelib.http.multipart import UploadedFile

IMPORT = SUBSCRIBERS + "/import"
# Each row is one create (a transaction, and a confirmation email unless skipped): a bound
# that keeps one import within a request's time.
MAX_ROWS = 200
HEADER = "email"
SHOWN_CHARACTERS = 120


@dataclass(frozen=True)
class Row:
    number: int  # the file's line: the header, if any, is line 1
    email: str
    component_ids: tuple[str, ...]


@dataclass(frozen=True)
class Refused:
    number: int
    value: str
    why: str


@dataclass
class Plan:
    rows: list[Row] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def _text(screen: Screen) -> str:
    """The CSV: the file chosen, else the text pasted."""
    chosen = form_object(screen, "import")
    upload = chosen.get("file")
    if isinstance(upload, UploadedFile):
        try:
            return upload.content.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise errors.invalid("file", "must be CSV text in UTF-8") from None
    text = chosen.get("csv")
    if not isinstance(text, str) or not text.strip():
        raise errors.invalid("csv", "paste the CSV or choose a file")
    return text


def _skip_confirmation(screen: Screen) -> bool:
    """The API's `skip_confirmation_notification`, as its schema reads it."""
    flag = form_object(screen, "import").get("skip_confirmation_notification") or "false"
    body = {"skip_confirmation_notification": flag}
    return errors.validated(schemas.SubscriberFields, body).skip_confirmation_notification


def _component_ids(cell: str, known: dict[str, str]) -> list[str]:
    """A cell's components: names or ids separated by `;`, or ids separated by spaces (as the
    export writes them). `known`: lowercased names and ids to ids."""
    found: list[str] = []
    for piece in (p.strip() for p in cell.split(";")):
        if not piece:
            continue
        if piece.lower() in known:
            found.append(known[piece.lower()])
            continue
        words = piece.split()
        unknown = [w for w in words if w.lower() not in known]
        if unknown:
            raise ValueError(f"names no component of this page: {unknown[0]}")
        found += [known[w.lower()] for w in words]
    return list(dict.fromkeys(found))


def _email(value: str) -> str | None:
    try:
        return errors.validated(schemas.SubscriberFields, {"email": value}).email
    except errors.ApiError:
        return None


def _shown(value: str) -> str:
    """A refused value as the preview shows it: a long one cut short."""
    return value if len(value) <= SHOWN_CHARACTERS else value[: SHOWN_CHARACTERS - 1] + "…"


def _records(text: str) -> list[tuple[int, list[str]]]:
    """The CSV's lines that hold something, numbered as in the file, without its header."""
    try:
        read = list(enumerate(csv.reader(io.StringIO(text)), 1))
    except csv.Error as error:
        raise errors.invalid("csv", f"is not CSV ({error})") from None
    records = [(number, cells) for number, cells in read if cells]
    if records and records[0][1][0].strip().lower() == HEADER:
        records = records[1:]
    if len(records) > MAX_ROWS:
        raise errors.invalid("csv", f"has more than {MAX_ROWS} rows: import it in parts")
    return records


def _why_refused(cells: list[str], email: str | None, first_row: dict[str, int]) -> str | None:
    if len(cells) > 2:
        return "has more than two columns (email, components)"
    if email is None:
        return "is not an email address"
    if email.lower() in first_row:
        return f"is a duplicate of row {first_row[email.lower()]}"
    return None


def plan(page_id: str, text: str) -> Plan:
    """Which lines of `text` would be added, and which are refused and why."""
    known: dict[str, str] = {}
    for component in component_choices(page_id):
        known[component["name"].lower()] = component["id"]
        known[component["id"].lower()] = component["id"]
    result = Plan()
    first_row: dict[str, int] = {}
    for number, cells in _records(text):
        while len(cells) > 1 and not cells[-1].strip():
            cells = cells[:-1]  # a spreadsheet's empty trailing columns
        value = cells[0].strip()
        email = _email(value)
        why = _why_refused(cells, email, first_row)
        component_ids: list[str] = []
        if why is None:
            try:
                component_ids = _component_ids(cells[1] if len(cells) > 1 else "", known)
            except ValueError as error:
                why = str(error)
        if why is not None or email is None:
            result.refused.append(Refused(number, _shown(value), why or ""))
            continue
        first_row[email.lower()] = number
        result.rows.append(Row(number, email, tuple(component_ids)))
    emails = [row.email for row in result.rows]
    taken = subscribers.subscribed_emails(page_id, emails)
    # Someone who left is not added back by someone else's list (they may subscribe again
    # themselves, on the public page).
    left = subscribers.unsubscribed_emails(page_id, emails) - taken
    for row in result.rows:
        if row.email.lower() in taken:
            result.refused.append(Refused(row.number, row.email, subscribers.ALREADY_SUBSCRIBED))
        elif row.email.lower() in left:
            result.refused.append(Refused(row.number, row.email, subscribers.UNSUBSCRIBED_EARLIER))
    refused = taken | left
    result.rows = [row for row in result.rows if row.email.lower() not in refused]
    result.refused.sort(key=lambda refused: refused.number)
    return result


@console_view(IMPORT)
def import_form(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    return screen.render("subscriber_import.html", page=page_heading(page), max_rows=MAX_ROWS)


@console_view(IMPORT, ("POST",))
def import_preview(screen: Screen) -> Response:
    """What the import would do; nothing is written yet."""
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    text = _text(screen)
    names = {c["id"]: c["name"] for c in component_choices(page.id)}
    return screen.render(
        "subscriber_import_preview.html",
        page=page_heading(page),
        plan=plan(page.id, text),
        names=names,
        text=text,
        skip_confirmation=_skip_confirmation(screen),
    )


@console_view(IMPORT + "/confirm", ("POST",))
def import_confirmed(screen: Screen) -> Response:
    page = screen.page(screen.request.params["page_id"], PAGE_CONFIGURATION)
    skip = _skip_confirmation(screen)
    added = skipped = 0
    for row in plan(page.id, _text(screen)).rows:
        body = {
            "email": row.email,
            "component_ids": list(row.component_ids) or None,
            "skip_confirmation_notification": skip,
        }
        try:
            fields = errors.validated(schemas.SubscriberFields, body)
            subscribers.create(page, plain(fields, subscribers.SubscriberInput))
        except Invalid as error:
            if error.problems != {"email": [subscribers.ALREADY_SUBSCRIBED]}:
                raise
            skipped += 1  # subscribed since the preview
            continue
        added += 1
    done = f"Imported {added} subscriber{'s' if added != 1 else ''}"
    if skipped:
        done += f", skipped {skipped} already subscribed"
    return back_to_list(page.id, done)
