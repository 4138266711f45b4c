"""The Jinja2 environment of every page and email this service renders for people. Jinja2 is
imported when the first environment is built, not when the app is imported."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.domain.markdown_text import render_html

if TYPE_CHECKING:
    from jinja2 import Environment


def environment_for(folder: Path) -> Environment:
    """A Jinja2 environment over the templates in `folder`, as everything this service renders
    for people uses: autoescaped, strict about names, with the `markdown` filter (rendered and
    sanitized) and `web_url`."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined
    from markupsafe import Markup

    environment = Environment(
        loader=FileSystemLoader(folder),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
    )
    environment.filters["markdown"] = lambda text: Markup(render_html(text or ""))
    environment.filters["web_url"] = is_web_url
    return environment


def is_web_url(value: str | None) -> bool:
    return bool(value) and str(value).startswith(("https://", "http://"))
