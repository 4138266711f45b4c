"""The CloudFront functions' JavaScript: node's test runner on their cases (hosts, unknown
hosts, paths, `..`; infra/cloudfront/functions.test.js), and the names they share with the
Python publisher and the local front, which must not drift apart. (The cases made from a real
publish run in tests/public/test_bucket_publish.py.)"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from chalicelib.http import errors
from chalicelib.local import site_files
from chalicelib.public import routes, site
from chalicelib.sitestore import hosts
from infra import cdn

FUNCTIONS = Path(__file__).resolve().parents[2] / "infra" / "cloudfront"


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    assert found, "node is missing: `make node` installs Debian's nodejs"
    return found


def test_the_functions_pass_their_node_tests(node):
    env = {key: value for key, value in os.environ.items() if key != "SITE_ROUTING_CASES"}
    answer = subprocess.run(
        [node, "--test", str(FUNCTIONS / "functions.test.js")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stdout[-4000:] + answer.stderr[-2000:]
    assert "# fail 0" in answer.stdout


def constants_of(node: str, file: str, names: list[str]) -> dict:
    """The values of top-level constants of a function's code, as node evaluates them."""
    script = f"""
        const fs = require('fs'); const vm = require('vm');
        const code = fs.readFileSync({json.dumps(str(FUNCTIONS / file))}, 'utf8')
            .replace(/^import cf from 'cloudfront';$/m, '');
        const context = vm.createContext({{ cf: {{ kvs: () => ({{}}) }} }});
        vm.runInContext(code + '\\nglobalThis.out = {{' + {json.dumps(names)}.map(
            (n) => n + ': ' + n + ' instanceof RegExp ? ' + n + '.source + \\'/\\' + ' + n
                + '.flags : ' + n).join(', ') + '}};', context);
        console.log(JSON.stringify(context.out));
    """
    answer = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True)
    return json.loads(answer.stdout)


def test_the_function_names_files_and_places_as_the_publisher_and_the_local_front(node):
    found = constants_of(
        node,
        "viewer-request.js",
        ["APP", "VARIANT_KEYS", "ALWAYS", "INCIDENTS", "REF", "HOST", "UNSAFE", "NOT_FOUND"],
    )
    assert found["APP"] == cdn.APP_ORIGIN
    assert tuple(found["VARIANT_KEYS"]) == site.VARIANT_KEYS
    assert tuple(found["ALWAYS"]) == hosts.ALWAYS
    assert found["INCIDENTS"] == hosts.INCIDENTS
    assert found["REF"] == site_files._REF.pattern + "/"
    assert found["HOST"] == site_files._HOST.pattern + "/"
    # JavaScript escapes the slashes of a literal; the pattern is the same.
    assert found["UNSAFE"].replace("\\/", "/") == site_files._UNSAFE_IN_PATH.pattern + "/i"
    assert json.loads(found["NOT_FOUND"]) == errors.not_found().body()


def test_every_page_publishes_the_paths_the_function_takes_for_granted():
    expected = {"", "history", "history.rss", "history.atom", "embed/status.js", "favicon.ico"}
    expected |= {"subscribe"} | {f"api/v2/{document}" for document in routes.V2_DOCUMENTS}
    assert set(hosts.ALWAYS) == expected
    source = (FUNCTIONS / "viewer-request.js").read_text()
    assert re.search(r"cf\.kvs\('" + cdn.HOSTS_STORE_ID_MARK + r"'\)", source)
