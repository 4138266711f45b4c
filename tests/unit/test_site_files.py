"""The published site folder as the front reads it (`chalicelib.local.site_files`), in process:
which requests the files answer, with what, and which go to the app (None)."""

import gzip
import json
import os
import time
from pathlib import Path

import pytest

from chalicelib.local.site_files import PUBLISHING, SiteFiles

ETAG = '"0f1e2d3c4b5a69788796a5b4c3d2e1f0"'
MODIFIED = "2026-11-24T19:50:00Z"
MODIFIED_HTTP = "Tue, 24 Nov 2026 19:50:00 GMT"
HOME = b"<!doctype html><title>Status</title><p>All systems operational</p>" * 20
HTML_HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "public, max-age=10",
    "X-Frame-Options": "DENY",
}


def write_mount(folder: Path, files: dict, *, dynamic: bool = False, bodies: dict) -> Path:
    """A mount as the publisher leaves it: the files first, the manifest last."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in bodies.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(body)
    manifest = {
        "page_id": "0123456789abcdef",
        "dynamic": dynamic,
        "variant_keys": ["quarter", "month", "metric_period"],
        "files": files,
    }
    (folder / "site.json").write_text(json.dumps(manifest))
    return folder


def entry(file: str | None, **overrides) -> dict:
    described = {
        "file": file,
        "status": 200,
        "etag": ETAG,
        "modified": MODIFIED,
        "headers": dict(HTML_HEADERS),
        "encodings": [],
    }
    described.update(overrides)
    return described


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "site"


@pytest.fixture
def site(root) -> SiteFiles:
    write_mount(
        root / "s" / "hand-made",
        {
            "": entry("index.html", encodings=["br", "gzip"]),
            "history": entry("history.html", headers={**HTML_HEADERS, "Vary": "Host"}),
            "history?quarter=2026-Q3": entry("history@quarter=2026-Q3.html", etag='"q3"'),
            "api/v2/summary.json": entry(
                "api/v2/summary.json",
                headers={"Content-Type": "application/json", "Access-Control-Allow-Origin": "*"},
                encodings=["gzip"],
            ),
            "favicon.ico": entry(
                None, status=302, headers={"Location": "https://example.com/icon.svg"}
            ),
        },
        bodies={
            "index.html": HOME,
            "index.html.gz": gzip.compress(HOME),
            "index.html.br": b"pretend-brotli",
            "history.html": b"<p>this quarter</p>",
            "history@quarter=2026-Q3.html": b"<p>last quarter</p>",
            "api/v2/summary.json": b'{"page": {}}',
            "api/v2/summary.json.gz": gzip.compress(b'{"page": {}}'),
        },
    )
    return SiteFiles(root, recheck_seconds=0)


def get(site: SiteFiles, target: str, host: str = "127.0.0.1:8000", method="GET", **headers):
    headers = {name.replace("_", "-"): value for name, value in headers.items()}
    return site.answer(method, host, target, headers)


def test_the_page_is_answered_from_its_file_with_the_manifest_headers(site):
    answer = get(site, "/s/hand-made")
    assert answer.status == 200
    assert answer.body == HOME
    assert answer.header("content-type") == "text/html; charset=utf-8"
    assert answer.header("X-Frame-Options") == "DENY"
    assert answer.header("ETag") == ETAG
    assert answer.header("Last-Modified") == MODIFIED_HTTP
    assert answer.header("Content-Length") == str(len(HOME))
    assert answer.header("Content-Encoding") is None
    wire = answer.wire(b"Tue, 24 Nov 2026 20:00:00 GMT")
    assert wire.startswith(b"HTTP/1.1 200 OK\r\n")
    assert wire.endswith(b"\r\nDate: Tue, 24 Nov 2026 20:00:00 GMT\r\n\r\n" + HOME)
    assert get(site, "/s/hand-made/").body == HOME  # a trailing slash names the same file


def test_a_matching_if_none_match_is_304_with_the_same_headers_and_no_body(site):
    for offered in (ETAG, f"W/{ETAG}", f'"other", {ETAG}', "*"):
        answer = get(site, "/s/hand-made", If_None_Match=offered)
        assert answer.status == 304, offered
        assert answer.body == b""
        assert answer.header("ETag") == ETAG
        assert answer.header("Cache-Control") == "public, max-age=10"
        assert answer.header("Vary") == "Accept-Encoding"
        assert answer.header("Content-Type") is None and answer.header("Content-Length") is None
    assert get(site, "/s/hand-made", If_None_Match='"other"').status == 200


def test_if_modified_since_counts_only_without_if_none_match(site):
    assert get(site, "/s/hand-made", If_Modified_Since=MODIFIED_HTTP).status == 304
    later = "Wed, 25 Nov 2026 00:00:00 GMT"
    assert get(site, "/s/hand-made", If_Modified_Since=later).status == 304
    earlier = "Tue, 24 Nov 2026 19:49:59 GMT"
    assert get(site, "/s/hand-made", If_Modified_Since=earlier).status == 200
    assert get(site, "/s/hand-made", If_Modified_Since="garbage").status == 200
    both = get(site, "/s/hand-made", If_None_Match='"other"', If_Modified_Since=MODIFIED_HTTP)
    assert both.status == 200


def test_head_is_the_headers_of_get_without_the_body(site):
    answer = get(site, "/s/hand-made", method="HEAD")
    assert answer.status == 200 and answer.body == b""
    assert answer.header("Content-Length") == str(len(HOME))
    assert answer.wire(b"x").endswith(b"\r\n\r\n")


def test_brotli_is_preferred_then_gzip_and_q0_refuses(site):
    brotli = get(site, "/s/hand-made", Accept_Encoding="gzip, deflate, br")
    assert brotli.header("Content-Encoding") == "br" and brotli.body == b"pretend-brotli"
    assert brotli.header("Content-Length") == str(len(b"pretend-brotli"))
    zipped = get(site, "/s/hand-made", Accept_Encoding="gzip, br;q=0")
    assert zipped.header("Content-Encoding") == "gzip"
    assert gzip.decompress(zipped.body) == HOME
    assert get(site, "/s/hand-made", Accept_Encoding="*").header("Content-Encoding") == "br"
    plain = get(site, "/s/hand-made", Accept_Encoding="gzip;q=0, br;q=0.0")
    assert plain.header("Content-Encoding") is None and plain.body == HOME
    assert get(site, "/s/hand-made", Accept_Encoding="identity").body == HOME
    # Listed encodings whose sibling is missing are not offered.
    summary = get(site, "/s/hand-made/api/v2/summary.json", Accept_Encoding="br, gzip")
    assert summary.header("Content-Encoding") == "gzip"
    assert summary.header("Access-Control-Allow-Origin") == "*"


def test_vary_accept_encoding_is_merged_into_the_manifests_vary(site, root):
    # Every answer of an entry listing encodings varies by it, whichever encoding it got.
    assert get(site, "/s/hand-made").header("Vary") == "Accept-Encoding"
    assert get(site, "/s/hand-made", Accept_Encoding="br").header("Vary") == "Accept-Encoding"
    # An entry without encodings keeps its own Vary as it is.
    assert get(site, "/s/hand-made/history").header("Vary") == "Host"
    write_mount(
        root / "hosts" / "status.example.com",
        {"": entry("index.html", headers={**HTML_HEADERS, "Vary": "Host"}, encodings=["gzip"])},
        bodies={"index.html": HOME, "index.html.gz": gzip.compress(HOME)},
    )
    merged = get(site, "/", host="status.example.com")
    assert [value for name, value in merged.headers if name == "Vary"] == ["Host, Accept-Encoding"]


def test_a_variant_key_chooses_its_own_file_and_other_parameters_are_ignored(site):
    assert get(site, "/s/hand-made/history").body == b"<p>this quarter</p>"
    last = get(site, "/s/hand-made/history?quarter=2026-Q3&utm_source=mail")
    assert last.body == b"<p>last quarter</p>" and last.header("ETag") == '"q3"'
    assert get(site, "/s/hand-made/history?utm_source=mail").body == b"<p>this quarter</p>"
    # A variant the manifest does not hold, or two of them at once: the app decides.
    assert get(site, "/s/hand-made/history?quarter=2019-Q1") is None
    assert get(site, "/s/hand-made/history?quarter=2026-Q3&month=2026-08") is None


def test_a_redirect_entry_answers_its_status_with_an_empty_body(site):
    answer = get(site, "/s/hand-made/favicon.ico")
    assert answer.status == 302
    assert answer.header("Location") == "https://example.com/icon.svg"
    assert answer.body == b"" and answer.header("Content-Length") == "0"


def test_what_the_manifest_does_not_name_goes_to_the_app(site):
    assert get(site, "/s/hand-made/incidents/0123456789abcdef") is None  # an older incident
    assert get(site, "/s/hand-made/subscribe", method="POST") is None
    assert get(site, "/s/hand-made", method="OPTIONS") is None
    assert get(site, "/s/not-published") is None  # no mount: the app renders or 404s
    assert get(site, "/v1/pages") is None
    assert get(site, "/manage") is None
    assert get(site, "/s/Hand-Made") is None  # not a ref: never looked up as a folder


def test_a_dynamic_mount_sends_everything_to_the_app(site, root):
    write_mount(root / "s" / "private-page", {"": entry("index.html")}, dynamic=True, bodies={})
    assert get(site, "/s/private-page") is None
    assert get(site, "/s/private-page/api/v2/summary.json") is None


def test_hosts_answer_at_the_root_and_s_paths_by_their_ref(site, root):
    write_mount(
        root / "hosts" / "acme.localhost",
        {"": entry("index.html"), "api/v2/summary.json": entry("summary.json")},
        bodies={"index.html": b"<p>by host</p>", "summary.json": b"{}"},
    )
    for host in ("acme.localhost", "ACME.localhost:8000", "acme.localhost."):
        assert get(site, "/", host=host).body == b"<p>by host</p>", host
    assert get(site, "/api/v2/summary.json", host="acme.localhost").body == b"{}"
    assert get(site, "/", host="other.localhost") is None
    assert get(site, "/", host=None) is None
    assert get(site, "/", host="bad_host!") is None
    # /s/{ref} wins over the host.
    assert get(site, "/s/hand-made", host="acme.localhost").body == HOME


@pytest.mark.parametrize(
    "target",
    [
        "/s/hand-made/../hand-made",
        "/s/hand-made/%2e%2e/%2E%2E/etc/passwd",
        "/s/hand-made/.%2e/secret",
        "/s/hand-made/api%2fv2%2Fsummary.json",
        "/s/hand-made/api%5cv2",
        "/s/hand-made/api\\v2",
        "/s/hand-made//etc/passwd",
        "/s//etc/passwd",
        "/s/hand-made/%00",
        "/s/hand-made/.site.json",
        "/s/hand-made/site.json/.",
        "/s/../hosts/acme/index.html",
        "/s/%2e%2e/%2e%2e/secret",
    ],
)
def test_a_path_that_tries_to_leave_the_folder_is_404_and_reads_nothing(site, target):
    answer = get(site, target)
    assert answer is not None and answer.status == 404
    assert json.loads(answer.body) == {"error": "The requested resource could not be found"}


def test_a_host_path_that_tries_to_leave_the_folder_is_404(site, root):
    write_mount(root / "hosts" / "acme.localhost", {"": entry("index.html")}, bodies={})
    for target in ("/../s/hand-made", "/%2e%2e/secret", "//etc/passwd", "/a%2Fb"):
        answer = get(site, target, host="acme.localhost")
        assert answer is not None and answer.status == 404, target


def test_a_file_outside_the_mount_is_never_served(site, root, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"do not serve")
    folder = root / "s" / "leaky"
    folder.mkdir(parents=True)
    (folder / "link.html").symlink_to(secret)
    (root / "s" / "linked-mount").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "site.json").write_text(json.dumps({"files": {"": entry("secret.txt")}}))
    write_mount(
        folder,
        {
            "": entry("link.html"),
            "up": entry("../../../secret.txt"),
            "absolute": entry(str(secret)),
        },
        bodies={},
    )
    for target in ("/s/leaky", "/s/leaky/up", "/s/leaky/absolute"):
        answer = get(site, target)
        assert answer is not None and answer.status == 404, target
        assert b"do not serve" not in answer.body
    # A mount that is a link out of the site folder is no mount at all.
    assert get(site, "/s/linked-mount") is None


def test_a_new_manifest_is_read_and_its_files_with_it(site, root):
    folder = root / "s" / "hand-made"
    assert get(site, "/s/hand-made/history").body == b"<p>this quarter</p>"
    time.sleep(0.01)  # a later modification time than the manifest read
    write_mount(
        folder,
        {"history": entry("history-2.html", etag='"v2"')},
        bodies={"history-2.html": b"<p>version 2</p>"},
    )
    answer = get(site, "/s/hand-made/history")
    assert answer.body == b"<p>version 2</p>" and answer.header("ETag") == '"v2"'
    assert get(site, "/s/hand-made") is None  # gone from the manifest: the app's now
    (folder / "site.json").unlink()
    assert get(site, "/s/hand-made/history") is None


def test_a_file_written_after_its_manifest_waits_for_the_next_manifest(site, root):
    """A publish writes its files before its manifest: a file newer than the manifest read
    belongs to the next one, and is not served with this one's headers; the front asks again
    in a moment rather than the app (which may be down)."""
    folder = root / "s" / "hand-made"
    manifest_time = (folder / "site.json").stat().st_mtime_ns
    newer = folder / "history.html"
    newer.write_bytes(b"<p>next version</p>")
    os.utime(newer, ns=(manifest_time + 10**9, manifest_time + 10**9))
    assert get(site, "/s/hand-made/history") is PUBLISHING
    assert get(site, "/s/hand-made/history") is PUBLISHING  # not remembered as an answer
    assert get(site, "/s/hand-made").body == HOME  # the others are still this manifest's


def test_an_unreadable_manifest_sends_everything_to_the_app(site, root):
    folder = root / "s" / "broken"
    folder.mkdir(parents=True)
    (folder / "site.json").write_text("{not json")
    assert get(site, "/s/broken") is None
    (folder / "site.json").write_text(json.dumps(["files"]))
    assert get(site, "/s/broken") is None


def test_a_missing_file_goes_to_the_app(site, root):
    write_mount(root / "s" / "half", {"": entry("index.html")}, bodies={})
    assert get(site, "/s/half") is None


def test_header_names_may_come_in_any_case(site):
    assert site.answer("GET", "x", "/s/hand-made", {"IF-NONE-MATCH": ETAG}).status == 304
    lowered = site.answer_lowered("GET", "x", "/s/hand-made", {"accept-encoding": "gzip"})
    assert lowered.header("Content-Encoding") == "gzip"
