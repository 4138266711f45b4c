"""Signed tokens for links that work without login (confirm, unsubscribe)."""

import hashlib
import hmac
import os
import secrets
from functools import lru_cache

from pynamodb.exceptions import PutError

from chalicelib.store.secrets import secret_value
from chalicelib.store.subscribers import Setting

_SECRET_NAME = "link-signing-secret"


@lru_cache(maxsize=1)
def _secret() -> bytes:
    """The key of every signature (console sessions, reader cookies, emailed links), once per
    process: `SIGNING_SECRET` when set; on AWS, the Secrets Manager secret whose ARN is in
    `SIGNING_SECRET_ID` (the template generates it and lets the functions read it:
    infra/generate.py); else, on the local stack, one made on first use and kept in DynamoDB,
    so that every process signs alike and a link outlives a restart."""
    if os.environ.get("SIGNING_SECRET"):
        return os.environ["SIGNING_SECRET"].encode()
    if os.environ.get("SIGNING_SECRET_ID"):
        return secret_value(os.environ["SIGNING_SECRET_ID"]).encode()
    try:
        return Setting.get(_SECRET_NAME, consistent_read=True).value.encode()
    except Setting.DoesNotExist:
        pass
    candidate = Setting(_SECRET_NAME, value=secrets.token_hex(32))
    try:
        candidate.save(condition=Setting.name.does_not_exist())
    except PutError:
        candidate = Setting.get(_SECRET_NAME, consistent_read=True)  # another instance won
    return candidate.value.encode()


def _signature(page_id: str, subject_id: str, purpose: str) -> str:
    message = f"{page_id}:{subject_id}:{purpose}".encode()
    return hmac.new(_secret(), message, hashlib.sha256).hexdigest()[:40]


def token(page_id: str, subject_id: str, purpose: str) -> str:
    return f"{subject_id}-{_signature(page_id, subject_id, purpose)}"


def verified_subject(page_id: str, value: str, purpose: str) -> str | None:
    """The id a token was made for, if it is genuine."""
    subject_id, _, signature = value.partition("-")
    if not subject_id or not signature:
        return None
    expected = _signature(page_id, subject_id, purpose)
    return subject_id if hmac.compare_digest(expected, signature) else None
