"""``<MemoryBudget .../>``: a table of what a setup needs, from the memory model (perfdocs.budgets); with
``show="..."`` inside text, one figure of it (perfdocs.reader reads those in place)."""

from __future__ import annotations

import posixpath

from .. import budgets
from ..budgets import Problem
from ..document import Node
from . import Engine
from .generated import Generated


class MemoryBudget(Generated):
    name = "MemoryBudget"
    attributes = budgets.ATTRIBUTES

    def lines_of(self, node: Node, engine: Engine) -> tuple[list[str] | None, list[Problem]]:
        site = engine.site
        calculator = None  # the page with the memory calculator, as a link from this page
        if site is not None and site.calculator is not None:
            calculator = posixpath.relpath(site.calculator, posixpath.dirname(site.page) or ".")
        return budgets.render_budget(node.attrs, calculator)
