"""Records the S3 requests of the site store's client while a block runs: the operation and
the key of each, for counting what a publish costs."""

from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class RequestLog:
    requests: list[tuple[str, str]] = field(default_factory=list)

    def keys(self, operation: str) -> list[str]:
        return [key for name, key in self.requests if name == operation]

    def count(self, operation: str) -> int:
        return len(self.keys(operation))

    def summary(self) -> Counter:
        return Counter(name for name, _ in self.requests)


@contextmanager
def recording():
    """The requests of `chalicelib.sitestore.bucket`'s client (made once per process)."""
    from chalicelib.sitestore import bucket

    log = RequestLog()

    def record(params, model, **_):
        log.requests.append((model.name, params.get("Key", params.get("Prefix", ""))))

    events = bucket._client().meta.events
    events.register("before-parameter-build.s3", record, unique_id="tests-s3-requests")
    try:
        yield log
    finally:
        events.unregister("before-parameter-build.s3", unique_id="tests-s3-requests")
