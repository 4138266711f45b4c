"""An email's two bodies, plain text and HTML, made from one *letter*: what the email says,
whoever it goes to.

A letter is a JSON-able dict the notification's content carries (`content.py` makes them):
`title`, `status` (an update status, shown as a badge colored by `impact`), `intro`, `body`
(Markdown), `lines` (plain paragraphs), `window` (a maintenance's start and end),
`components` (name and status), `when`, `button` (`href`, `text`) and `personal` (whether the
footer has the reader's manage and unsubscribe links); all but `title` may be left out. It is rendered once per event; the reader's own links are markers in both bodies that
the delivery swaps for each recipient's (`personalize`), a string replace per recipient.

The HTML is a Jinja2 template (autoescaped: everything the page's people wrote is escaped;
the update body is Markdown rendered and sanitized), laid out with tables and inline styles as
mail clients need, in the page's colors, with its logo and its time zone. Jinja2 comes with
the first email rendered, not with the app's import.
"""

from __future__ import annotations

import secrets
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.domain import markdown_text
from chalicelib.domain.pages import COLOR_FIELDS
from chalicelib.web import times
from chalicelib.web.colors import colors_of
from chalicelib.web.labels import STATUS_LABELS, UPDATE_LABELS
from chalicelib.web.templates import environment_for

if TYPE_CHECKING:
    from jinja2 import Environment

_TEMPLATES = Path(__file__).parent / "templates"
UNSUBSCRIBE, MANAGE = "unsubscribe", "manage"
# The badge of an update status, by the page color it is drawn in; an incident that is not
# over takes the color of its impact.
_SETTLED_COLORS = {
    "resolved": "css_greens",
    "completed": "css_greens",
    "scheduled": "css_blues",
    "in_progress": "css_blues",
    "verifying": "css_blues",
    "postmortem": "css_blues",
}
_IMPACT_COLORS = {"critical": "css_reds", "major": "css_oranges", "minor": "css_yellows"}
_LETTER = dict.fromkeys(
    (
        "status",
        "impact",
        "intro",
        "body",
        "lines",
        "window",
        "components",
        "when",
        "button",
        "personal",
    )
)
_COMPONENT_COLORS = {
    "operational": "css_greens",
    "degraded_performance": "css_yellows",
    "partial_outage": "css_oranges",
    "major_outage": "css_reds",
    "under_maintenance": "css_blues",
}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return environment_for(_TEMPLATES)


def brand_of(profile: dict) -> dict:
    """What an email shows of its page: name, logo, colors (checked again: they go into style
    attributes), time zone, address and the team's footer."""
    return {
        "name": profile.get("name") or "",
        "logo": profile.get("transactional_logo"),
        "colors": colors_of({"colors": {name: profile.get(name) for name in COLOR_FIELDS}}),
        "time_zone": profile.get("time_zone") or "Etc/UTC",
        "footer": profile.get("notifications_email_footer") or "",
    }


def badge_color(status: str | None, impact: str | None, colors: dict) -> str:
    name = _SETTLED_COLORS.get(status or "") or _IMPACT_COLORS.get(impact or "", "css_yellows")
    return colors[name]


def markers() -> dict[str, str]:
    """Placeholders for the reader's own links, unguessable, so text a page's people wrote
    can never be taken for one."""
    nonce = secrets.token_hex(6)
    return {purpose: f"@@{purpose}-{nonce}@@" for purpose in (UNSUBSCRIBE, MANAGE)}


def personalize(body: str, links: dict[str, str], recipient: dict) -> str:
    """`body` with the recipient's own links in place of the markers."""
    for purpose, marker in links.items():
        body = body.replace(marker, recipient.get(purpose) or "")
    return body


# A component an incident names without giving it a status.
NAMED_ONLY = "Affected"


def component_label(component: dict) -> str:
    """A letter's component as its email and chat messages say it: its status, and the note
    beside it (`still affected by ...`)."""
    status = component.get("status") or ""
    label = STATUS_LABELS.get(status, status) or NAMED_ONLY
    return f"{label}, {component['note']}" if component.get("note") else label


def render(letter: dict, brand: dict, links: dict[str, str]) -> tuple[str, str]:
    """The letter as (plain text, HTML); `links`: the markers of the reader's own links."""
    letter = {**_LETTER, **letter}
    local_time = times.time_formatter(brand["time_zone"])
    colors = brand["colors"]
    components = [
        {
            **component,
            "label": component_label(component),
            "color": colors[_COMPONENT_COLORS.get(component["status"], "css_no_data")],
        }
        for component in letter["components"] or []
    ]
    status = letter["status"]
    shown = {
        "letter": letter,
        "brand": brand,
        "colors": colors,
        "status_label": UPDATE_LABELS.get(status, status) if status else None,
        "badge_color": badge_color(status, letter["impact"], colors),
        "components": components,
        "when": local_time(letter["when"]),
        "window": [local_time(moment) for moment in letter["window"] or []],
        "links": links if letter["personal"] else {},
    }
    page = _environment().get_template("email.html").render(**shown)
    return _text(shown), page


def _text(shown: dict) -> str:
    letter, brand, links = shown["letter"], shown["brand"], shown["links"]
    lines = []
    if letter["intro"]:
        lines += [letter["intro"], ""]
    lines.append(letter["title"])
    if shown["status_label"]:
        lines.append(f"Status: {shown['status_label']}")
    if shown["window"]:
        lines.append(f"Scheduled: {shown['window'][0]} until {shown['window'][1]}")
    lines.append("")
    # The body is Markdown: the text part says what the HTML part shows, not `**`.
    body = markdown_text.render_text(letter["body"] or "")
    if body:
        lines += [body, ""]
    for line in letter["lines"] or []:
        lines += [line, ""]
    if shown["components"]:
        lines.append("Affected components:")
        lines += [f"- {c['name']}: {c['label']}" for c in shown["components"]]
        lines.append("")
    if shown["when"]:
        lines += [f"Posted {shown['when']}", ""]
    if letter["button"]:
        lines += [f"{letter['button']['text']}: {letter['button']['href']}", ""]
    lines.append("--")
    if brand["footer"]:
        lines += [textwrap.dedent(brand["footer"]).strip(), ""]
    if links:
        lines.append(f"Manage your subscription: {links[MANAGE]}")
        lines.append(f"Unsubscribe: {links[UNSUBSCRIBE]}")
    else:
        lines.append(f"Sent by {brand['name']}")
    return "\n".join(lines) + "\n"
