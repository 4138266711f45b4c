"""Email through SES: raw MIME messages (`mime.py`), from the page's own address when SES has
verified it."""

from functools import lru_cache

import boto3
from botocore.config import Config

from chalicelib import config
from chalicelib.notify import mime

# GetIdentityVerificationAttributes takes at most 100 identities a call.
_IDENTITIES_PER_CALL = 100


@lru_cache(maxsize=1)
def _client():
    return boto3.client("ses", region_name=config.region())


@lru_cache(maxsize=1)
def _delivery_client():
    """One try per call: a delivery sees SES's `Throttling` itself and sends the email later
    (`notify/pacing.py`), where the SDK would try it again up to 4 times within seconds,
    against a rate or a 24-hour quota that seconds do not restore."""
    return boto3.client(
        "ses", region_name=config.region(), config=Config(retries={"total_max_attempts": 1})
    )


@lru_cache(maxsize=1)
def verified_identities() -> frozenset[str]:
    """The addresses and domains SES may send from: read once per cold start, so neither an
    event nor a recipient pays for it (an identity verified later is used by new instances)."""
    client = _client()
    listed: list[str] = []
    for answer in client.get_paginator("list_identities").paginate():
        listed += answer["Identities"]
    verified = set()
    for start in range(0, len(listed), _IDENTITIES_PER_CALL):
        chunk = listed[start : start + _IDENTITIES_PER_CALL]
        attributes = client.get_identity_verification_attributes(Identities=chunk)
        for identity, state in attributes["VerificationAttributes"].items():
            if state.get("VerificationStatus") == "Success":
                verified.add(identity.lower())
    return frozenset(verified)


def _may_send_from(address: str) -> bool:
    address = address.lower()
    identities = verified_identities()
    return address in identities or address.rpartition("@")[2] in identities


def sender_for(profile: dict) -> str:
    """The From of a page's emails: its `notifications_from_email` when SES verified that
    address (or its domain), else the service's sender; the page's name as display name,
    encoded by `mime.sender` whatever it holds (one helper for every email the service sends)."""
    wanted = profile.get("notifications_from_email")
    address = wanted if wanted and _may_send_from(wanted) else config.notifications_sender()
    return mime.sender(profile.get("name") or "", address)


def send_raw(to: str, message: bytes, *, delivery: bool = False) -> None:
    """The recipient is named to SES, not left to the To header: an address that a header
    would read as two can never reach the second. A `delivery` (a notification) is tried once
    (`_delivery_client`); a confirmation, sent while its request waits, as the SDK retries."""
    # The configuration set (on AWS) sends its bounces and complaints to `ses_events`.
    configuration_set = config.ses_configuration_set()
    (_delivery_client() if delivery else _client()).send_raw_email(
        Destinations=[mime.ascii_address(to)],
        RawMessage={"Data": message},
        **({"ConfigurationSetName": configuration_set} if configuration_set else {}),
    )


def send_email(to: str, sender: str, subject: str, text: str, html: str) -> None:
    """One email to one address, with no unsubscribe link (a confirmation)."""
    send_raw(to, mime.Letterhead(sender, subject).message(to, text, html))
