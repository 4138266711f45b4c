"""axe-core in a real headless Chromium: the rules a page is held to for accessibility.

axe-core comes from the npm registry into the virtualenv (`.venv/axe`), installed by the
`axe_script` fixture (tests/e2e/conftest.py) on first use; it is a test tool only, injected
through the driver, and never reaches a page.
"""

import json
import shutil
import subprocess
import weakref

import pytest

from tests.e2e.stack import ROOT

AXE_VERSION = "4"
AXE_FOLDER = ROOT / ".venv" / "axe"
AXE_SCRIPT = AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"
EVERY_IMPACT = ("minor", "moderate", "serious", "critical")


def script() -> str:
    if not AXE_SCRIPT.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: axe-core comes from the npm registry")
        subprocess.run(
            [npm, "install", "--prefix", str(AXE_FOLDER), "--no-audit", "--no-fund"]
            + ["--silent", f"axe-core@{AXE_VERSION}"],
            check=True,
            timeout=300,
        )
    return AXE_SCRIPT.read_text()


# Browsers that load axe-core into every page they open.
_preloaded: "weakref.WeakSet" = weakref.WeakSet()


def violations(browser, axe_script: str, impacts: tuple[str, ...] = EVERY_IMPACT) -> list[str]:
    """What axe finds of `impacts` on the page the browser shows, a line each."""
    # Injected through the driver, as a test tool (a page's policy allows only its own
    # script): into the page shown, and once per browser into every page it opens after, as
    # sending the 550 KB script at each screen cost a fifth of the screen's time.
    if not browser.execute_script("return typeof window.axe === 'object'"):
        browser.execute_script(axe_script)
        if browser not in _preloaded:
            browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": axe_script})
            browser.set_script_timeout(60)
            _preloaded.add(browser)
    results = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(found => done(JSON.stringify(found.violations)), e => done(String(e)));"
    )
    lines = []
    for violation in json.loads(results):
        if violation["impact"] not in impacts:
            continue
        for node in violation["nodes"]:
            lines.append(
                f"{violation['id']} ({violation['impact']}) {node['target']}: "
                f"{node.get('failureSummary', '').splitlines()[-1].strip()}"
            )
    return lines
