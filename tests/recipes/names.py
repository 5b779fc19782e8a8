"""Which names a Python block uses without binding them (the names a reader must already have)."""

from __future__ import annotations

import ast
import builtins

BUILTINS = frozenset(dir(builtins))
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def bound_names(tree: ast.AST) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, DEFINITIONS):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound |= set(node.names)
    return bound


def read_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def free_names(code: str) -> set[str]:
    """Names ``code`` reads before binding them, builtins excluded.

    Top-level statements count in order: the right-hand side of ``model = prepare(model)`` reads a ``model``
    the block has not bound yet; a loop or ``with`` statement may read what it binds itself. Function and class
    bodies run later, so any binding anywhere in the block counts for them.
    """
    tree = ast.parse(code)
    everything = bound_names(tree)
    free: set[str] = set()
    bound: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, DEFINITIONS):
            free |= read_names(statement) - everything
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
            free |= read_names(statement.value) - bound - bound_names(statement.value)
        else:
            free |= read_names(statement) - bound - bound_names(statement)
        bound |= bound_names(statement)
    return free - BUILTINS
