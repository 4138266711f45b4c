"""The site store: where the published site's files go (`chalicelib.public.publish` writes
them, readers read them without the app).

Two implementations of one small interface, chosen by the settings: an S3 bucket on AWS
(`bucket.BucketStore`, `SITE_BUCKET`), a folder under the stack's data directory under
`make run` (`folder.FolderStore`). Paths are relative to the site's root and use `/`.
"""

import os
from contextlib import AbstractContextManager
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from chalicelib import config


class SiteStore(Protocol):
    # Whether readers are served `.gz` and `.br` siblings of the files (a CDN compresses
    # by itself).
    precompressed: bool

    def read(self, path: str) -> bytes | None: ...

    # `headers` and `status` are the answer's; a store that serves files by itself (S3
    # behind CloudFront) keeps them with the file, a folder leaves them to the manifests.
    def write(self, path: str, body: bytes, headers: dict[str, str], status: int = 200) -> None: ...

    def delete(self, path: str) -> None: ...

    def delete_tree(self, prefix: str) -> None: ...

    def exclusive(self, page_id: str) -> AbstractContextManager[None]: ...


def site_dir() -> Path:
    """The folder of the published site under `make run`: `SITE_DIR`, else `site/` in the
    stack's data directory."""
    given = os.environ.get("SITE_DIR")
    if given:
        return Path(given).resolve()
    return Path(os.environ.get("DATA_DIR", ".data")).resolve() / "site"


@lru_cache(maxsize=1)
def current() -> SiteStore:
    """The store the settings name (made once per process)."""
    if config.site_bucket():
        from chalicelib.sitestore.bucket import BucketStore

        return BucketStore(config.site_bucket())
    from chalicelib.sitestore.folder import FolderStore

    return FolderStore(site_dir())
