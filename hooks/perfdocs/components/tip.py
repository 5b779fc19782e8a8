"""``<Tip>`` and ``<Tip warning={true}>``: doc-builder's note and warning, a Material admonition."""

from __future__ import annotations

from ..admonitions import tip_head
from ..document import Line, Node, Out, admonition
from . import Component, Engine


class Tip(Component):
    name = "Tip"
    attributes = {"warning": "bool"}

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        warning = node.attrs.get("warning", ("expr", "false"))[1] == "true"
        body = engine.render(*engine.content(node, lines))
        return admonition(tip_head(warning), lines[node.line].src, body)
