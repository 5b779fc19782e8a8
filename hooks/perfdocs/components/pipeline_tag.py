"""``<PipelineTag pipeline="..."/>``: doc-builder's task badge, for a transformers pipeline task it knows."""

from __future__ import annotations

from .. import docbuilder
from ..diagnostics import did_you_mean
from ..document import Line, Node, Out, block_lines
from . import Component, Engine


class PipelineTag(Component):
    name = "PipelineTag"
    attributes = {"pipeline": "req"}
    void = True

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        line = lines[node.line]
        offset = self.offset(node, line)
        self.refuse_content(node, lines, engine)
        task = node.attrs.get("pipeline", ("str", ""))[1].strip()
        if not task:
            return []  # reported as a missing attribute
        if task not in docbuilder.PIPELINE_TASKS:
            engine.error(
                line,
                offset,
                f'<PipelineTag pipeline="{task}"> is not a pipeline task',
                "bad-attribute",
                did_you_mean(task, docbuilder.PIPELINE_TASKS) or "a transformers pipeline task, e.g. text-generation",
            )
            return []
        return block_lines([Out(docbuilder.pipeline_badge(task), line.src)], line.src)
