"""The emails the service sent, read back from the emulator's SES and parsed as a mail
client would: the text and HTML parts, the headers."""

from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage

import requests

ACCOUNT, REGION = "123456789012", "us-east-1"


@dataclass
class Mail:
    raw: bytes
    message: EmailMessage

    @property
    def to(self) -> list[str]:
        return [address.strip() for address in self.message.get_all("To", [])]

    @property
    def sender(self) -> str:
        return str(self.message["From"])

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        """The plain-text part."""
        return self.message.get_body(("plain",)).get_content()

    @property
    def html(self) -> str:
        return self.message.get_body(("html",)).get_content()

    def header(self, name: str) -> str | None:
        value = self.message[name]
        return None if value is None else " ".join(str(value).split())


def parsed(raw: str | bytes) -> Mail:
    raw = raw.encode() if isinstance(raw, str) else raw
    return Mail(raw, message_from_bytes(raw, policy=policy.default))


# Each message the SES backend holds, parsed once: it keeps every email of the test process, so
# parsing them all at each look cost a test more the later it ran (seconds, thousands in).
_parsed_once: dict = {}


def sent_mail() -> list[Mail]:
    """In process (`mock_aws`): the SES backend's messages, oldest first."""
    from moto.backends import get_backend

    found = []
    for message in get_backend("ses")[ACCOUNT][REGION].sent_messages:
        if message not in _parsed_once:
            _parsed_once[message] = parsed(message.raw_data)
        found.append(_parsed_once[message])
    return found


def sent_mail_over_http(moto_url: str) -> list[Mail]:
    """From the emulator of a running local stack, oldest first: its last 500 sends
    (`/_local/sent.json`). Not moto's `/moto-api/data.json`, which dumps every backend (each
    table, each site file) and took over 30 s late in a shared stack's life."""
    sent = requests.get(f"{moto_url}/_local/sent.json", timeout=30).json()
    return [parsed(m["raw"]) for m in reversed(sent) if m["kind"] == "email"]
