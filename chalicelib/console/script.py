"""The console's one script (`static/console.js`), served from the console's own origin so
the content security policy allows it by `script-src 'self'` and no inline script is needed.
It only enhances: every screen works without it."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from chalice import Response

from chalicelib.console.views import Screen, console_view
from chalicelib.web import security

_FILE = Path(__file__).parent / "static" / "console.js"
# The whole-group choice of a component picker, the public subscribe form's own script.
_GROUP_CHOICES = Path(__file__).parents[1] / "public" / "static" / "group_choices.js"


@lru_cache(maxsize=1)
def _text() -> str:
    return _FILE.read_text() + "\n" + _GROUP_CHOICES.read_text()


@console_view("/console.js", signed_in=False)
def console_script(screen: Screen) -> Response:
    headers = {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "public, max-age=300",
        **security.for_data(),
    }
    return Response(body=_text(), status_code=200, headers=headers)
