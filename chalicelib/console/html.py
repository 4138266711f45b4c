"""The console's screens as HTML: Jinja2 templates, autoescaped (everything a user wrote is
escaped), styled by one inline style sheet the content security policy allows by its hash.
Jinja2 is imported on the first screen rendered, not when the app is imported."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.public.html import LEVELS, STATUS_LABELS, UPDATE_LABELS, environment_for

if TYPE_CHECKING:
    from jinja2 import Environment

_HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def _environment() -> Environment:
    from markupsafe import Markup

    environment = environment_for(_HERE / "templates")
    environment.filters["moment"] = _moment
    environment.globals.update(
        status_labels=STATUS_LABELS,
        update_labels=UPDATE_LABELS,
        levels=LEVELS,
        stylesheet=Markup((_HERE / "static" / "console.css").read_text()),
    )
    return environment


def _moment(value) -> str:
    """A time (stored, or as the API writes it) as the console shows it: UTC, to the
    minute."""
    if not value:
        return ""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def render(template_name: str, /, **context) -> str:
    return _environment().get_template(template_name).render(**context)
