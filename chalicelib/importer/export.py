"""The export: one JSON document with everything an import brings of a page, for a backup
that outlives the tables or a move to another stack (`import --from-file`).

The page is read as a live import reads a source (`run.read`), through this service's own v1
API answered by the app in this process: the document holds what an import of the page from
this stack would read, in the same representations (`from_file.py` describes it), subscribers
in every state among them. It holds no secret: the API gives none out (API keys, passwords,
webhook and signing secrets are kept as hashes or never shown; a third-party provider's
credentials stay behind with its metrics, which no import brings). It does hold subscribers'
addresses, so the file is written private (0600).

The reads are made as the organization's owner, with an API key made for the export and
revoked when it ends (never shown); the API's per-key rate limit is off in this process,
where it would only slow the operator's own reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

from chalice.config import Config
from chalice.local import LocalGateway, LocalGatewayException

from chalicelib.domain import credentials, errors, organizations, pages
from chalicelib.importer import run
from chalicelib.importer.from_file import FORMAT, VERSION
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import Reader, SourceMissing, decoded

PRIVATE_FILE = 0o600


class ExportRefused(Exception):
    """The export cannot go ahead as asked; the message says why."""


class ThroughApp(Reader):
    """The v1 API, answered by `app` in this process as the holder of `api_key`."""

    def __init__(self, app, api_key: str):
        config = Config.create(chalice_stage="export", app_name=app.app_name, chalice_app=app)
        self._gateway = LocalGateway(app, config)
        self._headers = {"Authorization": f"OAuth {api_key}", "Accept": "application/json"}

    def get(self, path: str, **query) -> object:
        self.requests += 1
        url = "/v1" + path + (f"?{urlencode(query)}" if query else "")
        try:
            answer = self._gateway.handle_request("GET", url, dict(self._headers), b"")
        except LocalGatewayException as error:
            # No such route; the gateway's own body would quote the Authorization header.
            raise SourceMissing(f"{path}: no such read here ({error.CODE})") from None
        headers = {name.title(): value for name, value in answer["headers"].items()}
        body = answer["body"]
        return decoded(
            path,
            SimpleNamespace(
                status=answer["statusCode"],
                headers=headers,
                data=body.encode() if isinstance(body, str) else body,
            ),
        )


def document(app, page_id: str, progress: Progress | None = None) -> dict:
    """Everything an import brings of the page `page_id`, as one JSON-ready document."""
    progress = progress or Progress()
    try:
        page = pages.get_page(page_id)
    except errors.NotFound:
        raise ExportRefused(f"no page {page_id}") from None
    exported_at = datetime.now(UTC).isoformat()
    with _owner_key(page.organization_id) as api_key, _rate_limit_off():
        found = run.read(ThroughApp(app, api_key), page_id, progress)
    return {"format": FORMAT, "version": VERSION, "exported_at": exported_at, **found}


def write(document: dict, to: str | Path) -> Path:
    """The document into the file `to`, whole or not at all, readable by its owner only."""
    target = Path(to)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.unlink(missing_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(document, file, ensure_ascii=False, indent=1)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, target)
    return target


@contextmanager
def _owner_key(organization_id: str) -> Iterator[str]:
    owner = next((user for user in organizations.users_of(organization_id) if user.owner), None)
    if owner is None:
        raise ExportRefused(f"organization {organization_id} has no owner to read its page as")
    api_key = organizations.create_api_key(owner)
    try:
        yield api_key
    finally:
        organizations.revoke_api_key(owner, credentials.api_key_hash(api_key))


@contextmanager
def _rate_limit_off() -> Iterator[None]:
    before = os.environ.get("RATE_LIMIT_PER_MINUTE")
    os.environ["RATE_LIMIT_PER_MINUTE"] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("RATE_LIMIT_PER_MINUTE", None)
        else:
            os.environ["RATE_LIMIT_PER_MINUTE"] = before
