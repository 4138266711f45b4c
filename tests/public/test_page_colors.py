"""The page's colours on its public page (issue 32, item 5): the owner's palette in light,
text on a colour in black or white by contrast, and a dark theme whose colours read."""

import re

from chalicelib.domain import contrast
from tests.public.conftest import publish, update_page


def properties(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The custom properties of the page's light and dark `:root`."""
    light, dark = re.findall(r":root \{(.*?)\}", text, re.DOTALL)[:2]

    def parsed(block: str) -> dict[str, str]:
        return dict(re.findall(r"--([a-z-]+): (#[0-9a-f]{6});", block))

    return parsed(light), parsed(dark)


def test_text_on_an_owners_colour_is_black_or_white_by_contrast(world, visitor):
    update_page(world, css_yellows="#f1c40f", css_link_color="#0b3d91")
    publish(world)
    light, dark = properties(visitor.get("").text)
    assert light["yellows-fill"] == "#f1c40f" and light["on-yellows"] == "#000000"
    assert light["link-fill"] == "#0b3d91" and light["on-link"] == "#ffffff"
    assert dark["yellows-fill"] == "#f1c40f" and dark["on-yellows"] == "#000000"


def test_the_banner_and_buttons_write_on_the_fill_in_its_text_colour(world, visitor):
    publish(world)
    text = visitor.get("").text
    for level, name in (("minor", "yellows"), ("critical", "reds"), ("maintenance", "blues")):
        rule = re.search(rf"\.banner\.level-{level} \{{([^}}]*)\}}", text).group(1)
        assert f"background: var(--{name}-fill)" in rule and f"color: var(--on-{name})" in rule
    assert "color: #fff" not in text


def test_the_dark_theme_moves_a_colour_until_it_reads(world, visitor):
    update_page(world, css_greens="#1e8449")
    publish(world)
    light, dark = properties(visitor.get("").text)
    assert light["greens"] == "#1e8449"
    assert dark["greens"] != "#1e8449"
    for name in ("font", "light-font", "link", "greens", "yellows", "oranges", "blues", "reds"):
        assert contrast.contrast_ratio(dark[name], dark["body-bg"]) >= 4.5, name
