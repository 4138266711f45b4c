"""HTTP header blocks parsed without the email package, in the local stack's processes.

`http.client.parse_headers` reads every request the local servers receive and every answer
the SDK gets from the emulator, and hands the lines to the email package's generic MIME
parser: a fifth of an item read's time on the emulator, and as much again in the API process
for each call it makes. The headers clients send are `name: value` lines, which this parser
reads directly into the same `HTTPMessage`; a block with anything else in it (a folded line,
a name that is not an HTTP token) goes to the email parser as before, which decides as it
always has.
"""

import email.parser
import http.client
import re

_FIELD = re.compile(r"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)\r?\n?\Z", re.DOTALL)


def parse_headers(fp, _class=http.client.HTTPMessage) -> http.client.HTTPMessage:
    lines = http.client._read_headers(fp)
    fields = []
    for line in lines:
        if line in (b"\r\n", b"\n", b""):
            break
        field = _FIELD.match(line.decode("iso-8859-1"))
        if field is None:
            text = b"".join(lines).decode("iso-8859-1")
            return email.parser.Parser(_class=_class).parsestr(text)
        fields.append(field.groups())
    message = _class()
    for name, value in fields:
        message[name] = value
    message.set_payload("")  # the email parser's, from the empty rest of the block
    return message


def install() -> None:
    """For the rest of this process's life (a local stack's process only)."""
    http.client.parse_headers = parse_headers
