"""Colour contrast as WCAG 2 measures it: the relative luminance of an sRGB colour and the
ratio of two (1:1 to 21:1). Level AA asks 4.5:1 of text and 3:1 of large text and of the
parts of a graphic a reader needs.

The public page draws text on an owner's colour (the status banner, the buttons) in black or
white, whichever reads better on it, and derives its dark theme's colours from the owner's;
a page's settings warn about a colour that falls short on its background.
"""

from __future__ import annotations

import re

AA_TEXT = 4.5
AA_GRAPHIC = 3.0  # large text, the parts of a chart or a control a reader needs
BLACK, WHITE = "#000000", "#ffffff"
_HEX = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
# How finely `readable_on` moves a colour toward black or white: 2 % a step.
_STEPS = 50


def is_color(value: object) -> bool:
    """Whether `value` is a `#rgb` or `#rrggbb` colour."""
    return isinstance(value, str) and bool(_HEX.match(value))


def channels(color: str) -> tuple[int, int, int]:
    """The red, green and blue of `#rgb` or `#rrggbb`, 0 to 255."""
    found = _HEX.match(color)
    if not found:
        raise ValueError(f"not a colour: {color!r}")
    digits = found.group(1)
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def hex_of(red: float, green: float, blue: float) -> str:
    return "#" + "".join(f"{round(min(255, max(0, value))):02x}" for value in (red, green, blue))


def relative_luminance(color: str) -> float:
    """WCAG 2's relative luminance: 0 for black, 1 for white."""

    def linear(value: int) -> float:
        fraction = value / 255
        return fraction / 12.92 if fraction <= 0.04045 else ((fraction + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(value) for value in channels(color))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: str, second: str) -> float:
    """From 1 (the same luminance) to 21 (black on white); the order does not matter."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_on(background: str) -> str:
    """Black or white, whichever contrasts more with `background`: at least 4.58:1 on any
    colour, so text drawn on an owner's colour always passes AA."""
    if contrast_ratio(BLACK, background) >= contrast_ratio(WHITE, background):
        return BLACK
    return WHITE


def mix(color: str, other: str, share: float) -> str:
    """`color` moved `share` (0 to 1) of the way to `other`, channel by channel."""
    return hex_of(
        *(
            mine + (theirs - mine) * share
            for mine, theirs in zip(channels(color), channels(other), strict=True)
        )
    )


def readable_on(color: str, background: str, minimum: float = AA_TEXT) -> str:
    """`color` when it reaches `minimum` on `background`; else the nearest colour of the same
    hue toward black or white (away from the background) that does."""
    if contrast_ratio(color, background) >= minimum:
        return color.lower()
    target = text_on(background)
    for step in range(1, _STEPS + 1):
        moved = mix(color, target, step / _STEPS)
        if contrast_ratio(moved, background) >= minimum:
            return moved
    return target


def ratio_label(ratio: float) -> str:
    """`1.66:1`, rounded down as a checker rounds it: 4.496 is not 4.5."""
    return f"{int(ratio * 100) / 100:.2f}:1"
