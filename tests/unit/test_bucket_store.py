"""The site store on S3: whole objects, headers as S3 fields or metadata, trees deleted by page."""

import uuid

import boto3
import pytest
from moto import mock_aws

from chalicelib import config
from chalicelib.sitestore import bucket
from chalicelib.sitestore.bucket import BucketStore
from tests.s3_requests import recording

HTML = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "public, max-age=60",
    "Content-Security-Policy": "default-src 'self'",
    "X-Frame-Options": "DENY",
}


@pytest.fixture
def s3(monkeypatch):
    # A bucket of its own: the store's client is made once per process, whichever mock is on.
    name = f"site-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("SITE_BUCKET", name)
    with mock_aws():
        client = boto3.client("s3", region_name=config.region())
        client.create_bucket(Bucket=name)
        yield client


@pytest.fixture
def store(s3) -> BucketStore:
    return BucketStore(config.site_bucket())


def keys(s3, store: BucketStore) -> list[str]:
    listing = s3.list_objects_v2(Bucket=store.bucket)
    return sorted(item["Key"] for item in listing.get("Contents", []))


def test_the_bucket_comes_from_the_settings(store):
    assert BucketStore().bucket == store.bucket
    assert not BucketStore.precompressed


def test_write_then_read_happy_path(store):
    store.write("s/abc/site.json", b'{"a": 1}', {"Content-Type": "application/json"})
    assert store.read("s/abc/site.json") == b'{"a": 1}'


def test_read_of_a_missing_file_is_none_notfound_path(store):
    assert store.read("s/abc/nothing.html") is None


def test_a_write_replaces_the_object_whole(store):
    store.write("s/abc/index.html", b"old page, longer than the new one", HTML)
    store.write("s/abc/index.html", b"new", HTML)
    assert store.read("s/abc/index.html") == b"new"


def test_headers_land_as_object_fields_and_the_rest_as_lowercase_metadata(s3, store):
    headers = {**HTML, "Content-Encoding": "gzip", "Access-Control-Allow-Origin": "*"}
    store.write("s/abc/index.html", b"<!doctype html>", headers)
    head = s3.head_object(Bucket=store.bucket, Key="s/abc/index.html")
    assert head["ContentType"] == "text/html; charset=utf-8"
    assert head["CacheControl"].startswith("public, max-age=60, ")
    assert head["ContentEncoding"] == "gzip"
    metadata = dict(head["Metadata"])
    assert len(metadata.pop(bucket.HASH_METADATA)) == 64
    assert metadata == {
        "content-security-policy": "default-src 'self'",
        "x-frame-options": "DENY",
        "access-control-allow-origin": "*",
    }
    assert head["ETag"]


def test_a_shared_file_may_be_served_stale_by_the_cdn_and_a_private_one_is_left_alone(s3, store):
    store.write("s/abc/index.html", b"page", HTML)
    store.write("s/abc/site.json", b"{}", {"Cache-Control": "no-store"})
    store.write("s/abc/x.html", b"x", {"Cache-Control": "private, max-age=10"})
    cache_control = {
        key: s3.head_object(Bucket=store.bucket, Key=key)["CacheControl"]
        for key in ("s/abc/index.html", "s/abc/site.json", "s/abc/x.html")
    }
    assert cache_control == {
        "s/abc/index.html": "public, max-age=60, stale-while-revalidate=30, stale-if-error=86400",
        "s/abc/site.json": "no-store",
        "s/abc/x.html": "private, max-age=10",
    }


def test_a_status_other_than_200_rides_as_metadata(s3, store):
    store.write("s/abc/history.rss", b"feeds are off", HTML, 404)
    store.write("s/abc/history.atom", b"feed", HTML)
    assert s3.head_object(Bucket=store.bucket, Key="s/abc/history.rss")["Metadata"]["status"] == (
        "404"
    )
    assert "status" not in s3.head_object(Bucket=store.bucket, Key="s/abc/history.atom")["Metadata"]


def test_a_write_is_one_put_and_no_head(store):
    # The publisher writes only what its manifests say changed: the store asks nothing first.
    with recording() as s3_requests:
        store.write("s/abc/index.html", b"page", HTML)
        store.write("s/abc/index.html", b"another page", {**HTML, "X-Frame-Options": "DENY"})
    assert s3_requests.summary() == {"PutObject": 2}
    assert store.read("s/abc/index.html") == b"another page"


def test_headers_s3_cannot_keep_are_refused_before_the_put(store):
    with pytest.raises(ValueError, match="2 KB"):
        store.write("s/abc/index.html", b"page", {"Content-Security-Policy": "x" * 2100})


def test_delete_removes_the_file_and_a_missing_one_is_fine(s3, store):
    store.write("hosts/status.example.com", b"abc", {})
    store.delete("hosts/status.example.com")
    store.delete("hosts/status.example.com")
    assert store.read("hosts/status.example.com") is None
    assert keys(s3, store) == []


def test_delete_tree_removes_everything_under_the_prefix_and_nothing_else(s3, store):
    for name in ("index.html", "site.json", "history/2024-01.html", "embed/status.js", "a.rss"):
        store.write(f"s/abc/{name}", b"x", {})
    store.write("s/abcd/index.html", b"another page whose id starts alike", {})
    store.write("published/abc.json", b"{}", {})
    store.delete_tree("s/abc/")
    assert keys(s3, store) == ["published/abc.json", "s/abcd/index.html"]
    store.delete_tree("s/abc/")  # nothing left there: fine


@pytest.mark.parametrize("path", ["", "/s/abc/x", "s/../x", "s//x", "s/abc/"])
def test_paths_outside_the_site_are_refused(store, path):
    with pytest.raises(ValueError):
        store.write(path, b"x", {})


@pytest.mark.parametrize("prefix", ["", "/", "s/abc", "../"])
def test_delete_tree_refuses_anything_but_a_folder_of_the_site(store, prefix):
    with pytest.raises(ValueError):
        store.delete_tree(prefix)


def test_the_client_is_made_once(store):
    assert bucket._client() is bucket._client()


def test_exclusive_holds_the_pages_publish_lease(store):
    snapshots = pytest.importorskip("chalicelib.store.snapshots")
    if not hasattr(snapshots, "publish_lease"):
        pytest.skip("chalicelib.store.snapshots has no publish_lease yet")
    if not snapshots.PageSnapshot.exists():
        snapshots.PageSnapshot.create_table(wait=True)
    page_id = uuid.uuid4().hex
    with store.exclusive(page_id):
        with pytest.raises(TimeoutError), snapshots.publish_lease(page_id, wait_seconds=0):
            pass
    with snapshots.publish_lease(page_id, wait_seconds=0):
        pass
