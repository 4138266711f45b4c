"""A page's logo and icon uploaded in the console, checked by their bytes, kept in the
site store and shown by the public page; and the webhook signing secret, shown and replaced."""

import io
import re
import struct
import zlib

import pytest


def _png(width: int = 1, height: int = 1) -> bytes:
    """A real PNG image (one white pixel by default)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\0" + b"\xff\xff\xff" * width for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = _png()


def _encoded(kind: str) -> bytes:
    """A real 2x2 image of the kind, as Pillow writes it."""
    from PIL import Image

    written = io.BytesIO()
    Image.new("RGB", (2, 2), "white").save(written, kind)
    return written.getvalue()


def _png_declaring(width: int, height: int, data: bytes) -> bytes:
    """A PNG whose header declares `width`x`height` and whose data is `data` (a few bytes,
    or many of nothing): what a careless or hostile upload may be."""
    whole = _png()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    ihdr = b"IHDR" + header
    chunk = struct.pack(">I", len(header)) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
    idat = b"IDAT" + data
    pixels = struct.pack(">I", len(data)) + idat + struct.pack(">I", zlib.crc32(idat))
    return whole[:8] + chunk + pixels + whole[-12:]


# An icon directory holding one 1x1 PNG.
ICO = struct.pack("<HHHBBBBHHII", 0, 1, 1, 1, 1, 0, 0, 1, 32, len(PNG), 22) + PNG
# What a browser asks for an `<img>` (API Gateway hands a binary answer only to an Accept
# that takes it).
IMAGE_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.fixture
def branding(world):
    return f"/manage/pages/{world.page_id}/settings/branding"


def _page(world) -> dict:
    return world.api.get(f"/v1/pages/{world.page_id}").json


def _public_html(world) -> str:
    return world.api.as_key(None).get(f"/s/{world.page_id}").text


def _fetch(console, url: str):
    path = re.sub(r"^https?://[^/]+", "", url)
    return console.client.http.request("GET", path, headers={"Accept": IMAGE_ACCEPT})


def _upload(console, branding: str, **files):
    console.get(branding)
    parts = {f"branding[{field}]": upload for field, upload in files.items()}
    return console.post_files(branding, {}, parts)


def test_an_uploaded_logo_is_kept_and_shown_by_the_public_page(console, make_user, world, branding):
    console.sign_in(make_user())
    answer = _upload(console, branding, transactional_logo=("logo.png", PNG, "image/png"))
    assert answer.status == 303
    shown = console.get(answer.headers["location"]).text
    assert '<p class="notice" role="status">New logo saved</p>' in shown

    url = _page(world)["transactional_logo"]
    assert re.fullmatch(rf"https?://[^/]+/s/{world.page_id}/branding/[0-9a-f]{{64}}\.png", url)
    assert f'src="{url}"' in shown  # the current logo, on the form
    assert f'<img src="{url}" alt="">' in _public_html(world)

    image = _fetch(console, url)
    assert image.status_code == 200
    assert image.headers["Content-Type"] == "image/png"
    assert image.body == PNG
    assert "immutable" in image.headers["Cache-Control"]
    assert image.headers["X-Content-Type-Options"] == "nosniff"


def test_the_icon_is_taken_by_its_bytes_whatever_its_name_and_claimed_type(
    console, make_user, world, branding
):
    console.sign_in(make_user())
    # An icon sent as if it were an SVG: its bytes say what it is.
    answer = _upload(console, branding, favicon_logo=("icon.svg", ICO, "image/svg+xml"))
    assert answer.status == 303
    url = _page(world)["favicon_logo"]
    assert url.endswith(".ico")
    assert f'<link rel="icon" href="{url}">' in _public_html(world)
    image = _fetch(console, url)
    assert (image.status_code, image.headers["Content-Type"]) == (200, "image/x-icon")
    assert image.body == ICO


def test_an_svg_or_a_large_file_is_refused_and_the_old_logo_stays(
    console, make_user, world, branding
):
    console.sign_in(make_user())
    assert _upload(console, branding, transactional_logo=("a.png", PNG, "image/png")).status == 303
    kept = _page(world)["transactional_logo"]

    refused = _upload(console, branding, transactional_logo=("logo.png", SVG, "image/png"))
    assert refused.status == 422
    assert "must be a PNG, JPEG, WebP or ICO image (SVG is not taken: it can carry script)" in (
        refused.text
    )
    assert f'src="{kept}"' in refused.text  # the form shows the image still in use

    two_megabytes = PNG + b"\0" * (2 * 1024 * 1024)
    refused = _upload(console, branding, transactional_logo=("big.png", two_megabytes, "image/png"))
    assert refused.status == 422
    assert "is 2.0 MB; an image may be at most 1 MB" in refused.text

    # One refused file changes nothing, not even the good one sent with it.
    refused = _upload(
        console,
        branding,
        transactional_logo=("new.png", _png(2, 2), "image/png"),
        favicon_logo=("icon.svg", SVG, "image/svg+xml"),
    )
    assert refused.status == 422
    assert (_page(world)["transactional_logo"], _page(world)["favicon_logo"]) == (kept, None)
    assert f'<img src="{kept}" alt="">' in _public_html(world)

    assert console.post_files(branding, {}, {}).status == 422  # no file chosen


def test_an_image_is_removed(console, make_user, world, branding):
    console.sign_in(make_user())
    _upload(console, branding, favicon_logo=("icon.png", PNG, "image/png"))
    assert _page(world)["favicon_logo"].endswith(".png")
    removed = console.post(f"{branding}/remove", {"image": "favicon_logo"})
    assert removed.status == 303
    assert "Icon removed" in console.get(removed.headers["location"]).text
    assert _page(world)["favicon_logo"] is None
    assert console.post(f"{branding}/remove", {"image": "name"}).status == 422


def test_no_cover_image_is_offered_as_no_layout_shows_one(console, make_user, world, branding):
    """The API keeps `hero_cover` (Statuspage's field); the console offers no control that
    would change nothing a reader sees."""
    cover = {"page": {"hero_cover_url": "https://cdn.example.com/cover.png"}}
    assert world.api.patch(f"/v1/pages/{world.page_id}", cover).status == 200
    console.sign_in(make_user())
    screen = console.get(branding).text
    assert "Cover" not in screen and "premium" not in screen and "hero_cover" not in screen
    assert "cover image" not in console.get(f"/manage/pages/{world.page_id}/settings").text
    upload = _upload(console, branding, hero_cover=("cover.png", PNG, "image/png"))
    assert upload.status == 422
    assert console.post(f"{branding}/remove", {"image": "hero_cover"}).status == 422


def test_images_need_page_configuration_and_a_csrf_token(console, make_user, world, branding):
    console.sign_in(make_user({"incident_manager": True}))
    assert console.get(branding).status == 403
    console.get(f"/manage/pages/{world.page_id}")
    upload = {"branding[transactional_logo]": ("logo.png", PNG, "image/png")}
    assert console.post_files(branding, {}, upload).status == 403
    assert console.post(f"{branding}/remove", {"image": "favicon_logo"}).status == 403

    owner = type(console)(console.client)
    owner.sign_in(make_user())
    owner.get(branding)
    owner.token = "forged"
    assert owner.post_files(branding, {}, upload).status == 403
    assert _page(world)["transactional_logo"] is None


def test_a_body_past_the_upload_limit_is_refused_with_413(console, make_user, world, branding):
    console.sign_in(make_user())
    console.get(branding)
    huge = ("big.png", PNG + b"\0" * (5 * 1024 * 1024), "image/png")
    refused = console.post_files(branding, {}, {"branding[transactional_logo]": huge})
    assert refused.status == 413
    assert _page(world)["transactional_logo"] is None


def test_an_unknown_image_is_not_found(console, world):
    missing = f"/s/{world.page_id}/branding/{'0' * 64}.png"
    assert _fetch(console, "http://x" + missing).status_code == 404
    assert _fetch(console, f"http://x/s/{world.page_id}/branding/..%2Fsite.json").status_code == 404


def test_the_webhook_secret_is_shown_behind_a_disclosure_and_replaced_after_a_confirmation(
    console, make_user, world
):
    settings = f"/manage/pages/{world.page_id}/settings"
    secret = world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"]
    console.sign_in(make_user())
    shown = console.get(settings).text
    disclosure = shown[shown.index("<details>") : shown.index("</details>")]
    assert "<summary>Show the secret</summary>" in disclosure and secret in disclosure

    confirm = console.get(f"{settings}/webhook-secret/rotate")
    assert confirm.status == 200 and "Replace the secret" in confirm.text
    assert world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"] == (
        secret
    )  # asking changes nothing
    replaced = console.post(f"{settings}/webhook-secret/rotate", {})
    assert replaced.status == 303
    new = world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"]
    assert new != secret
    shown = console.get(replaced.headers["location"]).text
    assert "Webhook signing secret replaced" in shown and new in shown


def test_the_webhook_secret_needs_page_configuration_and_a_csrf_token(console, make_user, world):
    settings = f"/manage/pages/{world.page_id}/settings"
    secret = world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"]
    console.sign_in(make_user({"incident_manager": True}))
    assert console.get(f"{settings}/webhook-secret/rotate").status == 403
    console.get(f"/manage/pages/{world.page_id}")
    assert console.post(f"{settings}/webhook-secret/rotate", {}).status == 403
    owner = type(console)(console.client)
    owner.sign_in(make_user())
    owner.get(settings)
    assert owner.post(f"{settings}/webhook-secret/rotate", {}, csrf=False).status == 403
    current = world.api.get(f"/v1/pages/{world.page_id}/webhook_secret").json["webhook_secret"]
    assert current == secret


@pytest.mark.parametrize(
    "content, content_type",
    [
        (PNG, "image/png"),
        (_encoded("JPEG"), "image/jpeg"),
        (_encoded("WEBP"), "image/webp"),
        (ICO, "image/x-icon"),
    ],
)
def test_each_kind_of_image_taken_is_served_as_its_kind(
    console, make_user, world, branding, content, content_type
):
    console.sign_in(make_user())
    sent = ("icon.bin", content, "application/octet-stream")
    assert _upload(console, branding, favicon_logo=sent).status == 303
    image = _fetch(console, _page(world)["favicon_logo"])
    assert (image.status_code, image.headers["Content-Type"]) == (200, content_type)
    assert image.body == content


@pytest.mark.parametrize(
    "content, problem",
    [
        (_png_declaring(50000, 50000, zlib.compress(b"\0" * 300_000)), "pixels"),
        (_png_declaring(2**31 - 1, 2**31 - 1, b""), "pixels"),
        (_png(5000, 1), "5000x1 pixels"),
        (_png_declaring(64, 64, zlib.compress(b"\0" * 10)), "does not match its header"),
        (_png(300, 300)[:450], "does not match its header"),  # cut short
        (b"\xff\xd8\xff\xe0\0\x10JFIF\0" + b"\0" * 64, "not a whole JPEG"),
    ],
)
def test_an_image_larger_than_4096_a_side_or_whose_header_lies_is_refused(
    console, make_user, world, branding, content, problem
):
    console.sign_in(make_user())
    answer = _upload(console, branding, transactional_logo=("logo.png", content, "image/png"))
    assert answer.status == 422, answer.text
    assert problem in answer.text
    assert _page(world)["transactional_logo"] is None


def test_a_dark_mode_logo_is_shown_to_readers_in_dark_mode(console, make_user, world, branding):
    console.sign_in(make_user())
    answer = _upload(
        console,
        branding,
        transactional_logo=("logo.png", PNG, "image/png"),
        dark_logo=("dark.png", _png(2, 1), "image/png"),
    )
    assert answer.status == 303
    assert "New logo and dark-mode logo saved" in console.get(answer.headers["location"]).text
    public = _public_html(world)
    dark = re.search(r'<source srcset="([^"]+)" media="\(prefers-color-scheme: dark\)">', public)
    assert dark and re.search(rf"/s/{world.page_id}/branding/[0-9a-f]{{64}}\.png$", dark[1])
    assert _fetch(console, dark[1]).body == _png(2, 1)
    assert '<picture class="logo">' in public  # no plate: the owner's dark logo is for dark
    assert "dark_logo" not in _page(world)  # the API's page keeps the contract's fields

    console.get(branding)
    removed = console.post(f"{branding}/remove", {"image": "dark_logo"})
    assert removed.status == 303
    public = _public_html(world)
    assert "<source" not in public
    assert '<picture class="logo plated">' in public  # the logo, on a plate in dark mode
