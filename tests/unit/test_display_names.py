"""The From of every email: the page's name as an RFC 5322 display name (a quoted string or
RFC 2047 encoded words), whatever the name holds, and one line per header whatever a page's
people wrote (issue 30, item 5)."""

import re
from email import message_from_bytes, message_from_string, policy
from email.header import decode_header, make_header
from email.utils import parseaddr, unquote

import pytest

from chalicelib.notify import mime

ADDRESS = "notifications@statuspage.local"
HOSTILE_NAMES = [
    'Acme "Status"',
    "Acme <script>alert(1)</script>",
    "<b>",
    '"',
    "\\",
    'back\\slash \\" quote',
    "a, b; c: d",
    "Acme (status) [eu]",
    "ops@evil.example",
    "Evil <evil@attacker.example>",
    "=?utf-8?q?evil?=",
    "Caf\u00e9 \u00ab<Statut>\u00bb \u65e5\u672c",
    '\U0001f525 Fire "page" <x>',
    # Long enough that the header must fold: the folding once dropped the quotes, so SES read
    # `<script>` as the address ("Did not have authority to send from email script").
    'Acme "Cloud" Platform <script>alert("email script")</script> for every region we run',
    "x" * 255,
    "\u00e9" * 255,
    "Acme, " * 40,
]
INJECTIONS = [
    "Acme\r\nBcc: victim@example.com",
    "Acme\nX-Injected: yes",
    "Acme\rSubject: forged",
    "Acme\x00\x0b\x0c\u2028\u2029\x85 tail",
]


def expected_name(name: str) -> str:
    # Control characters and line breaks become spaces; runs of spaces one.
    return " ".join("".join(c if c.isprintable() else " " for c in name).split())


def display_name_read(raw: bytes) -> str:
    """The From's display name as RFC 2047 reads it: a quoted string unquoted, adjacent
    encoded words joined with nothing between them (Python's address parser puts a space
    between them, so it is compared without spaces below)."""
    value = re.sub(r"\r?\n(?=[ \t])", "", message_from_bytes(raw)["From"])
    phrase = value[: value.rindex(" <")]
    if phrase.startswith('"'):
        return unquote(phrase)
    return str(make_header(decode_header(phrase)))


def head_of(sender: str, subject: str = "Hello") -> bytes:
    return mime.Letterhead(sender, subject).message("reader@example.com", "text", "<p>html</p>")


@pytest.mark.parametrize("name", HOSTILE_NAMES + INJECTIONS)
def test_a_hostile_page_name_is_one_display_name_and_the_address_stays_intact(name):
    raw = head_of(mime.sender(name, ADDRESS))
    message = message_from_bytes(raw, policy=policy.default)
    (address,) = message["From"].addresses
    assert address.addr_spec == ADDRESS
    assert display_name_read(raw) == expected_name(name)
    assert address.display_name.replace(" ", "") == expected_name(name).replace(" ", "")
    # As SES and the emulator read it (the compat32 parser, then parseaddr).
    assert parseaddr(message_from_bytes(raw)["From"])[1] == ADDRESS
    assert parseaddr(message_from_string(raw.decode("ascii"))["From"])[1] == ADDRESS


@pytest.mark.parametrize("name", HOSTILE_NAMES + INJECTIONS)
def test_no_header_line_passes_78_characters_or_starts_a_header(name):
    raw = head_of(mime.sender(name, ADDRESS), f"[{name}] Sign in to the status page")
    head = raw.split(b"\r\n\r\n")[0].decode("ascii")
    lines = head.split("\r\n")
    assert all(len(line) <= 78 for line in lines)
    fields = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    expected = ["To", "Date", "From", "Subject", "MIME-Version", "Content-Type"]
    assert fields == expected, head


@pytest.mark.parametrize("name", HOSTILE_NAMES + INJECTIONS)
def test_the_subject_reads_back_as_written(name):
    subject = f"[{name}] Sign in to the status page"
    raw = head_of(mime.sender(name, ADDRESS), subject)
    assert str(message_from_bytes(raw, policy=policy.default)["Subject"]) == expected_name(subject)


def test_a_plain_name_stays_readable_in_the_raw_header():
    assert mime.sender("Acme Cloud", ADDRESS) == f"Acme Cloud <{ADDRESS}>"
    assert mime.sender('Acme "Cloud"', ADDRESS) == f'"Acme \\"Cloud\\"" <{ADDRESS}>'
    assert mime.sender("", ADDRESS) == ADDRESS
    assert mime.sender(" \r\n ", ADDRESS) == ADDRESS


def test_the_unsubscribe_mailto_is_the_sender_address_whatever_the_name():
    for name in HOSTILE_NAMES + INJECTIONS:
        letterhead = mime.Letterhead(mime.sender(name, ADDRESS), "Hi")
        assert letterhead.address == ADDRESS
