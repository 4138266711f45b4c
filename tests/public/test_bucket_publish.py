"""The published site on S3 (moto), as the publish function writes it on AWS: the keys, their
content types and cache headers, what one incident update costs in PUTs, nothing written for
an unchanged page, a page made private withdrawn without the API writing the bucket, and the
CDN's routing of the published paths (its viewer-request function, run by node on cases made
from this publish)."""

import json
import os
import shutil
import subprocess
import uuid
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import boto3
import pytest
from botocore.stub import ANY, Stubber

from chalicelib import config
from chalicelib.sitestore import bucket, hosts
from chalicelib.sitestore.bucket import BucketStore
from tests.public.conftest import make_component, make_incident, update_page
from tests.s3_requests import recording

ROOT = Path(__file__).resolve().parents[2]
KVS_ARN = "arn:aws:cloudfront::123456789012:key-value-store/01234567-89ab-cdef-0123-456789abcdef"
# A typical incident update on a page served at four places (/s/{id}, /s/{subdomain}, its
# subdomain host and its custom domain): at each place the 14 files it changes (the page, the
# history and the quarter's, the incident's page, both feeds, and the 8 status API documents,
# whose `page.updated_at` moves with every write) and the manifest; then the version marker.
# docs/deploy.md's cost table quotes this number.
PUTS_PER_PLACE = 14 + 1
PUTS_PER_INCIDENT_UPDATE = 4 * PUTS_PER_PLACE + 1


@pytest.fixture
def bucket_store() -> BucketStore:
    name = f"site-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", region_name=config.region()).create_bucket(Bucket=name)
    return BucketStore(name)


@pytest.fixture
def typical_page(world):
    """A page with a custom domain, three components and two incidents, one resolved."""
    update_page(world, domain=f"status.{world.page_id}.example.org")
    for name in ("API", "Dashboard", "Webhooks"):
        make_component(world, name)
    make_incident(world, "Slow dashboards", status="investigating", body="Looking into it")
    resolved = make_incident(world, "Webhooks delayed", status="investigating", body="Delays")
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{resolved['id']}",
        {"incident": {"status": "resolved", "body": "Delivered"}},
    )
    assert answer.status == 200, answer.text
    return world


def publish_to(store: BucketStore, page_id: str, *, force: bool = True) -> str:
    from chalicelib.public import publish

    return publish.publish_page(page_id, store, force=force)


def objects(store: BucketStore) -> dict[str, dict]:
    s3 = bucket._client()
    found = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=store.bucket):
        for item in page.get("Contents", []):
            found[item["Key"]] = s3.head_object(Bucket=store.bucket, Key=item["Key"])
    return found


def manifest_of(store: BucketStore, folder: str) -> dict:
    return json.loads(store.read(f"{folder}/site.json"))


def mounts_of(page_id: str) -> list[str]:
    from chalicelib.public import site
    from chalicelib.store.models import Page

    return [mount.folder for mount in site.mounts_of(Page.get(page_id))]


def test_a_publish_writes_each_places_files_with_their_types_and_cache_headers(
    typical_page, bucket_store
):
    page_id = typical_page.page_id
    assert publish_to(bucket_store, page_id) == "published"
    stored = objects(bucket_store)
    folders = mounts_of(page_id)
    assert len(folders) == 4
    expected = {f"published/{page_id}.json"}
    for folder in folders:
        manifest = manifest_of(bucket_store, folder)
        expected.add(f"{folder}/site.json")
        expected |= {f"{folder}/{entry['file']}" for entry in manifest["files"].values()}
        for key, entry in manifest["files"].items():
            head = stored[f"{folder}/{entry['file']}"]
            headers = {name.lower(): value for name, value in entry["headers"].items()}
            assert head["ContentType"] == headers["content-type"], key
            assert head["CacheControl"] == bucket.for_cdn(headers["cache-control"]), key
            metadata = dict(head["Metadata"])
            assert metadata.pop("content-sha256")
            assert metadata.pop("status", "200") == str(entry["status"]), key
            assert metadata == {
                name: value
                for name, value in headers.items()
                if name not in ("content-type", "cache-control", "content-encoding")
            }, key
            if entry["status"] == 200 and headers["cache-control"].startswith("public"):
                assert (
                    "max-age=10, stale-while-revalidate=30, stale-if-error=86400"
                    in (head["CacheControl"])
                ), key
    assert set(stored) == expected  # and no .gz or .br: CloudFront compresses
    types = {key.rsplit("/", 1)[-1]: stored[key]["ContentType"] for key in stored}
    assert types["index.html"] == "text/html; charset=utf-8"
    assert types["summary.json"] == "application/json"
    assert types["history.rss"].startswith("application/rss+xml")
    assert types["history.atom"].startswith("application/atom+xml")
    assert types["status.js"].startswith(("application/javascript", "text/javascript"))
    home = stored[f"s/{page_id}/index.html"]
    assert "style-src 'sha256-" in home["Metadata"]["content-security-policy"]
    assert stored[f"s/{page_id}/api/v2/summary.json"]["Metadata"][
        "access-control-allow-origin"
    ] == ("*")
    for key in (f"s/{page_id}/site.json", f"published/{page_id}.json"):
        assert stored[key]["CacheControl"] == "no-store"


def test_publishing_an_unchanged_page_again_writes_nothing(typical_page, bucket_store):
    page_id = typical_page.page_id
    publish_to(bucket_store, page_id)
    with recording() as s3_requests:
        assert publish_to(bucket_store, page_id) == "published"  # forced: built and compared
    assert s3_requests.count("PutObject") == 0
    assert s3_requests.count("DeleteObject") == s3_requests.count("DeleteObjects") == 0
    # What it read instead: each place's manifest (once, to compare) and the marker.
    assert s3_requests.summary() == {"GetObject": 4 + 1}


def test_one_incident_update_costs_a_few_dozen_puts(typical_page, bucket_store):
    page_id = typical_page.page_id
    publish_to(bucket_store, page_id)
    open_incident = typical_page.api.get(f"/v1/pages/{page_id}/incidents/unresolved").json[0]
    answer = typical_page.api.patch(
        f"/v1/pages/{page_id}/incidents/{open_incident['id']}",
        {"incident": {"status": "identified", "body": "A slow query; a fix is on its way"}},
    )
    assert answer.status == 200, answer.text
    with recording() as s3_requests:
        assert publish_to(bucket_store, page_id, force=False) == "published"
    puts = s3_requests.keys("PutObject")
    changed = {key.split("/", 2)[-1] if key.startswith("s/") else key for key in puts}
    # At each place: the page, its history (and the quarter's), the incident's page, the feeds,
    # the status API documents the incident is in, and the place's manifest.
    assert f"incidents/{open_incident['id']}.html" in changed
    assert {"index.html", "history.html", "history.rss", "api/v2/summary.json"} <= changed
    assert f"published/{page_id}.json" in puts
    assert len(puts) == PUTS_PER_INCIDENT_UPDATE, s3_requests.summary()
    assert len(puts) == len(set(puts))
    # Reads: the manifests, once, and the marker; no HEAD: the manifests' hashes say what
    # changed.
    assert s3_requests.count("GetObject") == 4 + 1
    assert s3_requests.count("HeadObject") == 0


@pytest.fixture
def kvs(monkeypatch):
    """The CDN's routing store (CloudFront's KeyValueStore: moto has none), stubbed."""
    from chalicelib import sitestore

    sitestore.current()  # the folder store of these tests, made before SITE_BUCKET is set
    monkeypatch.setenv("SITE_HOSTS_STORE", KVS_ARN)
    stubber = Stubber(hosts._client())
    with stubber:
        yield stubber
        stubber.assert_no_pending_responses()
    monkeypatch.delenv("SITE_HOSTS_STORE")


def describe(stubber: Stubber) -> None:
    answer = {"ItemCount": 1, "TotalSizeInBytes": 1, "KvsARN": KVS_ARN, "ETag": "E"}
    stubber.add_response(
        "describe_key_value_store", {**answer, "Created": datetime.now(UTC)}, {"KvsARN": KVS_ARN}
    )


def update(stubber: Stubber) -> None:
    stubber.add_response(
        "update_keys",
        {"ItemCount": 1, "TotalSizeInBytes": 1, "ETag": "E2"},
        {"KvsARN": KVS_ARN, "IfMatch": "E", "Puts": ANY, "Deletes": ANY},
    )


def test_a_publish_names_its_places_and_paths_in_the_cdns_routing_once(
    typical_page, bucket_store, kvs
):
    page_id = typical_page.page_id
    calls: list[dict] = []
    hosts._client().meta.events.register(
        "before-parameter-build.cloudfront-keyvaluestore.UpdateKeys",
        lambda params, **_: calls.append(params),
        unique_id="test-routing",
    )
    try:
        describe(kvs)
        kvs.add_client_error("get_key", "ResourceNotFoundException", http_status_code=404)
        update(kvs)
        publish_to(bucket_store, page_id)
        # The same routing again: no call at all (the stubber has no answer left to give).
        publish_to(bucket_store, page_id)
    finally:
        hosts._client().meta.events.unregister(
            "before-parameter-build.cloudfront-keyvaluestore.UpdateKeys", unique_id="test-routing"
        )
    puts = {put["Key"]: put["Value"] for put in calls[0]["Puts"]}
    assert {key: value for key, value in puts.items() if not key.startswith("p/")} == {
        folder: page_id for folder in mounts_of(page_id)
    }
    record = json.loads(puts[f"p/{page_id}"])
    incidents = typical_page.api.get(f"/v1/pages/{page_id}/incidents").json
    assert sorted(record["i"]) == sorted(incident["id"] for incident in incidents)
    assert any(key.startswith("history?quarter=") for key in record["k"])
    marker = json.loads(bucket_store.read(f"published/{page_id}.json"))
    assert marker["routing"]["record"] == record


def test_a_page_made_private_on_aws_leaves_the_cdn_at_once_and_the_api_writes_no_bucket(
    typical_page, bucket_store, kvs, monkeypatch
):
    from chalicelib.notify import queues

    page_id = typical_page.page_id
    describe(kvs)
    kvs.add_client_error("get_key", "ResourceNotFoundException", http_status_code=404)
    update(kvs)
    publish_to(bucket_store, page_id)
    monkeypatch.setenv("SITE_BUCKET", bucket_store.bucket)
    sent = []
    monkeypatch.setattr(queues, "send", lambda *args, **kwargs: sent.append((args, kwargs)))
    describe(kvs)
    update(kvs)
    with recording() as s3_requests:
        update_page(typical_page, audience_specific=True)
    assert s3_requests.requests == []  # the API wrote (and read) nothing of the bucket
    kvs.assert_no_pending_responses()  # the page's record said "the app" before the answer
    forced = [args for args, kwargs in sent if args[1] == {"page_id": page_id, "force": True}]
    assert len(forced) == 1
    # The publish function then says "the app" again before it removes the files, and
    # names the page's places after.
    for _ in range(2):
        describe(kvs)
        update(kvs)
    assert publish_to(bucket_store, page_id) == "published"
    for folder in mounts_of(page_id):
        manifest = manifest_of(bucket_store, folder)
        assert manifest["dynamic"] is True and manifest["files"] == {}
    assert {key.rsplit("/", 1)[-1] for key in objects(bucket_store)} == {
        "site.json",
        f"{page_id}.json",
    }


def test_a_deleted_page_leaves_no_file_in_the_bucket(typical_page, bucket_store):
    from chalicelib.public import publish

    page_id = typical_page.page_id
    publish_to(bucket_store, page_id)
    publish.remove(page_id, bucket_store)
    assert objects(bucket_store) == {}


def routing_cases(page_id: str) -> dict:
    """Requests for every published path of the page at each of its places, and for paths
    the files do not hold, with what the local front (SiteFiles) does with each: the CDN's
    function must send each to the same object, to the app, or answer 404 alike."""
    from chalicelib.local import site_files
    from chalicelib.local.site_files import SiteFiles
    from chalicelib.sitestore import site_dir

    front = SiteFiles(site_dir(), recheck_seconds=0)
    manifests = {
        folder: json.loads((site_dir() / folder / "site.json").read_text())
        for folder in mounts_of(page_id)
    }
    kvs = {folder: page_id for folder in manifests}
    kvs[hosts.page_key(page_id)] = hosts.encode(hosts.routing_of(page_id, manifests)["record"])
    cases = []

    def case(method: str, folder: str, key: str, published: bool = True) -> None:
        path, _, query = key.partition("?")
        rel, query = ("/" + path if path else ""), (f"?{query}" if query else "")
        if folder.startswith("hosts/"):
            host, uri = folder.removeprefix("hosts/"), (rel or "/") + query
        else:
            host, uri = "x.example", f"/{folder}{rel}{query}"
        answer = front.answer(method, host, uri, {})
        if answer is None:
            expect = {"origin": "app", "uri": uri.partition("?")[0]}
        elif answer is site_files._NOT_FOUND:
            expect = {"answer": 404}
        else:
            assert published, f"the front answers {method} {host} {uri} from a file"
            name = manifests[folder]["files"][key]["file"]
            encoded = "/".join(quote(part, safe="-_.!~*'()") for part in name.split("/"))
            expect = {"origin": "site", "uri": f"/{folder}/{encoded}"}
        cases.append({"method": method, "host": host, "target": uri, "expect": expect})

    for folder, manifest in manifests.items():
        for key in manifest["files"]:
            case("GET", folder, key)
            case("HEAD", folder, key)
            case("POST", folder, key, published=False)
        for key in (
            "incidents/0000000000000000",
            "history?quarter=1999-Q1",
            "history?month=2026-01",
            "history?quarter=2026-Q1&month=2026-01",
            "history?before=0000000000000000",
            "sign-in",
            "subscriptions/abc/manage",
            "site.json",
            "../site.json",
            "%2e%2e/x",
            "a//b",
            "api/v2/summary.json?via=email",
        ):
            case("GET", folder, key, published=False)
    return {"kvs": kvs, "cases": cases}


def test_the_cdn_routes_every_request_as_the_local_front_answers_it(
    typical_page, drain_publishes, tmp_path
):
    node = shutil.which("node")
    assert node, "node is missing: `make node` installs Debian's nodejs"
    drain_publishes()
    table = routing_cases(typical_page.page_id)
    assert sum(1 for case in table["cases"] if case["expect"].get("origin") == "site") > 60
    assert any(case["expect"].get("answer") == 404 for case in table["cases"])
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(table))
    answer = subprocess.run(
        [node, "--test", str(ROOT / "infra" / "cloudfront" / "functions.test.js")],
        env={**os.environ, "SITE_ROUTING_CASES": str(cases)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stdout[-4000:] + answer.stderr[-2000:]
    assert "# skipped 0" in answer.stdout


def test_the_app_finds_a_hosts_page_by_the_readers_host_behind_cloudfront(world, visitor):
    from chalicelib.domain import pages

    subdomain = pages.get_page(world.page_id).subdomain
    make_component(world, "API")
    through_cloudfront = {
        "Host": "abc123.execute-api.us-east-1.amazonaws.com",
        "X-Forwarded-Host": f"{subdomain}.localhost",
    }
    answer = visitor.api.get("/api/v2/summary.json", headers=through_cloudfront)
    assert answer.status == 200, answer.text
    assert answer.json["page"]["id"] == world.page_id
    gateway_only = {"Host": "abc123.execute-api.us-east-1.amazonaws.com"}
    assert visitor.api.get("/api/v2/summary.json", headers=gateway_only).status == 404
