"""The site store as an S3 bucket (`SITE_BUCKET`), on AWS, read by CloudFront.

S3 replaces an object whole on every PUT, so a reader sees the old file or the new one. The
headers S3 serves itself (type, caching, encoding) are the object's own fields; the others
(CSP, X-Frame-Options, CORS, Vary, Location, ...) ride along as its user metadata, lowercase,
with the answer's status when it is not 200: CloudFront's viewer-response function
(`infra/cloudfront/viewer-response.js`) turns them back into the answer's headers and status.

A file CloudFront may keep gets `stale-while-revalidate` and `stale-if-error` beside its short
`max-age` (`for_cdn`), so CloudFront keeps answering with the last copy while S3 fails; the
viewer-response function takes them off again for browsers.

Each object carries the hash of what it holds (`content-sha256`). The publisher compares what
it renders with the hashes of its last manifest, read once, and writes only what changed: no
HEAD per file, and publishing an unchanged page writes nothing.
"""

import hashlib
import json
from contextlib import AbstractContextManager
from functools import lru_cache

import boto3
from botocore.exceptions import ClientError

from chalicelib import config

# Headers S3 stores as fields of the object and serves as they are; by lowercase name.
OBJECT_FIELDS = {
    "content-type": "ContentType",
    "cache-control": "CacheControl",
    "content-encoding": "ContentEncoding",
}
# The user metadata of the content hash, and of a status other than 200.
HASH_METADATA = "content-sha256"
STATUS_METADATA = "status"
# S3 refuses an object whose user metadata (names and values) exceeds 2 KB.
MAX_METADATA_BYTES = 2048
# DeleteObjects takes at most 1000 keys a call, as many as one ListObjectsV2 page holds.
KEYS_PER_DELETE = 1000
# What CloudFront may do past `max-age` with a published file: answer with it while it fetches
# the new one, and keep answering with it for a day while S3 cannot answer.
STALE_WHILE_REVALIDATE_SECONDS = 30
STALE_IF_ERROR_SECONDS = 86400


@lru_cache(maxsize=1)
def _client():
    return boto3.client("s3", region_name=config.region())


def _key(path: str) -> str:
    """The object key of a file: its path relative to the site root, as the folder store
    takes it (no leading `/`, no `.` or `..`, no empty part)."""
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(f"{path!r} is not a file of the site")
    return path


def for_cdn(cache_control: str) -> str:
    """`Cache-Control` as CloudFront gets it: a shared answer keeps its short `max-age` and
    gains `stale-while-revalidate` and `stale-if-error`; an answer no shared cache may keep
    (`no-store`, `private`, `no-cache`) is left as it is."""
    names = {part.split("=", 1)[0].strip().lower() for part in cache_control.split(",")}
    if "public" not in names or names & {"no-store", "private", "no-cache"}:
        return cache_control
    added = [
        f"{name}={seconds}"
        for name, seconds in (
            ("stale-while-revalidate", STALE_WHILE_REVALIDATE_SECONDS),
            ("stale-if-error", STALE_IF_ERROR_SECONDS),
        )
        if name not in names
    ]
    return ", ".join([cache_control, *added])


def content_hash(body: bytes, fields: dict[str, str], metadata: dict[str, str]) -> str:
    """What an object holds: its bytes, its fields and its metadata."""
    described = json.dumps([fields, metadata], sort_keys=True).encode()
    return hashlib.sha256(hashlib.sha256(body).digest() + described).hexdigest()


class BucketStore:
    # CloudFront compresses what it serves: no `.gz` / `.br` siblings in the bucket.
    precompressed = False

    def __init__(self, bucket: str = ""):
        self.bucket = bucket or config.site_bucket()
        if not self.bucket:
            raise ValueError("no site bucket: SITE_BUCKET is not set")

    def read(self, path: str) -> bytes | None:
        try:
            answer = _client().get_object(Bucket=self.bucket, Key=_key(path))
        except ClientError as error:
            # NoSuchKey needs s3:ListBucket (granted): without it S3 says AccessDenied instead.
            if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        return answer["Body"].read()

    def write(self, path: str, body: bytes, headers: dict[str, str], status: int = 200) -> None:
        """Put the file (the publisher writes only what its manifests say changed)."""
        key = _key(path)
        fields: dict[str, str] = {}
        metadata: dict[str, str] = {}
        for name, value in headers.items():
            lower = name.lower()
            if lower in OBJECT_FIELDS:
                fields[OBJECT_FIELDS[lower]] = value
            else:
                metadata[lower] = value
        if "CacheControl" in fields:
            fields["CacheControl"] = for_cdn(fields["CacheControl"])
        if status != 200:
            metadata[STATUS_METADATA] = str(status)
        metadata[HASH_METADATA] = content_hash(body, fields, metadata)
        size = sum(len(name.encode()) + len(value.encode()) for name, value in metadata.items())
        if size > MAX_METADATA_BYTES:
            raise ValueError(f"{path}: its headers take {size} bytes of metadata, S3 keeps 2 KB")
        _client().put_object(Bucket=self.bucket, Key=key, Body=body, Metadata=metadata, **fields)

    def delete(self, path: str) -> None:
        # S3 answers 204 for a key that is not there.
        _client().delete_object(Bucket=self.bucket, Key=_key(path))

    def delete_tree(self, prefix: str) -> None:
        # Never the whole site (the folder store refuses its root too).
        if not prefix.endswith("/"):
            raise ValueError(f"{prefix!r} is not a folder of the site (it ends with /)")
        _key(prefix.removesuffix("/"))
        listing = _client().get_paginator("list_objects_v2")
        pages = listing.paginate(
            Bucket=self.bucket, Prefix=prefix, PaginationConfig={"PageSize": KEYS_PER_DELETE}
        )
        for page in pages:
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if not keys:
                continue
            answer = _client().delete_objects(
                Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True}
            )
            if answer.get("Errors"):
                first = answer["Errors"][0]
                raise RuntimeError(
                    f"S3 kept {len(answer['Errors'])} objects under {prefix!r}: "
                    f"{first.get('Key')}: {first.get('Code')}"
                )

    def exclusive(self, page_id: str) -> AbstractContextManager[None]:
        """One publisher of the page at a time: S3 has no lock, so a lease on the page's
        snapshot item in DynamoDB, held longer than the publish function may run."""
        # Imported here: reading and writing the bucket needs no table model.
        from chalicelib.store.snapshots import publish_lease

        return publish_lease(page_id)
