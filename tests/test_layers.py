"""The perfdocs package has no import cycle (issue 19, item 5): modules import downwards only, so each can be read,
tested and replaced without the ones that use it. Imports inside functions count too: a lazy import is a cycle that
only hides until the function runs."""

from __future__ import annotations

import ast
from collections.abc import Container
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "hooks" / "perfdocs"


def package_modules() -> dict[str, Path]:
    """The package's modules by dotted name under ``perfdocs`` (``dialect``, ``components.tabs``; a subpackage is
    its ``__init__``)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def imported(module: str, path: Path, node: ast.ImportFrom, known: Container[str]) -> list[tuple[str, str]]:
    """(package module, name) for each name an import statement of ``module`` brings in: relative imports
    (``from .x import y``, ``from ..x import y``, ``from . import x``) and ``from perfdocs.x import y``. A name
    that is itself a module (``from . import budgets``) is that module, with the name ``""``; one pair per name."""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        target = ".".join([*base, *(node.module.split(".") if node.module else [])])
    elif node.module and node.module.startswith("perfdocs."):
        target = node.module.removeprefix("perfdocs.")
    else:
        return []
    pairs = []
    for alias in node.names:
        submodule = f"{target}.{alias.name}" if target else alias.name
        pairs.append((submodule, "") if submodule in known else (target, alias.name))
    return pairs


def imports(module: str, path: Path, known: Container[str]) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found |= {target for target, _ in imported(module, path, node, known) if target in known}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("perfdocs.") for a in node.names if a.name.startswith("perfdocs.")}
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module, or one that imports itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in graph[module]:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_cycles_are_found_when_there_are_some() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_package_has_no_import_cycle() -> None:
    modules = package_modules()
    graph = {name: imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 20 and graph["build"]  # the scan read the package
    assert {"document", "diagnostics", "markdown"} <= graph["components.tabs"] | graph["components"]
    assert cycles(graph) == []


def engine_imports(path: Path) -> set[str]:
    """The MkDocs modules ``path`` imports, anywhere in it (``mkdocs``, ``mkdocs.structure.files``; not other
    packages whose names start the same, such as ``mkdocstrings``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        found |= {name for name in names if name == "mkdocs" or name.startswith("mkdocs.")}
    return found


def test_only_the_adapter_knows_mkdocs() -> None:
    """Issue 19, item 5: the pipeline does not import MkDocs. mkdocs_adapter.py translates its events, objects
    and config; serve.py is MkDocs' own live-reload server, patched for incremental rebuilds. Another engine
    brings another adapter. The CLI reads mkdocs.yml through the adapter, so it imports it; nothing below does."""
    modules = package_modules()
    knowing = {name for name, path in modules.items() if engine_imports(path)}
    assert knowing == {"mkdocs_adapter", "serve"}
    users = {name for name, path in modules.items() if "mkdocs_adapter" in imports(name, path, modules)}
    assert users == {"cli"}
    assert engine_imports(ROOT / "hooks" / "perfdocs_hooks.py") == {"mkdocs.plugins"}


def test_the_engine_check_sees_each_kind_of_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import mkdocs\nimport mkdocstrings\nfrom mkdocs.config import load_config\n"
        "def f():\n    from mkdocs.structure.files import File\n    import mkdocs_autorefs\n"
        "from .mkdocs import x\n",
        encoding="utf-8",
    )
    assert engine_imports(module) == {"mkdocs", "mkdocs.config", "mkdocs.structure.files"}
