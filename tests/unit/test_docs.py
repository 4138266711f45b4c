"""The README is the newcomer's page, the rest is in docs/ by topic, and every link between them
lands: on a file that exists, and on a heading of it (GitHub's anchors)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TOPICS = [
    "api",
    "public-page",
    "notifications",
    "console",
    "metrics",
    "access",
    "import-export",
    "local-stack",
    "deploy",
    "operations",
    "integrations",
    "architecture",
]
README_MOST_LINES = 150

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _prose(text: str) -> str:
    """The text outside code blocks and code spans, where a link is a link."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    return _LINK.findall(_prose(path.read_text()))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to dashes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    """Every heading's anchor; a repeated one gets GitHub's -1, -2 suffixes."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text())):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _section(title: str) -> str:
    text = README.read_text()
    start = re.search(rf"^## {re.escape(title)}\s*$", text, re.MULTILINE)
    assert start, f"README has no section {title!r}"
    end = re.search(r"^## ", text[start.end() :], re.MULTILINE)
    return text[start.end() : start.end() + end.start() if end else len(text)]


def test_readme_is_a_page_a_newcomer_reads_in_five_minutes():
    lines = len(README.read_text().splitlines())
    assert lines <= README_MOST_LINES, f"README.md has {lines} lines, at most {README_MOST_LINES}"


def test_docs_hold_a_file_per_topic_and_the_readme_leads_to_each():
    readme_links = set(_links(README))
    for topic in TOPICS:
        page = DOCS / f"{topic}.md"
        assert page.is_file(), f"docs/{topic}.md is missing"
        assert page.read_text().startswith("# "), f"docs/{topic}.md opens with no title"
        assert f"docs/{topic}.md" in readme_links, f"README.md does not link docs/{topic}.md"


def test_every_relative_link_names_a_file_that_exists():
    broken = []
    for path in _markdown_files():
        for link in _links(path):
            target = link.split("#", 1)[0]
            if _SCHEME.match(link) or not target:
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)}: {link}")
    assert not broken, "links to no file:\n" + "\n".join(broken)


def test_every_anchor_names_a_heading_of_its_file():
    broken = []
    for path in _markdown_files():
        for link in _links(path):
            if _SCHEME.match(link) or "#" not in link:
                continue
            target, anchor = link.split("#", 1)
            page = (path.parent / target) if target else path
            if page.suffix == ".md" and page.is_file() and anchor not in _anchors(page):
                broken.append(f"{path.relative_to(ROOT)}: {link}")
    assert not broken, "anchors that name no heading:\n" + "\n".join(broken)


def test_the_anchor_rules_are_githubs():
    assert _slug("Power loss under `make run`") == "power-loss-under-make-run"
    assert (
        _slug("4. The public names: every page at the root")
        == "4-the-public-names-every-page-at-the-root"
    )
    assert (
        _slug("Integrations: Alertmanager, Grafana, generic")
        == "integrations-alertmanager-grafana-generic"
    )


def test_readme_gives_the_two_commands_ci_runs():
    blocks = re.findall(r"^```sh\n(.*?)^```", README.read_text(), re.MULTILINE | re.DOTALL)
    commands = {line.split("#")[0].strip() for block in blocks for line in block.splitlines()}
    assert {"make run", "make test"} <= commands
    assert "make test" in (ROOT / ".ci" / "run").read_text().splitlines()


def test_readme_shows_what_make_run_prints():
    """The lines the stack prints word for word, and the ready line CI waits for."""
    printed = ast.parse((ROOT / "chalicelib" / "local" / "__main__.py").read_text())
    fixed_lines = [
        node.args[0].value
        for node in ast.walk(printed)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "print"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and not node.args[0].value.startswith("Stopping")
    ]
    assert len(fixed_lines) >= 2
    shown = _section("What `make run` prints")
    for line in fixed_lines:
        assert line in shown, f"README does not show the line {line!r}"
    ready = re.search(r'^READY = "(.+)"$', (ROOT / ".ci" / "first_run.py").read_text(), re.M)
    assert ready and ready.group(1) in shown


def test_readme_keeps_the_short_sections_other_checks_read():
    console = _section("Console")
    assert "docs/console.md" in console
    assert len(re.findall(r"^- \*\*", console, re.MULTILINE)) >= 8, "a list of the screens"

    integrations = _section("Integrations")
    for snippet in ("webhook_configs:", "contactPoints:", "type: webhook", "curl -X POST"):
        assert snippet in integrations, f"no {snippet!r} snippet in Integrations"
    assert "docs/integrations.md" in integrations

    operations = _section("Operations")
    for subject in (
        "Bounces and complaints",
        "Alarms",
        "Redrive",
        "Logs and metrics",
        "point-in-time recovery",
        "copy `.data` while the stack is stopped",
        "JOURNAL_FSYNC",
        "ALLOW_PRIVATE_TARGETS",
    ):
        assert subject in operations, f"Operations says nothing of {subject!r}"
    assert "docs/operations.md" in operations

    deploy = _section("Deploy")
    assert "docs/deploy.md" in deploy
    assert len(deploy.strip().splitlines()) <= 3
