"""Tab groups: ``<hfoptions id="..."><hfoption id="Label">`` and ``<frameworkcontent><pt>`` (``<tf>``,
``<jax>``, ``<flax>``), rendered as Material's content tabs. Material links tabs by label, so a reader's pick of a
label is picked on every page that has it."""

from __future__ import annotations

from .. import markdown as md
from ..document import Line, Node, Out, Piece, Ready, admonition, join
from . import REGISTRY, Component, Engine, children_of

# A framework tab is named apart from the API tab "PyTorch" (<hfoption id="PyTorch">, a plain PyTorch loop):
# Material links tabs by label, so one name would switch both kinds of tab set together.
FRAMEWORK_LABELS = {"pt": "PyTorch (framework)", "tf": "TensorFlow", "jax": "JAX", "flax": "JAX"}
# The labels the guide's tab sets share (README, "Writing a page"): a reader's pick of one is picked on every page.
SHARED_TAB_LABELS = ("Trainer", "Accelerate", "PyTorch", "DeepSpeed", *FRAMEWORK_LABELS.values())


class TabGroup(Component):
    """A group whose content is its tabs (the components declaring it as their ``parent``); anything else in it
    is reported and shown where it is, between two sets of tabs: nothing is lost."""

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        tabs = children_of(self.name)
        children, body = engine.content(node, lines)
        out: list[Out] = []
        seen: dict[str, int] = {}
        first = True
        for child in children:
            if isinstance(child, Ready) and child.error:  # what was left out here, already reported
                join(out, child.rendered)
                continue
            if isinstance(child, md.Block | Piece | Ready):
                if not isinstance(child, md.Block) or child.kind != "blank":
                    if isinstance(child, Piece):
                        row = child.start[0]
                    else:
                        row = child.line if isinstance(child, Ready) else child.start
                    engine.error(
                        body[row],
                        0,
                        f"text directly inside <{node.name}> is outside every tab",
                        "text-outside-tab",
                        "move it into a tab or after the closing tag; it is shown between the tabs",
                    )
                    join(out, engine.render([child], body))
                    first = True
                continue
            here = body[child.line]
            offset = self.offset(child, here)
            if child.name not in tabs:
                engine.error(
                    here,
                    offset,
                    f"<{child.name}> inside <{node.name}>; only {', '.join(f'<{t}>' for t in tabs)} may be here",
                    "misplaced-component",
                )
                join(out, engine.render_node(child, body))
                first = True
                continue
            label = REGISTRY[child.name].label(child)
            if '"' in label:
                engine.error(here, offset, f"tab label {label!r} cannot contain '\"'", "bad-attribute")
                label = label.replace('"', "'")
            if label in seen:
                engine.error(
                    here,
                    offset,
                    f"tab '{label}' appears twice in this <{node.name}> (first at line {seen[label]})",
                    "duplicate-tab",
                    "shown as a second tab of that name",
                )
            self.shared_label(label, here, offset, engine)
            seen.setdefault(label, engine.location(here).line)
            head = f'==={"!" if first else ""} "{label}"'
            join(out, admonition(head, here.src, engine.render(*engine.content(child, body))))
            first = False
        if not seen:
            line = lines[node.line]
            engine.error(line, self.offset(node, line), f"<{node.name}> has no tabs", "empty-component")
        return out

    @staticmethod
    def shared_label(label: str, line: Line, offset: int, engine: Engine) -> None:
        """Warns of a label that differs from a shared one only in case."""
        shared = next((s for s in SHARED_TAB_LABELS if s != label and s.casefold() == label.casefold()), None)
        if shared is not None:
            engine.error(
                line,
                offset,
                f"tab '{label}' differs from the guide's shared label '{shared}' only in case: a reader's pick "
                "of one does not carry over to the other",
                "tab-label-case",
                f'write id="{shared}"',
                level="warning",
            )


class HfOptions(TabGroup):
    name = "hfoptions"
    attributes = {"id": "req"}


class HfOption(Component):
    """A tab of ``<hfoptions>``, labelled by its id (outside a group: reported by the reader, content shown)."""

    name = "hfoption"
    attributes = {"id": "req"}
    parent = "hfoptions"


class FrameworkContent(TabGroup):
    name = "frameworkcontent"


class FrameworkTab(Component):
    """A tab of ``<frameworkcontent>``, labelled by its framework."""

    parent = "frameworkcontent"

    def label(self, node: Node) -> str:
        return FRAMEWORK_LABELS[self.name]


class Pt(FrameworkTab):
    name = "pt"


class Tf(FrameworkTab):
    name = "tf"


class Jax(FrameworkTab):
    name = "jax"


class Flax(FrameworkTab):
    name = "flax"
