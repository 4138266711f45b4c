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
    environment.globals.update(
        status_labels=STATUS_LABELS,
        update_labels=UPDATE_LABELS,
        levels=LEVELS,
        kind_labels=KIND_LABELS,
        stylesheet=Markup((_HERE / "static" / "console.css").read_text()),
        # A form shown again, refused: its problems in words by field, and what was typed.
        problems={},
        typed={},
    )
    return environment


def _moment(context, value) -> str:
    """A time (stored, or as the API writes it) as the console shows it: in the zone of the
    page the screen is about (`zone`, set by `Screen.render`), to the minute."""
    return times.shown(value, context.get("zone"))


def _local_input(context, value) -> str:
    """A time as a `datetime-local` field's value, in the screen's page's zone."""
    return times.input_value(value, context.get("zone"))


def render(template_name: str, /, **context) -> str:
    return _environment().get_template(template_name).render(**context)
