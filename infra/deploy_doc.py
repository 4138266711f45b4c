"""The commands docs/deploy.md tells a reader to run, read from the doc itself.

The deploy rehearsal (`infra/rehearsal.py`) runs these, so the doc and what is rehearsed
cannot drift: a command changed in the doc is the command rehearsed next time.
"""

import re
import shlex
from pathlib import Path

DEPLOY_DOC = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"
# The sections whose first code block the rehearsal runs.
DEPLOY_SECTION = "2. Deploy with CloudFormation"
FIRST_ORGANIZATION_SECTION = "3. The first organization and API key"
# What a reader replaces with their own: the doc's name for the artifact bucket.
ARTIFACT_BUCKET = "my-artifact-bucket"


def code_block(markdown: str, section: str) -> str:
    """The first indented code block under the `## <section>` heading."""
    heading = re.search(rf"^## {re.escape(section)}\n", markdown, re.MULTILINE)
    if heading is None:
        raise ValueError(f"docs/deploy.md has no section {section!r}")
    block: list[str] = []
    for line in markdown[heading.end() :].splitlines():
        if line.startswith("    "):
            block.append(line[4:])
        elif block and line.strip():
            break
        elif line.startswith("## "):
            break
        elif block:
            block.append("")
    if not block:
        raise ValueError(f"docs/deploy.md's section {section!r} has no code block")
    return "\n".join(block).strip() + "\n"


def commands(block: str) -> list[list[str]]:
    """Each command of a shell code block as its words: lines ending in `\\` joined, `#`
    comments dropped."""
    found = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words:
            found.append(words)
    return found


def deploy_commands(markdown: str | None = None) -> list[list[str]]:
    """The `aws ...` commands of the doc's section 2, in order."""
    markdown = DEPLOY_DOC.read_text() if markdown is None else markdown
    return commands(code_block(markdown, DEPLOY_SECTION))


def first_organization_command(markdown: str | None = None) -> tuple[dict[str, str], list[str]]:
    """The doc's section 3 command: the variables it sets before it, and its words."""
    markdown = DEPLOY_DOC.read_text() if markdown is None else markdown
    (words,) = commands(code_block(markdown, FIRST_ORGANIZATION_SECTION))
    variables = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        variables[name] = value
    return variables, words


def option(words: list[str], name: str) -> str | None:
    """The value after `name` in a command's words (`--stack-name statuspage-prod`)."""
    if name not in words:
        return None
    return words[words.index(name) + 1]


def parameter_overrides(words: list[str]) -> dict[str, str]:
    """`--parameter-overrides A=1 B=2` of a `deploy` command: the values a reader
    gives the stack's parameters."""
    start = words.index("--parameter-overrides") + 1
    found = {}
    for word in words[start:]:
        if word.startswith("--"):
            break
        name, _, value = word.partition("=")
        found[name] = value
    return found


def with_option(words: list[str], name: str, value: str) -> list[str]:
    """The command with `name`'s value replaced."""
    changed = list(words)
    changed[changed.index(name) + 1] = value
    return changed
