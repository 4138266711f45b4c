"""The confirmation text message fits one SMS segment (issue 32, item 12): segments counted as
a phone counts them, GSM-7 extension characters twice."""

import pytest

from chalicelib.notify import confirmation, sms

# As the local stack signs them: base, page id, subscriber id, a 40-digit signature.
LINK = (
    "http://127.0.0.1:8000/s/01k2xq8r7m3n4p5q/subscriptions/01k2xq8r7m3n4p5r-"
    + "0123456789abcdef0123456789abcdef01234567"
    + "/confirm"
)
DEPLOYED_LINK = LINK.replace("http://127.0.0.1:8000", "https://status.example-company.com")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a" * 160, 1),
        ("a" * 161, 2),
        ("a" * 306, 2),
        ("a" * 307, 3),
        ("€" * 80, 1),  # extension characters: two septets each
        ("€" * 81, 2),
        ("a" * 159 + "€", 2),
        ("[" * 80 + "a", 2),
        ("é" * 160, 1),  # in GSM-7's basic set
        ("ç" * 70, 1),  # not GSM-7 (only Ç is): UCS-2, 70 a segment
        ("ç" * 71, 2),
        ("ç" * 134, 2),
        ("ç" * 135, 3),
        ("🔥" * 35, 1),  # two UTF-16 code units each
        ("🔥" * 36, 2),
        ("a" * 100 + "ç", 2),  # one character outside GSM-7 makes the whole message UCS-2
        ("", 1),
    ],
)
def test_segments_are_counted_as_a_phone_counts_them(text, expected):
    assert sms.segments(text) == expected


def test_the_old_confirmation_text_took_two_segments():
    old = f"[Acme Statuspage] Confirm your subscription: {LINK}"
    assert len(old) == 165 and sms.segments(old) == 2


@pytest.mark.parametrize("link", [LINK, DEPLOYED_LINK])
@pytest.mark.parametrize(
    "name",
    [
        "Acme",
        "Acme Status Page",
        "Example Corporation Status Page",
        "Northwind Traders Cloud Platform Status and Incidents",
        "Supercalifragilisticexpialidociousincorporated",
        "Acme [EU] {staging}",
        "株式会社エクサンプル",
        "",
    ],
)
def test_the_confirmation_fits_one_segment_with_the_whole_link(name, link):
    text = confirmation.sms_text(name, link)
    assert sms.segments(text) == 1
    assert text.endswith(" " + link)


def test_a_short_name_keeps_the_whole_sentence():
    assert confirmation.sms_text("Acme", LINK) == f"[Acme] Confirm your subscription: {LINK}"


def test_a_long_name_is_cut_at_a_word_with_an_ellipsis():
    text = confirmation.sms_text("Northwind Traders Cloud Platform Status and Incidents", LINK)
    assert text == f"[Northwind Traders...] Confirm: {LINK}"
    assert sms.size(text, gsm7=True) <= sms.GSM7_SEGMENT


def test_a_name_outside_gsm7_is_left_out_rather_than_take_three_segments():
    assert (
        confirmation.sms_text("株式会社エクサンプル", LINK) == f"Confirm your subscription: {LINK}"
    )


def test_a_link_too_long_for_one_segment_keeps_the_whole_text():
    link = "https://" + "x" * 200 + ".example/confirm"
    assert confirmation.sms_text("Acme", link) == f"[Acme] Confirm your subscription: {link}"
