"""The page's colours as the style sheet's custom properties (`--greens`, `--on-greens`, ...),
for a light and a dark reader.

Light is the owner's palette as chosen (the settings warn about a colour below WCAG AA).
Dark is ours: a dark background and text, and each of the owner's colours moved toward white
as far as it must be to read on that background. The status banner and the buttons are
filled with the owner's colour as chosen in both (`--{name}-fill`), and the text on them is
black or white, whichever contrasts more with it (`--on-{name}`).
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.domain import contrast

# The colours the page fills a banner or a button with, by their property's name.
FILLED = ("greens", "yellows", "oranges", "blues", "reds", "link")
# What is text on the background (4.5:1) and what a graphic or a control's edge (3:1).
_TEXT = ("font", "light-font", "greens", "yellows", "oranges", "blues", "reds", "link")
_GRAPHIC = ("graph", "field-border")
# The dark theme's own background, text and lines.
DARK = {
    "body-bg": "#15171c",
    "font": "#e4e6eb",
    "light-font": "#a0a6b1",
    "border": "#2c313a",
    "field-bg": "#1e2128",
    "field-border": "#6b7280",
}
# Each property and the page field it comes from.
FIELDS = {
    "body-bg": "css_body_background_color",
    "font": "css_font_color",
    "light-font": "css_light_font_color",
    "greens": "css_greens",
    "yellows": "css_yellows",
    "oranges": "css_oranges",
    "blues": "css_blues",
    "reds": "css_reds",
    "border": "css_border_color",
    "graph": "css_graph_color",
    "link": "css_link_color",
    "no-data": "css_no_data",
}


@dataclass(frozen=True)
class Theme:
    light: dict[str, str]
    dark: dict[str, str]


def theme_of(colors: dict[str, str]) -> Theme:
    """The properties of a page whose colours (each checked: a `#rrggbb`) are `colors`."""
    light = {name: colors[field].lower() for name, field in FIELDS.items()}
    background = light["body-bg"]
    # A form field's edge is a control's: 3:1 on the page, whatever the border colour.
    light["field-bg"] = background
    light["field-border"] = contrast.readable_on(light["border"], background, contrast.AA_GRAPHIC)
    dark = {**light, **DARK}
    for name in _TEXT:
        dark[name] = contrast.readable_on(dark[name], DARK["body-bg"], contrast.AA_TEXT)
    for name in _GRAPHIC:
        dark[name] = contrast.readable_on(dark[name], DARK["body-bg"], contrast.AA_GRAPHIC)
    fills = {f"{name}-fill": light[name] for name in FILLED}
    fills.update({f"on-{name}": contrast.text_on(light[name]) for name in FILLED})
    return Theme({**light, **fills}, {**dark, **fills})
