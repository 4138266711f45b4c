"""Text messages through SNS, cut to fit one segment where they can."""

from functools import lru_cache

import boto3
from botocore.config import Config

from chalicelib import config

MAX_LENGTH = 1600
# GSM 03.38: the basic set (one septet a character) and its extension (two: escape + char).
# A message with any other character is sent as UCS-2, 16 bits a character.
_GSM7 = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = frozenset("^{}\\[~]|€")
# One segment; a longer message is split into parts that lose room to their headers.
GSM7_SEGMENT, UCS2_SEGMENT = 160, 70
GSM7_TWO_SEGMENTS, UCS2_TWO_SEGMENTS = 306, 134
# Below this much room for the text beside the link, one segment is not worth its cuts.
_LEAST_TEXT = 40
# Three dots, not "…": the ellipsis character is not GSM-7 and would halve the room.
ELLIPSIS = "..."


@lru_cache(maxsize=2)
def _client(tries: int):
    return boto3.client(
        "sns", region_name=config.region(), config=Config(retries={"total_max_attempts": tries})
    )


def send_sms(phone_number: str, text: str, *, delivery: bool = False) -> None:
    """`phone_number` in E.164 form (`+15551234567`). A `delivery` is tried once: it sees
    SNS's throttling itself and sends the message later (`notify/pacing.py`); a confirmation,
    sent while its request waits, is retried by the SDK (5 tries, its default)."""
    _client(1 if delivery else 5).publish(PhoneNumber=phone_number, Message=text[:MAX_LENGTH])


def is_gsm7(text: str) -> bool:
    return all(c in _GSM7 or c in _GSM7_EXTENDED for c in text)


def size(text: str, gsm7: bool) -> int:
    """Septets in GSM-7, else UTF-16 code units."""
    if gsm7:
        return sum(2 if c in _GSM7_EXTENDED else 1 for c in text)
    return len(text.encode("utf-16-le")) // 2


def segments(text: str) -> int:
    """How many SMS segments `text` goes out in: one up to 160 GSM-7 septets (70 UTF-16 code
    units when a character is not GSM-7), else parts of 153 septets (67 code units), each
    losing room to the header that joins them back."""
    gsm7 = is_gsm7(text)
    units = size(text, gsm7)
    one, part = (
        (GSM7_SEGMENT, GSM7_TWO_SEGMENTS // 2) if gsm7 else (UCS2_SEGMENT, UCS2_TWO_SEGMENTS // 2)
    )
    return 1 if units <= one else -(-units // part)


def fitted(text: str, link: str) -> str:
    """`text`, then `link`, in one segment (160 GSM-7 characters, or 70 when the text needs
    UCS-2) where the link leaves room for some text, else two: the text cut at a word, with an
    ellipsis."""
    text = " ".join(text.split())
    gsm7 = is_gsm7(text + link)
    one, two = (GSM7_SEGMENT, GSM7_TWO_SEGMENTS) if gsm7 else (UCS2_SEGMENT, UCS2_TWO_SEGMENTS)
    tail = " " + link
    room = one - size(tail, gsm7)
    if room < _LEAST_TEXT:
        room = two - size(tail, gsm7)
    return _cut(text, room, gsm7) + tail


def _cut(text: str, room: int, gsm7: bool) -> str:
    if size(text, gsm7) <= room:
        return text
    kept = ""
    for word in text.split(" "):
        candidate = f"{kept} {word}" if kept else word
        if size(candidate + ELLIPSIS, gsm7) > room:
            break
        kept = candidate
    if not kept:  # one word longer than the room: cut inside it
        kept = text
        while kept and size(kept + ELLIPSIS, gsm7) > room:
            kept = kept[:-1]
    return kept.rstrip(" .,;:-") + ELLIPSIS
