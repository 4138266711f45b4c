"""The layers import downwards only: no module of chalicelib imports, through any chain, a
module that imports it back."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each chalicelib module -> the chalicelib modules it imports (at any depth in it)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            found.update(target for target in targets if target in modules and target != name)
        graph[name] = found
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                return path[path.index(imported) :] + [imported]
            if imported not in state:
                found = visit(imported)
                if found:
                    return found
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycle_in_chalicelib():
    cycle = _cycle(_imports())
    assert cycle is None, " -> ".join(cycle)


def test_the_domain_knows_nothing_of_http_views_or_the_public_page():
    above = ("chalicelib.http", "chalicelib.api", "chalicelib.views", "chalicelib.public")
    above += ("chalicelib.jobs",)
    for module, imported in _imports().items():
        if module.startswith("chalicelib.domain"):
            wrong = sorted(name for name in imported if name.startswith(above))
            assert not wrong, f"{module} imports {wrong}"
