"""The toolchain stays typed and lint-clean (ruff and mypy, configured in pyproject.toml), in units of a size a
reader can take in."""

from __future__ import annotations

import ast
import subprocess
import sys

from .conftest import ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "hooks", "tests", "bench/build_overhead.py", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


# The most lines a function (its def line to its last line, docstring included) and a class may take in hooks/:
# a unit a newcomer can read whole. A class that must be larger for now is named here with the lines it has, so
# that it can only shrink (none is, since the MkDocs adapter took BuildState's MkDocs side: issue 19).
FUNCTION_LINES = 80
CLASS_LINES = 400
LARGER_CLASSES: dict[str, int] = {}


def sizes() -> dict[str, tuple[str, int]]:
    """'path:Qualified.name' -> (kind, lines) of every function and class under hooks/."""
    found: dict[str, tuple[str, int]] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                found[f"{path}:{name}"] = (kind, (child.end_lineno or child.lineno) - child.lineno + 1)
                visit(child, path, name + ".")
            else:
                visit(child, path, prefix)

    for file in sorted((ROOT / "hooks").rglob("*.py")):
        visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(ROOT).as_posix(), "")
    return found


def test_no_function_or_class_grows_past_its_limit() -> None:
    found = sizes()
    assert len(found) > 500  # every module was read
    too_long = {
        name: lines
        for name, (kind, lines) in found.items()
        if lines > (FUNCTION_LINES if kind == "function" else LARGER_CLASSES.get(name, CLASS_LINES))
    }
    assert too_long == {}
    for name, limit in LARGER_CLASSES.items():  # an exception that no longer needs its room loses it
        assert name in found and found[name][1] > CLASS_LINES, f"{name} fits in {CLASS_LINES} lines now: drop it"
        assert limit - found[name][1] < 20, f"{name} has {found[name][1]} lines: lower its limit to that"
