"""The images a page shows (its logo, its icon, its cover), as files uploaded for it: which
kinds are taken and how large, told by the file's own bytes.

The name a browser gives a file and the type it claims are whatever the sender chose, so
neither decides: the first bytes of the file (its magic number) do. SVG is not taken at all:
an SVG file is a document that may carry script, shown by the browser wherever it is opened.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from chalicelib.domain import errors

MAX_IMAGE_BYTES = 1024 * 1024
# Every reader's browser decodes the image: a few hundred bytes may declare billions of
# pixels. A logo, an icon or a cover needs no more than this a side.
MAX_IMAGE_SIDE = 4096


@dataclass(frozen=True)
class ImageKind:
    name: str  # as people call it
    content_type: str  # as readers are told it
    extension: str  # of the stored file's name


PNG = ImageKind("PNG", "image/png", "png")
JPEG = ImageKind("JPEG", "image/jpeg", "jpg")
WEBP = ImageKind("WebP", "image/webp", "webp")
ICO = ImageKind("ICO", "image/x-icon", "ico")
KINDS = (PNG, JPEG, WEBP, ICO)
ALLOWED = "a PNG, JPEG, WebP or ICO image"


def kind_of(content: bytes) -> ImageKind | None:
    """The kind of image `content` is, by its magic number; None for anything else."""
    if content.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if content.startswith(b"\xff\xd8\xff"):
        return JPEG
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return WEBP
    # An icon directory: two reserved zero bytes, type 1 (icon), at least one image.
    if content[:4] == b"\x00\x00\x01\x00" and content[4:6] != b"\x00\x00":
        return ICO
    return None


def checked(field: str, content: bytes) -> ImageKind:
    """The kind of an uploaded image, if it is one taken; else the field's problem, named."""
    if not content:
        raise errors.invalid(field, "is empty: choose an image file")
    if len(content) > MAX_IMAGE_BYTES:
        size = f"{len(content) / (1024 * 1024):.1f} MB"
        raise errors.invalid(field, f"is {size}; an image may be at most 1 MB")
    kind = kind_of(content)
    if kind is None:
        why = " (SVG is not taken: it can carry script)" if _looks_like_svg(content) else ""
        raise errors.invalid(field, f"must be {ALLOWED}{why}")
    _check_pixels(field, content, kind)
    return kind


def _check_pixels(field: str, content: bytes, kind: ImageKind) -> None:
    """Read as an image: its size, as its header declares it, within `MAX_IMAGE_SIDE`, and
    its data decoded whole, so a header that lies about the size (or data cut short) is
    refused before any reader's browser meets it."""
    from PIL import Image  # where an image is uploaded only: not on every cold start

    too_large = f"may be at most {MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE} pixels"
    try:
        with Image.open(io.BytesIO(content), formats=[_PILLOW_FORMATS[kind.name]]) as image:
            width, height = image.size
            if width > MAX_IMAGE_SIDE or height > MAX_IMAGE_SIDE:
                raise errors.invalid(field, f"is {width}x{height} pixels; an image {too_large}")
            image.load()
    except Image.DecompressionBombError:  # declared far beyond any limit: not even opened
        raise errors.invalid(field, f"declares billions of pixels; an image {too_large}") from None
    except (OSError, SyntaxError, ValueError, EOFError):
        raise errors.invalid(
            field, f"is not a whole {kind.name} image: its data does not match its header"
        ) from None


_PILLOW_FORMATS = {"PNG": "PNG", "JPEG": "JPEG", "WebP": "WEBP", "ICO": "ICO"}


def _looks_like_svg(content: bytes) -> bool:
    return b"<svg" in content[:4096].lower()
