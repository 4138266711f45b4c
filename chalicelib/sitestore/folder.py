"""The site store as a folder: each file replaced whole by a rename, so a reader (the local
static server, or any web server pointed at the folder) sees the old file or the new one,
never half of one."""

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class FolderStore:
    precompressed = True

    def __init__(self, root: Path):
        self.root = Path(root)
        self._resolved_root = self.root.resolve()

    def _path(self, path: str) -> Path:
        target = (self.root / path).resolve()
        if not target.is_relative_to(self._resolved_root) or target == self._resolved_root:
            raise ValueError(f"{path!r} is outside the site folder")
        return target

    def read(self, path: str) -> bytes | None:
        try:
            return self._path(path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def write(self, path: str, body: bytes, headers: dict[str, str], status: int = 200) -> None:
        # Headers and status live in the manifests the publisher writes; a folder keeps bytes.
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(body)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def delete(self, path: str) -> None:
        self._path(path).unlink(missing_ok=True)

    def delete_tree(self, prefix: str) -> None:
        target = self._path(prefix)
        if not target.exists():
            return
        # Out of the way first (one rename), so no reader finds a half-deleted folder.
        trash = Path(tempfile.mkdtemp(dir=self.root, prefix=".trash-"))
        os.replace(target, trash / "gone")
        shutil.rmtree(trash, ignore_errors=True)

    @contextmanager
    def exclusive(self, page_id: str) -> Iterator[None]:
        """One publisher of the page at a time, across threads and processes; the system
        releases the lock of a publisher that dies."""
        locks = self.root / ".locks"
        locks.mkdir(parents=True, exist_ok=True)
        with open(locks / page_id, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
