"""The Markdown preview the console's script asks for as an incident's message is typed:
the text rendered by the public page's Markdown filter (sanitized), nothing saved. The
postmortem form has its own Preview, which the script asks instead."""

from __future__ import annotations

from chalice import Response

from chalicelib.console.views import Screen, console_view


@console_view("/markdown", ("POST",))
def preview_markdown(screen: Screen) -> Response:
    text = screen.form.get("text")
    return screen.render("markdown.html", text=text if isinstance(text, str) else "")
