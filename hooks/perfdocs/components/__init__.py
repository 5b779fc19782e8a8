"""The dialect's components, one module each: a ``Component`` subclass declares its tag's name, its attributes
(name -> ``"bool"``, ``"str"`` or ``"req"``, a string that must be there), the component it must sit directly
inside, whether it takes content, and how it renders. The reader (``perfdocs.reader``) checks every tag against
these declarations and reports at the tag; the converter (``perfdocs.dialect``) calls ``render``.

Every module of this package is imported here, in name order, and each subclass with a ``name`` registers itself:
adding a component is adding one module (README, "Adding a component").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from ..diagnostics import Level, Location, did_you_mean
from ..document import Conversion, Line, Node, Out, Piece, Site

if TYPE_CHECKING:
    from ..markdown import Block

ATTR_RE = re.compile(
    r"""\s*(?P<name>[A-Za-z_:][\w.:-]*)(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|\{(?P<expr>[^{}]*)\}"""
    r"""|(?P<uq>[^\s"'=<>`{}]+)))?\s*"""
)
# Tags the theory expansion (perfdocs.theory) replaces before the dialect reads a page: not components.
EXPANDED_EARLIER = ("Only", "Theory")


class Engine(Protocol):
    """What a component's renderer may ask of the conversion it is part of (perfdocs.dialect.Converter)."""

    @property
    def generated(self) -> dict[str, list[str]]:
        """Lines of the components the site build fills in, by name."""
        ...

    @property
    def root(self) -> Path | None: ...

    @property
    def site(self) -> Site | None: ...

    def error(
        self, line: Line, offset: int, message: str, code: str, hint: str | None = None, level: Level = "error"
    ) -> None: ...

    def location(self, line: Line, offset: int = 0) -> Location: ...

    def link(self, href: str, line: Line, offset: int = 0) -> None: ...

    def body(self, node: Node, lines: list[Line]) -> list[Line]: ...

    def content(self, node: Node, lines: list[Line]) -> tuple[list[Node | Piece | Block], list[Line]]: ...

    def render(self, items: list[Node | Piece | Block], lines: list[Line]) -> list[Out]: ...

    def render_node(self, node: Node, lines: list[Line]) -> list[Out]: ...


class Component:
    """One component of the dialect. Subclasses set ``name`` (the tag) and override what differs."""

    name: ClassVar[str] = ""
    attributes: ClassVar[Mapping[str, str]] = {}
    parent: ClassVar[str | None] = None  # the component it must be directly inside
    void: ClassVar[bool] = False  # takes no content, so it may be written self-closing (<Youtube id="..."/>)

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            if cls.name in REGISTRY:
                raise TypeError(f"two components are named <{cls.name}>: {REGISTRY[cls.name]!r} and {cls!r}")
            REGISTRY[cls.name] = cls()

    def render(self, node: Node, lines: list[Line], engine: Engine) -> list[Out]:
        """The output of ``node`` (whose tag lies in ``lines``); problems go to ``engine.error``."""
        return engine.render(*engine.content(node, lines))

    def label(self, node: Node) -> str:
        """A tab's label (components whose ``parent`` is a tab group)."""
        return node.attrs.get("id", ("str", ""))[1]

    def refuse_content(self, node: Node, lines: list[Line], engine: Engine) -> None:
        """Reports a void component written with a closing tag around anything but white space."""
        if not node.body_end or node.body_end == node.body_start:
            return
        if any(line.text.strip() for line in engine.body(node, lines)):
            line = lines[node.line]
            engine.error(line, self.offset(node, line), f"<{self.name}> takes no content", "bad-attribute")

    @staticmethod
    def offset(node: Node, line: Line) -> int:
        """The column of ``node``'s opening tag within ``line``, for ``engine.error``."""
        return node.col - 1 - line.col0


REGISTRY: dict[str, Component] = {}


def children_of(group: str) -> list[str]:
    """The components that must sit directly inside ``group`` (its tabs), in registry order."""
    return [name for name, component in REGISTRY.items() if component.parent == group]


def read_attributes(name: str, raw: str, line: Line, offset: int, conv: Conversion) -> dict[str, tuple[str, str]]:
    """The attributes of a ``<name ...>`` tag at ``line``/``offset``, each ``(kind, value)`` with kind ``"str"`` or
    ``"expr"``, checked against the component's declaration; each problem reported to ``conv``."""

    def report(message: str, code: str, hint: str | None = None) -> None:
        conv.error(line, offset, message, code, hint)

    spec = REGISTRY[name].attributes
    attrs: dict[str, tuple[str, str]] = {}
    pos = 0
    while pos < len(raw):
        m = ATTR_RE.match(raw, pos)
        if not m or m.end() == pos:
            report(f"cannot parse attributes of <{name}>: {raw.strip()!r}", "bad-attribute")
            break
        pos = m.end()
        key = m.group("name")
        if m.group("expr") is not None:
            expr = m.group("expr").strip()
            literal = len(expr) >= 2 and expr[0] == expr[-1] and expr[0] in "\"'`" and expr[0] not in expr[1:-1]
            value = ("str", expr[1:-1]) if literal else ("expr", expr)  # id={"x"} is the string "x"
        elif m.group("dq") is not None or m.group("sq") is not None:
            value = ("str", m.group("dq") if m.group("dq") is not None else m.group("sq"))
        elif m.group("uq") is not None:
            value = ("str", m.group("uq"))
        else:
            value = ("expr", "true")
        kind = spec.get(key)
        if kind is None:
            allowed = ", ".join(spec) or "none"
            report(
                f"unknown attribute '{key}' on <{name}>",
                "bad-attribute",
                did_you_mean(key, spec) or f"allowed: {allowed}",
            )
            continue
        if kind == "bool" and value == ("str", "true"):
            value = ("expr", "true")  # warning=true: Svelte passes the string "true", which is truthy
        if kind == "bool" and value not in (("expr", "true"), ("expr", "false")):
            shown = "{" + value[1] + "}" if value[0] == "expr" else f'"{value[1]}"'
            report(f"attribute {key}={shown} on <{name}> must be {{true}} or {{false}}", "bad-attribute")
            continue
        if kind in ("str", "req") and value[0] != "str":
            report(f"attribute {key} on <{name}> must be a quoted string", "bad-attribute")
            continue
        attrs[key] = value
    for key, kind in spec.items():
        if kind == "req" and (key not in attrs or not attrs[key][1].strip()):
            report(f'<{name}> needs a non-empty {key}="..." attribute', "missing-attribute")
    return attrs


def is_void(name: str) -> bool:
    """Whether ``name`` is a component that takes no content."""
    component = REGISTRY.get(name)
    return component is not None and component.void


def void_names() -> frozenset[str]:
    """The components that take no content."""
    return frozenset(name for name in REGISTRY if is_void(name))


for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
