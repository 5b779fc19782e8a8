"""``<Measured .../>``: a table of relative figures from a benchmark's results in bench/results/
(perfdocs.measured)."""

from __future__ import annotations

from .. import measured
from ..budgets import Problem
from ..document import Node
from . import Engine
from .generated import Generated


class Measured(Generated):
    name = "Measured"
    attributes = measured.ATTRIBUTES

    def lines_of(self, node: Node, engine: Engine) -> tuple[list[str] | None, list[Problem]]:
        return measured.render_measured(node.attrs, engine.root)
