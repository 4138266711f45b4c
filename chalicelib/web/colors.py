"""A page's colours as the public page's style sheet and the emails' style attributes take
them: each checked again, a colour that is not `#rgb` or `#rrggbb` replaced by its default."""

import re

from chalicelib.domain.pages import DEFAULT_COLORS

_HEX_COLOR = re.compile(r"^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$")


def colors_of(page: dict) -> dict:
    """The page's colors, each checked again: they go into a style sheet."""
    return {
        name: value if isinstance(value, str) and _HEX_COLOR.match(value) else DEFAULT_COLORS[name]
        for name, value in {**DEFAULT_COLORS, **page["colors"]}.items()
    }
