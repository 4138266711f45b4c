"""Text messages fit one segment where they can: 160 GSM-7 characters (70 UCS-2), the link
kept whole, the text cut at a word with an ellipsis."""

from chalicelib.notify import sms

LINK = "https://status.example.com/s/acme/incidents/01m84pabtq1hv6xr"


def test_a_short_message_is_left_whole():
    assert sms.fitted("[Acme] Down: Investigating - Looking", LINK) == (
        f"[Acme] Down: Investigating - Looking {LINK}"
    )


def test_a_long_body_is_cut_at_a_word_to_fit_160_gsm7_characters():
    text = "[Acme] Checkout errors: Identified - " + "The payment provider times out " * 10
    fitted = sms.fitted(text, LINK)
    assert len(fitted) <= sms.GSM7_SEGMENT
    assert sms.is_gsm7(fitted)
    kept = fitted.removesuffix(" " + LINK)
    assert kept.endswith("...")
    assert text.startswith(kept.removesuffix("..."))
    assert kept.removesuffix("...").split(" ")[-1] in text.split(" ")  # a whole word


def test_whitespace_and_newlines_are_one_space():
    assert sms.fitted("[Acme]  a\n\nb", LINK) == f"[Acme] a b {LINK}"


def test_extension_characters_count_twice():
    text = "{" * 120
    fitted = sms.fitted(text, LINK)
    assert sms.size(fitted, gsm7=True) <= sms.GSM7_SEGMENT
    assert fitted.endswith("... " + LINK)


def test_text_outside_gsm7_is_cut_for_ucs2_in_two_segments_as_one_leaves_no_room():
    text = "[Acme] Störung 🔥: Investigating - " + "Wir prüfen das Problem " * 10
    fitted = sms.fitted(text, LINK)
    assert not sms.is_gsm7(fitted)
    assert sms.size(fitted, gsm7=False) <= sms.UCS2_TWO_SEGMENTS
    assert fitted.endswith("... " + LINK)


def test_a_single_long_word_is_cut_inside():
    fitted = sms.fitted("x" * 300, LINK)
    assert len(fitted) <= sms.GSM7_SEGMENT and fitted.endswith("... " + LINK)
