"""The images a page shows (its logo, its icon, its cover), as files uploaded for it: which
kinds are taken and how large, told by the file's own bytes.

The name a browser gives a file and the type it claims are whatever the sender chose, so
neither decides: the first bytes of the file (its magic number) do. SVG is not taken at all:
an SVG file is a document that may carry script, shown by the browser wherever it is opened.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.domain import errors

MAX_IMAGE_BYTES = 1024 * 1024


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
    return kind


def _looks_like_svg(content: bytes) -> bool:
    return b"<svg" in content[:4096].lower()
