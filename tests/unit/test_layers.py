"""The layers of chalicelib/__init__.py hold: no module imports a room above its own.

The rules are data: `FORBIDDEN` names, for each room, the rooms it must never import. The graph
is read from the source (ast), so an import inside a function counts like one at the top; an
import under `if TYPE_CHECKING:` is an annotation only and never runs, so it is exempt."""

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"

# The rooms, top to bottom (chalicelib/__init__.py says what each does).
WIRING = {"local"}
CALLERS = {"api", "console", "public", "importer", "admin", "jobs"}
SENDING = {"notify"}
SHAPING = {"views", "web"}
REQUEST = {"http", "schemas"}
RULES = {"domain"}
FILES = {"sitestore"}
DATA = {"store"}
GROUND = {"net", "clock", "ids", "config", "observability", "recent", "environment"}

ABOVE_SHAPING = WIRING | CALLERS | SENDING
ABOVE_RULES = ABOVE_SHAPING | SHAPING | REQUEST

# Room -> the rooms it must never import. A caller reaches data through the rules (domain/,
# views/), never past them to the store, and never goes into another caller, but for three
# steps: admin.py runs the importer, publishes a page and repairs the local stack's journal;
# jobs/ publishes the page as a write does; the console shows the public page's own preview and
# charts.
FORBIDDEN: dict[str, set[str]] = {
    "local": set(),
    "admin": {"api", "console", "jobs"} | DATA,
    "api": WIRING | (CALLERS - {"api"}) | DATA,
    "console": WIRING | (CALLERS - {"console", "public"}) | DATA,
    "public": WIRING | (CALLERS - {"public"}) | DATA,
    "importer": WIRING | (CALLERS - {"importer"}) | DATA,
    "jobs": WIRING | (CALLERS - {"jobs", "public"}) | DATA,
    "notify": WIRING | CALLERS,
    "views": ABOVE_SHAPING,
    "web": ABOVE_SHAPING | DATA,  # what the pages share reads no data of its own
    "http": ABOVE_SHAPING | SHAPING,
    "schemas": ABOVE_SHAPING | SHAPING,
    "domain": ABOVE_RULES,
    "sitestore": ABOVE_RULES | RULES,
    "store": ABOVE_RULES | RULES | FILES,
    **{room: ABOVE_RULES | RULES | FILES | DATA for room in GROUND},
}

# Climbs the rules above forbid but the tree still makes: issue 36's remaining work, pair by
# pair. Each is skipped by the rule test, and the last test fails once a pair is gone, so that
# it moves out of here and the rule holds from then on.
NOT_YET: dict[str, set[str]] = {}


@dataclass(frozen=True)
class Import:
    module: str
    line: int
    target: str

    @property
    def room(self) -> str:
        return room_of(self.module)

    @property
    def target_room(self) -> str:
        return room_of(self.target)

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.target}"


def room_of(module: str) -> str:
    """chalicelib.domain.pages -> domain, chalicelib.admin -> admin."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at the top, in functions, under any if but the
    body of `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def _targets(
    statement: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The chalicelib modules a statement imports: `from chalicelib import schemas` is the
    module chalicelib.schemas, `from chalicelib.store.models import Page` is
    chalicelib.store.models, and `from ..store import models` is resolved from `module`."""
    if isinstance(statement, ast.Import):
        return {alias.name for alias in statement.names} & modules
    base = statement.module or ""
    if statement.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - statement.level + 1]
        base = ".".join(package + ([base] if base else []))
    named = {f"{base}.{alias.name}" for alias in statement.names} & modules
    rest = any(f"{base}.{alias.name}" not in modules for alias in statement.names)
    return named | ({base} if rest and base in modules and base != "chalicelib" else set())


@cache
def imports() -> tuple[Import, ...]:
    """Every runtime import of one chalicelib module by another, with its line (read once)."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    found: list[Import] = []
    for module, path in sorted(paths.items()):
        is_package = path.name == "__init__.py"
        for statement in _runtime_imports(ast.parse(path.read_text(), str(path))):
            for target in _targets(statement, module, is_package, modules):
                if target != module:
                    found.append(Import(module, statement.lineno, target))
    return tuple(sorted(found, key=lambda found: (found.module, found.line, found.target)))


def test_every_room_of_chalicelib_is_in_the_rules():
    rooms = {room_of(_module_name(path)) for path in PACKAGE.rglob("*.py")} - {""}
    assert rooms <= set(FORBIDDEN), f"rooms with no rule: {sorted(rooms - set(FORBIDDEN))}"


def _on_the_remaining_work(each: Import) -> bool:
    """A climb named above as issue 36's remaining work."""
    return each.target_room in NOT_YET.get(each.room, set())


def test_no_module_imports_a_room_above_its_own():
    climbs = [
        str(each)
        for each in imports()
        if each.target_room in FORBIDDEN[each.room] and not _on_the_remaining_work(each)
    ]
    assert not climbs, "imports of a room the module must not import:\n" + "\n".join(climbs)


def test_the_domain_imports_nothing_of_schemas_notify_api_console_public_or_views():
    above = {"schemas", "notify", "api", "console", "public", "views"}
    wrong = [str(each) for each in imports() if each.room == "domain" and each.target_room in above]
    assert not wrong, "the domain imports a room above it:\n" + "\n".join(wrong)


def test_the_console_and_the_api_import_no_store_model():
    wrong = [
        str(each)
        for each in imports()
        if each.room in {"console", "api"} and each.target_room == "store"
    ]
    assert not wrong, "the console or the API reads the store past the rules:\n" + "\n".join(wrong)


def test_each_climb_not_yet_forbidden_is_still_made():
    made = {(each.room, each.target_room) for each in imports()}
    gone = sorted(
        (room, above)
        for room, rooms in NOT_YET.items()
        for above in rooms
        if (room, above) not in made
    )
    assert not gone, f"these climbs are gone, drop them from NOT_YET so the rule holds: {gone}"


# What only a pydantic model has. A domain module that reads it takes request bodies whatever
# it imports (page_access did so, importing no schema): the rule is plain inputs.
PYDANTIC_ONLY = {
    "model_fields_set",
    "model_fields",
    "model_dump",
    "model_dump_json",
    "model_validate",
    "model_copy",
}


def test_the_domain_takes_no_request_body():
    wrong = []
    for path in sorted((PACKAGE / "domain").rglob("*.py")):
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in PYDANTIC_ONLY:
                wrong.append(f"{module}:{node.lineno} reads .{node.attr}")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                names += [alias.name for alias in node.names]
                if any(name.split(".")[0] == "pydantic" for name in names):
                    wrong.append(f"{module}:{node.lineno} imports pydantic")
    assert not wrong, "the domain takes a request body, not plain inputs:\n" + "\n".join(wrong)
