"""The console's screens as HTML: Jinja2 templates, autoescaped (everything a user wrote is
escaped), styled by one inline style sheet the content security policy allows by its hash.
Jinja2 is imported on the first screen rendered, not when the app is imported."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.console import times
from chalicelib.domain import chat_platforms
from chalicelib.web.labels import LEVELS, STATUS_LABELS, UPDATE_LABELS
from chalicelib.web.templates import environment_for

if TYPE_CHECKING:
    from jinja2 import Environment

_HERE = Path(__file__).parent
# Each kind of subscriber as the screens name it.
KIND_LABELS = {
    "email": "Email",
    "sms": "Text message",
    "webhook": "Webhook",
    **chat_platforms.LABELS,
}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    from jinja2 import pass_context
    from markupsafe import Markup

    environment = environment_for(_HERE / "templates")
    environment.filters["moment"] = pass_context(_moment)
    environment.filters["local_input"] = pass_context(_local_input)
    environment.filters["at"] = typed_at
    environment.globals.update(
        status_labels=STATUS_LABELS,
        update_labels=UPDATE_LABELS,
        levels=LEVELS,
        kind_labels=KIND_LABELS,
        stylesheet=Markup((_HERE / "static" / "console.css").read_text()),
        # A form shown again, refused: its problems in words by field, and what was typed.
        problems={},
        typed={},
        field_of=field_of,
    )
    return environment


def typed_at(typed: dict, name: str):
    """What a refused form held in its field `name` (`page[name]`, `metric[suffix]`), or
    None when the form posted no such field (it is another form of the screen)."""
    value = typed
    for key in name.replace("]", "").split("["):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def field_of(name: str) -> str:
    """The API's name of a form field (`page[name]`: `name`), as problems are keyed."""
    return name.replace("]", "").split("[")[-1]


def _moment(context, value) -> str:
    """A time (stored, or as the API writes it) as the console shows it: in the zone of the
    page the screen is about (`zone`, set by `Screen.render`), to the minute."""
    return times.shown(value, context.get("zone"))


def _local_input(context, value) -> str:
    """A time as a `datetime-local` field's value, in the screen's page's zone."""
    return times.input_value(value, context.get("zone"))


def render(template_name: str, /, **context) -> str:
    return _environment().get_template(template_name).render(**context)
