"""WCAG contrast (issue 32, item 5): the arithmetic, the default palette, the text drawn on an
owner's colour and the dark theme derived from the owner's palette."""

import itertools

import pytest

from chalicelib.domain import contrast, pages
from chalicelib.public import theme

# Statuspage's palette, which this service used to default to.
STATUSPAGE_COLORS = {
    **pages.DEFAULT_COLORS,
    "css_light_font_color": "#aaaaaa",
    "css_greens": "#2fcc66",
    "css_yellows": "#f1c40f",
    "css_oranges": "#e67e22",
    "css_blues": "#3498db",
    "css_reds": "#e74c3c",
    "css_link_color": "#3498db",
}


def test_luminance_runs_from_black_to_white():
    assert contrast.relative_luminance("#000000") == 0
    assert contrast.relative_luminance("#ffffff") == pytest.approx(1)
    assert contrast.relative_luminance("#fff") == contrast.relative_luminance("#FFFFFF")
    # WCAG's own example: sRGB 50 % grey is far darker than half the light.
    assert contrast.relative_luminance("#808080") == pytest.approx(0.2159, abs=1e-4)


def test_the_ratio_is_symmetric_and_bounded():
    assert contrast.contrast_ratio("#000", "#fff") == pytest.approx(21)
    assert contrast.contrast_ratio("#fff", "#000") == pytest.approx(21)
    assert contrast.contrast_ratio("#3498db", "#3498db") == 1


@pytest.mark.parametrize(
    ("color", "shown"),
    [("#f1c40f", "1.66:1"), ("#2fcc66", "2.11:1"), ("#aaaaaa", "2.32:1"), ("#3498db", "3.15:1")],
)
def test_the_colours_the_issue_measured_on_white(color, shown):
    assert contrast.ratio_label(contrast.contrast_ratio(color, "#ffffff")) == shown


def test_a_ratio_just_short_of_the_mark_is_not_rounded_up_to_it():
    assert contrast.ratio_label(4.4999) == "4.49:1"


def test_the_default_palette_passes_aa_and_statuspages_did_not():
    assert pages.color_warnings(pages.DEFAULT_COLORS) == []
    warned = {warning.field for warning in pages.color_warnings(STATUSPAGE_COLORS)}
    assert warned == {
        "css_light_font_color",
        "css_greens",
        "css_yellows",
        "css_oranges",
        "css_blues",
        "css_reds",
        "css_link_color",
    }


def test_the_embed_badges_default_colours_pass_aa():
    config = pages.DEFAULT_EMBED_CONFIG
    for kind in ("incident", "maintenance"):
        ratio = contrast.contrast_ratio(
            config[f"{kind}_text_color"], config[f"{kind}_background_color"]
        )
        assert ratio >= contrast.AA_TEXT


def _every_so_often() -> list[str]:
    levels = range(0, 256, 17)
    return [contrast.hex_of(*rgb) for rgb in itertools.product(levels, repeat=3)]


def test_text_on_any_colour_is_black_or_white_and_passes_aa():
    for color in _every_so_often():
        text = contrast.text_on(color)
        assert text in (contrast.BLACK, contrast.WHITE)
        assert contrast.contrast_ratio(text, color) >= 4.58


def test_text_on_the_yellow_is_black_and_on_the_dark_red_white():
    assert contrast.text_on("#f1c40f") == contrast.BLACK
    assert contrast.text_on("#c0392b") == contrast.WHITE


def test_a_readable_colour_is_kept_and_another_moved_just_enough():
    assert contrast.readable_on("#1E8449", "#ffffff") == "#1e8449"
    moved = contrast.readable_on("#f1c40f", "#ffffff")
    assert contrast.contrast_ratio(moved, "#ffffff") >= 4.5
    red, green, blue = contrast.channels(moved)
    assert red > green > blue  # still a yellow-orange, darker
    lighter = contrast.readable_on("#1e8449", "#15171c")
    assert contrast.contrast_ratio(lighter, "#15171c") >= 4.5
    assert contrast.relative_luminance(lighter) > contrast.relative_luminance("#1e8449")


@pytest.mark.parametrize("colors", [pages.DEFAULT_COLORS, STATUSPAGE_COLORS])
def test_every_text_of_the_theme_passes_aa(colors):
    shown = theme.theme_of(colors)
    for properties in (shown.light, shown.dark):
        for name in theme.FILLED:
            on = contrast.contrast_ratio(properties[f"on-{name}"], properties[f"{name}-fill"])
            assert on >= contrast.AA_TEXT, name
    dark = shown.dark
    for name in ("font", "light-font", "link", "greens", "yellows", "oranges", "blues", "reds"):
        assert contrast.contrast_ratio(dark[name], dark["body-bg"]) >= contrast.AA_TEXT, name
    assert contrast.contrast_ratio(dark["graph"], dark["body-bg"]) >= contrast.AA_GRAPHIC
    assert contrast.contrast_ratio(dark["field-border"], dark["field-bg"]) >= contrast.AA_GRAPHIC
    light = shown.light
    assert contrast.contrast_ratio(light["field-border"], light["body-bg"]) >= contrast.AA_GRAPHIC


def test_the_light_theme_is_the_owners_palette_as_chosen():
    shown = theme.theme_of(STATUSPAGE_COLORS)
    assert shown.light["yellows"] == "#f1c40f" and shown.light["yellows-fill"] == "#f1c40f"
    assert shown.dark["yellows-fill"] == "#f1c40f"  # the banner keeps the owner's colour
    assert shown.light["on-yellows"] == contrast.BLACK
